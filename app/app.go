// Package app is the desktop shell: the Wails window over a running
// engine. It is the only package that imports Wails. The window's frontend
// talks to the engine through the same HTTP handlers as the browser
// dashboard, mounted in-process on the Wails asset server.
package app

import (
	"context"
	"io/fs"
	"log/slog"
	"sync/atomic"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"hyatlas/backend/engine"
)

// Run opens the window and returns when the user quits. assets is the
// built frontend (index.html at its root) or nil, in which case every
// request goes to the engine's handler, which explains how to build it;
// icon is a PNG. While the tray icon is on show (on Linux, a tray host
// on the D-Bus session bus took it), closing the window hides it and the
// API and background work go on until Quit in the tray; without one,
// closing the window quits. A second launch of hyatlas shows this window
// (through the API, see api.Server.SetWindow).
func Run(ctx context.Context, eng *engine.Engine, assets fs.FS, icon []byte, log *slog.Logger) error {
	t := newTray(eng, icon, log)
	var quitting atomic.Bool // our own quits (tray, restart) pass OnBeforeClose
	quit := func(ctx context.Context) {
		quitting.Store(true)
		runtime.Quit(ctx)
	}
	if t != nil {
		t.quit = quit
	}
	dir := eng.Config.Paths.Config
	g := loadGeometry(dir)
	remember := func(ctx context.Context) {
		w, h := runtime.WindowGetSize(ctx)
		x, y := runtime.WindowGetPosition(ctx)
		saveGeometry(dir, geometry{Width: w, Height: h, X: x, Y: y, Placed: true})
	}
	return wails.Run(&options.App{
		Title:             "HyAtlas",
		Width:             g.Width,
		Height:            g.Height,
		MinWidth:          minWidth,
		MinHeight:         minHeight,
		HideWindowOnClose: false, // decided at each close: see OnBeforeClose
		AssetServer: &assetserver.Options{
			Assets:  assets,
			Handler: eng.WindowHandler(),
		},
		BackgroundColour: options.NewRGB(250, 250, 250),
		OnStartup: func(ctx context.Context) {
			if g.Placed {
				runtime.WindowSetPosition(ctx, g.X, g.Y)
			}
			eng.API.SetWindow(func() {
				runtime.WindowShow(ctx)
				runtime.WindowUnminimise(ctx)
			})
			eng.SetQuit(func() { quit(ctx) }) // Settings' Restart quits, then main starts again
			eng.SetFileDialogs(fileDialogs(ctx))
			if t != nil {
				t.run(ctx)
			}
		},
		// The size and position are kept when the window closes (hidden or
		// not) and when the app quits. Wails calls this for the close button
		// and for runtime.Quit alike: our own quits go through; the close
		// button hides the window only while a tray icon is on show (a tray
		// host on the bus) to bring it back from, else it quits.
		OnBeforeClose: func(ctx context.Context) bool {
			remember(ctx)
			if quitting.Load() || t == nil || !t.shown() {
				return false
			}
			runtime.WindowHide(ctx)
			return true
		},
		OnShutdown: func(ctx context.Context) {
			remember(ctx)
			eng.API.SetWindow(nil)
			eng.SetFileDialogs(nil)
			eng.SetQuit(nil)
			if t != nil {
				t.stop()
			}
		},
		// Once the webview runs, WebKit's signal handlers lack SA_ONSTACK and
		// any Go panic would kill the process; restore the flag.
		OnDomReady: func(context.Context) { runtime.ResetSignalHandlers() },
		Linux:      &linux.Options{ProgramName: "hyatlas", Icon: icon},
	})
}
