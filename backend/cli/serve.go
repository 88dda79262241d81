package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
	"hyatlas/backend/config"
	"hyatlas/backend/engine"
)

// runApp opens the desktop window when a display exists and the build has
// one; otherwise it says so and runs headless.
func runApp(ctx context.Context, e Env, args []string) error {
	if _, err := parse(flag.NewFlagSet("hyatlas", flag.ContinueOnError), args, 0, 0); err != nil {
		return err
	}
	switch {
	case e.GUI == nil:
		fmt.Fprintln(e.Stdout, "This build has no desktop window: running headless.")
		return restartAfter(serve(ctx, e, nil))
	case !hasDisplay(e.Getenv):
		fmt.Fprintln(e.Stdout, "No display found: running headless.")
		return restartAfter(serve(ctx, e, nil))
	default:
		restart, err := serve(ctx, e, e.GUI)
		var inWindow windowError
		if err != nil && !errors.As(err, &inWindow) && e.StartFailed != nil {
			fmt.Fprintln(e.Stderr, "hyatlas:", humanError(err))
			if werr := e.StartFailed(humanError(err)); werr != nil {
				fmt.Fprintln(e.Stderr, "hyatlas: could not show the error in a window:", werr)
			}
			return reported{err}
		}
		return restartAfter(restart, err)
	}
}

// windowError is an error of the window itself, once it was open: the
// window showed it, so it is not shown again as a failure to start.
type windowError struct{ err error }

func (w windowError) Error() string { return w.err.Error() }
func (w windowError) Unwrap() error { return w.err }

func runServe(ctx context.Context, e Env, args []string) error {
	if _, err := parse(flag.NewFlagSet("serve", flag.ContinueOnError), args, 0, 0); err != nil {
		return err
	}
	return restartAfter(serve(ctx, e, nil))
}

// hasDisplay reports whether a window can be shown: always on macOS and
// Windows; on Linux and the BSDs only with an X11 or Wayland display.
func hasDisplay(getenv func(string) string) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// serve opens the engine, listens, and runs until a signal (headless) or
// until the window quits (gui). Shutdown finishes requests in progress,
// flushes and closes the store. restart is true when the instance stopped
// because POST /api/v1/restart asked it to.
func serve(ctx context.Context, e Env, gui GUI) (restart bool, err error) {
	defer engine.ReleaseInheritedListener() // a start that failed before Listen frees the port
	cfg, err := loadConfig(e)
	if err != nil {
		return false, err
	}
	withholdSecretEnv()
	status := portFree // a restart handed over its listening socket: the port is this instance's
	if _, inherited := os.LookupEnv(engine.ListenFDEnv); !inherited {
		status = running(ctx, cfg)
	}
	switch status {
	case portFree:
	case portStranger:
		return false, strangerAt(cfg)
	default:
		if gui != nil {
			return false, showRunning(ctx, e, cfg)
		}
		return false, fmt.Errorf("HyAtlas is already running at http://%s (not starting a second server)", cfg.Addr())
	}
	// Catch a stop request from here on, so one that arrives while opening
	// still ends in a clean Close.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	log := slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	eng, err := engine.Open(ctx, cfg, engine.Options{Logger: log, Assets: e.Assets})
	if err != nil {
		return false, err
	}
	defer func() {
		if err := eng.Close(); err != nil {
			log.Error("shutdown", "err", err)
		}
		restart = restart || eng.RestartRequested()
	}()
	if _, err := eng.Listen(); err != nil {
		return false, err
	}
	base := eng.BaseURL()
	every := ""
	if ip := net.ParseIP(cfg.Host); ip != nil && ip.IsUnspecified() {
		every = fmt.Sprintf(" (listening on every interface: HYATLAS_GO_HOST=%s)", cfg.Host)
	}
	fmt.Fprintf(e.Stdout, "HyAtlas %s is serving at %s%s\n", engine.Version, base, every)
	if cfg.Auth {
		fmt.Fprintf(e.Stdout, "Dashboard: %s (works once, for 10 minutes; `hyatlas dashboard` opens a new one)\n", eng.API.DashboardURL(base))
		fmt.Fprintf(e.Stdout, "API token: run `hyatlas token` (file %s)\n", cfg.Paths.Config+string(os.PathSeparator)+api.TokenFile)
	} else {
		fmt.Fprintf(e.Stdout, "Dashboard: %s\n", eng.API.DashboardURL(base))
		fmt.Fprintln(e.Stdout, "API token: off (HYATLAS_AUTH=off)")
	}
	fmt.Fprintf(e.Stdout, "Data: %s\n", cfg.Paths.Data)

	if gui != nil {
		signal.Stop(sig) // the window handles its own signals
		if err := gui(ctx, eng, log); err != nil {
			return false, windowError{err}
		}
		return false, nil
	}
	quit := make(chan struct{})
	var once sync.Once
	eng.SetQuit(func() { once.Do(func() { close(quit) }) })
	select {
	case s := <-sig:
		log.Info("stopping", "signal", s.String())
	case <-quit:
		log.Info("restarting")
	case <-ctx.Done():
	}
	return false, nil
}

// showRunning brings the running instance's window to the front: a
// second launch of the app is not a second app.
func showRunning(ctx context.Context, e Env, cfg config.Config) error {
	c, err := connect(e)
	if err != nil {
		return err
	}
	if err := c.Do(ctx, http.MethodPost, "/api/v1/window/show", nil, nil); errors.Is(err, client.ErrNotHyAtlas) {
		return strangerAt(cfg)
	} else if err != nil {
		return fmt.Errorf("HyAtlas is already running at http://%s, without a window; `hyatlas dashboard` opens it in a browser", cfg.Addr())
	}
	fmt.Fprintln(e.Stdout, "HyAtlas is already running: its window is in front.")
	return nil
}

// strangerAt says that a program other than HyAtlas holds its address.
func strangerAt(cfg config.Config) error {
	return fmt.Errorf("another program answers at http://%s, HyAtlas's address, and it is not this HyAtlas (it cannot prove it holds the API token): quit it, or give HyAtlas another port with HYATLAS_GO_PORT", cfg.Addr())
}

// portUse is who answers at the configured address.
type portUse int

const (
	portFree     portUse = iota // nobody (or nothing that answers HTTP)
	portHyAtlas                 // a HyAtlas holding this config's token
	portStranger                // a program that cannot prove it holds the token
)

// running tells whether a HyAtlas already answers at the configured
// address: one that proves it holds this config's token, so a program
// that took the port is not mistaken for it (and is sent nothing).
func running(ctx context.Context, cfg config.Config) portUse {
	host := cfg.Host
	if host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	if cfg.Port == 0 {
		return portFree
	}
	// No token yet: no HyAtlas of this configuration has started, so
	// anything that answers is another program.
	token, _ := api.ReadToken(cfg.Paths.Config)
	c := client.New("http://"+joinHostPort(host, cfg.Port), token)
	c.HTTP.Timeout = 2 * time.Second
	var answered *client.Error
	switch err := c.Health(ctx); {
	case errors.Is(err, client.ErrNotHyAtlas) || errors.As(err, &answered) || (err == nil && token == ""):
		// It answered, but could not prove it holds the token, or not as
		// HyAtlas answers (a 404).
		return portStranger
	case err != nil:
		return portFree
	}
	return portHyAtlas
}

func loadConfig(e Env) (config.Config, error) {
	cfg, err := config.LoadWithSettings(e.Getenv)
	if err != nil {
		return config.Config{}, fmt.Errorf("configuration: %w", err)
	}
	return cfg, nil
}

func joinHostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }
