// Command hyatlas is HyAtlas Desktop: local memory for AI agents. With no
// arguments it opens the desktop window (or, with no display, serves
// headless); its subcommands are listed by `hyatlas help`.
package main

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	"os"

	"hyatlas/app"
	"hyatlas/backend/cli"
	"hyatlas/backend/engine"
)

// dist holds the built frontend in dist/app (make build writes it); the
// committed dist/.gitkeep keeps the directory present on a clean checkout.
//
//go:embed all:frontend/dist
var dist embed.FS

// icon is the window and launcher icon.
//
//go:embed build/appicon.png
var icon []byte

func main() {
	assets := frontendAssets()
	var gui cli.GUI
	var startFailed func(string) error
	if app.Available {
		gui = func(ctx context.Context, eng *engine.Engine, log *slog.Logger) error {
			return app.Run(ctx, eng, assets, icon, log)
		}
		startFailed = func(message string) error { return app.ShowStartError(message, icon) }
	}
	os.Exit(cli.Run(context.Background(), cli.Env{
		Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, GUI: gui, Assets: assets, StartFailed: startFailed,
	}))
}

// frontendAssets returns the built frontend, or nil when this binary was
// built without it.
func frontendAssets() fs.FS {
	sub, err := fs.Sub(dist, "frontend/dist/app")
	if err != nil {
		return nil
	}
	if _, err := fs.Stat(sub, "index.html"); err != nil {
		return nil
	}
	return sub
}
