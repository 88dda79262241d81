package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"text/tabwriter"

	"hyatlas/backend/api/client"
	"hyatlas/backend/memory"
	"hyatlas/backend/models"
)

// runModels manages downloadable embedding models: through the running
// instance when there is one (it switches to a model it installs and
// re-embeds), else directly in the data directory (the next start uses it).
func runModels(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	pos, err := parse(fs, args, 0, 2)
	if err != nil {
		return err
	}
	verb := "list"
	if len(pos) > 0 {
		verb = pos[0]
	}
	name := ""
	switch {
	case verb == "list" && len(pos) <= 1:
	case (verb == "install" || verb == "cancel" || verb == "remove" || verb == "verify") && len(pos) == 2:
		name = pos[1]
	default:
		return usageError{"models: say list, install NAME, cancel NAME, remove NAME or verify NAME"}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	if err := c.Health(ctx); errors.Is(err, client.ErrUnreachable) {
		return modelsOffline(ctx, e, verb, name)
	}
	switch verb {
	case "install":
		return installRemote(ctx, e, c, name)
	case "cancel":
		if err := c.Do(ctx, "POST", "/api/v1/models/"+url.PathEscape(name)+"/cancel", nil, nil); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "cancelled installing %s; the part downloaded is kept: install again to go on from there\n", name)
	case "remove":
		was, err := c.RemoveModel(ctx, name)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.Stdout, removedLine(name, was))
	case "verify":
		if err := c.VerifyModel(ctx, name); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "%s verified: every file matches its pinned checksum\n", name)
	default:
		list, err := c.Models(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSTATE\tSIZE\tDESCRIPTION")
		for _, m := range list {
			state := "not installed"
			switch {
			case m.Installing:
				state = "installing"
			case m.Active:
				state = "installed, in use"
			case m.Installed:
				state = "installed"
			}
			fmt.Fprintf(tw, "%s\t%s\t%.0f MB\t%s\n", m.Name, state, float64(m.Size)/1e6, m.Description)
		}
		return tw.Flush()
	}
	return nil
}

// installRemote asks the running instance to install a model and shows its
// progress until it is done.
func installRemote(ctx context.Context, e Env, c *client.Client, name string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bar := models.Bar(e.Stderr, isTerminal(e.Stderr))
	opened := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		outcome := fmt.Errorf("the connection to HyAtlas ended before %s was installed: see `hyatlas models`", name)
		err := c.Events(ctx, func() { close(opened) }, func(ev memory.Event) bool {
			data, _ := ev.Data.(map[string]any)
			if data["name"] != name {
				return true
			}
			switch ev.Type {
			case "model.progress":
				bar(models.Progress{Model: name, File: fmt.Sprint(data["file"]), Done: int64(num(data["done"])),
					Total: int64(num(data["total"])), Phase: models.Phase(fmt.Sprint(data["phase"]))})
				return true
			case "model.failed":
				outcome = fmt.Errorf("installing %s failed: %v", name, data["error"])
			case "model.cancelled":
				outcome = fmt.Errorf("installing %s was cancelled (in the app, or with `hyatlas models cancel`); the part downloaded is kept: install again to go on", name)
			case "model.installed":
				outcome = nil
			default:
				return true
			}
			return false
		}, "model.")
		if err != nil && outcome != nil {
			outcome = errors.Join(outcome, err)
		}
		result <- outcome
	}()
	select {
	case <-opened:
	case err := <-result:
		return err
	}
	if err := c.InstallModel(ctx, name); err != nil {
		return err
	}
	if err := <-result; err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "installed %s; HyAtlas now embeds with it and re-embeds your memories in the background (see `hyatlas status`)\n", name)
	return nil
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

// modelsOffline works on the data directory when no HyAtlas runs.
func modelsOffline(ctx context.Context, e Env, verb, name string) error {
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	m := &models.Manager{Dir: filepath.Join(cfg.Paths.Data, "models"), BaseURL: cfg.ModelsBase}
	switch verb {
	case "cancel":
		return fmt.Errorf("HyAtlas is not running, so no install of %s is under way (an install this command runs stops with Ctrl+C)", name)
	case "install":
		if err := m.Install(ctx, name, models.Bar(e.Stderr, isTerminal(e.Stderr))); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "installed %s; HyAtlas will use it from its next start\n", name)
	case "remove":
		was, err := m.Remove(name)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.Stdout, removedLine(name, was))
	case "verify":
		if err := m.Verify(name); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "%s verified: every file matches its pinned checksum\n", name)
	default:
		list, err := m.List()
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSTATE\tDESCRIPTION")
		for _, s := range list {
			state := "not installed"
			if s.Installed {
				state = "installed"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, state, s.Description)
		}
		return tw.Flush()
	}
	return nil
}

// removedLine says what `models remove` did: a model that was not
// installed had at most the leftovers of an unfinished download removed.
func removedLine(name string, wasInstalled bool) string {
	if wasInstalled {
		return "removed " + name
	}
	return name + " was not installed: nothing to remove"
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
