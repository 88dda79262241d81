package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"hyatlas/backend/engine"
)

// trayStatusEvery is how often the tray's status line is refreshed.
const trayStatusEvery = 5 * time.Second

// tray is the status-area icon: Open HyAtlas, Open in browser, a status
// line, Pause/Resume extraction, Quit. On Linux it is a D-Bus
// StatusNotifierItem (no GTK), so it needs a session bus: without one it
// is not started at all, and its end function is never called (ending a
// tray that never connected crashes). It is on show only while a tray
// host (see shown) is on the bus.
type tray struct {
	eng   *engine.Engine
	icon  []byte
	log   *slog.Logger
	ready chan struct{} // closed once the window's context is known
	ctx   context.Context
	start func()
	end   func()
	once  sync.Once
	quit  func(context.Context) // quits the app past the close-hides rule
}

// newTray prepares the tray, or returns nil when there is no session bus.
func newTray(eng *engine.Engine, icon []byte, log *slog.Logger) *tray {
	if _, err := dbus.SessionBus(); err != nil {
		log.Info("no D-Bus session bus: no tray icon; closing the window quits", "err", err)
		return nil
	}
	t := &tray{eng: eng, icon: icon, log: log, ready: make(chan struct{})}
	t.start, t.end = systray.RunWithExternalLoop(t.onReady, func() {})
	return t
}

// run starts the tray once the window's context exists.
func (t *tray) run(ctx context.Context) {
	t.ctx = ctx
	t.start()
	close(t.ready)
}

// watcherName is the D-Bus name of the tray host (the status notifier
// watcher) that shows items like ours.
const watcherName = "org.kde.StatusNotifierWatcher"

// shown reports whether a tray host is on the session bus now, so our
// icon is on show: without one (stock GNOME has none) a hidden window
// could not be brought back from the tray.
func (t *tray) shown() bool {
	conn, err := dbus.SessionBus()
	if err != nil {
		return false
	}
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, watcherName).Store(&has); err != nil {
		t.log.Warn("could not ask the session bus for a tray host; closing the window quits", "err", err)
		return false
	}
	return has
}

// stop removes the tray icon.
func (t *tray) stop() { t.once.Do(t.end) }

func (t *tray) onReady() {
	systray.SetIcon(t.icon)
	systray.SetTitle("HyAtlas")
	systray.SetTooltip("HyAtlas: memory for your agents")
	open := systray.AddMenuItem("Open HyAtlas", "Show the window")
	browser := systray.AddMenuItem("Open in browser", "Open the dashboard in your browser")
	systray.AddSeparator()
	status := systray.AddMenuItem("Starting…", "")
	status.Disable()
	pause := systray.AddMenuItem("Pause extraction", "Hold background extraction; writes are kept")
	systray.AddSeparator()
	quit := systray.AddMenuItem("Quit", "Stop HyAtlas (your agent loses its memory until you start it again)")
	go func() {
		<-t.ready
		tick := time.NewTicker(trayStatusEvery)
		defer tick.Stop()
		t.refresh(status, pause)
		for {
			select {
			case <-open.ClickedCh:
				runtime.WindowShow(t.ctx)
				runtime.WindowUnminimise(t.ctx)
			case <-browser.ClickedCh:
				// The browser gets a page's path, not the sign-in link: a
				// command line is readable by every user of the machine.
				page, err := t.eng.SignInPage()
				switch {
				case err == nil && page == "": // no sign-in: the address holds no secret
					runtime.BrowserOpenURL(t.ctx, t.eng.API.DashboardURL(t.eng.BaseURL()))
				case err == nil:
					err = openInBrowser(page)
				}
				if err != nil {
					t.log.Error("could not open the dashboard in the browser", "err", err)
				}
			case <-pause.ClickedCh:
				t.eng.PauseExtraction(!t.eng.ExtractionPaused())
				t.refresh(status, pause)
			case <-quit.ClickedCh:
				t.log.Info("quit from the tray")
				t.quit(t.ctx)
				return
			case <-tick.C:
				t.refresh(status, pause)
			}
		}
	}()
}

// refresh updates the status line and the pause item's title.
func (t *tray) refresh(status, pause *systray.MenuItem) {
	st, err := t.eng.Memory.Stats(t.ctx)
	if err != nil {
		status.SetTitle("Status unavailable")
		return
	}
	total := 0
	for _, n := range st.Live {
		total += n
	}
	line := fmt.Sprintf("%d memories · extraction %s", total, t.eng.Memory.LLMState())
	if st.Unextracted > 0 {
		line += fmt.Sprintf(" · %d waiting", st.Unextracted)
	}
	if t.eng.ExtractionPaused() {
		line += " · paused"
		pause.SetTitle("Resume extraction")
	} else {
		pause.SetTitle("Pause extraction")
	}
	status.SetTitle(line)
	systray.SetTooltip("HyAtlas: " + line)
}
