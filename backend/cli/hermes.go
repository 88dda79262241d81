package cli

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"hyatlas/backend/api"
	"hyatlas/backend/engine"
	"hyatlas/backend/hermes"
)

// runHermes installs, removes or shows the Hermes plugin. It works on
// the files directly, so it needs no running instance; status also asks a
// running one when Hermes last called it.
func runHermes(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("hermes", flag.ContinueOnError)
	profile := fs.String("profile", "", "a named Hermes profile (default: the active one)")
	home := fs.String("home", "", "the Hermes home (default: HERMES_HOME, else ~/.hermes)")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	dir := *home
	switch {
	case set["home"] && dir == "": // an unset shell variable, say: never the default home instead
		return usageError{"--home needs a folder"}
	case set["profile"] && *profile == "":
		return usageError{"--profile needs a name"}
	case dir != "" && *profile != "":
		return usageError{"give --home or --profile, not both"}
	}
	if *profile != "" {
		if err := hermes.CheckProfile(*profile); err != nil {
			return usageError{err.Error()}
		}
	}
	switch {
	case dir != "":
		if dir, err = filepath.Abs(dir); err != nil {
			return err
		}
		// A home named by hand must be there (a typo never makes a new
		// folder, nor says "not installed" of a folder that is not one);
		// only Hermes's own default home is made when missing.
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("no Hermes home at %s: give the folder Hermes uses (run Hermes once to make it)", dir)
		}
	default:
		if dir, err = hermes.ResolveHome(e.Getenv, *profile); err != nil {
			return err
		}
	}
	inst := engine.NewHermesInstaller(cfg)
	var st hermes.Status
	switch pos[0] {
	case "install":
		// The plugin reads the token from the app's config directory: make
		// sure there is one even if the app has never run.
		if _, err := api.LoadOrCreateToken(cfg.Paths.Config); err != nil {
			return err
		}
		st, err = inst.Install(dir)
	case "uninstall":
		st, err = inst.Uninstall(dir)
	case "status":
		st, err = inst.Status(dir)
	default:
		return usageError{fmt.Sprintf("unknown hermes action %q (install, uninstall or status)", pos[0])}
	}
	if err != nil {
		return err
	}
	var live api.HermesState
	if pos[0] == "status" {
		if c, err := connect(e); err == nil {
			_ = c.Do(ctx, http.MethodGet, "/api/v1/hermes", nil, &live) // best effort: the app may not run
		}
	}
	if *asJSON {
		out := api.HermesState{HermesHome: st.HermesHome, HomeExists: st.HomeExists, Installed: st.Installed,
			Active: st.Active, Provider: st.Provider, PluginVersion: st.PluginVersion, BundledVersion: st.BundledVersion,
			Outdated: st.Outdated, PreviousProvider: st.PreviousProvider, PreviousSet: st.PreviousSet,
			LastContact: live.LastContact, Message: st.Message}
		return printJSON(e.Stdout, out)
	}
	if st.Message != "" {
		fmt.Fprintln(e.Stdout, st.Message)
		return nil
	}
	fmt.Fprintf(e.Stdout, "Hermes home: %s\n", st.HermesHome)
	switch {
	case !st.Installed:
		fmt.Fprintln(e.Stdout, "plugin: not installed (`hyatlas hermes install` connects Hermes)")
	case st.Outdated:
		fmt.Fprintf(e.Stdout, "plugin: installed, version %s (this app has %s: run `hyatlas hermes install` to update)\n",
			st.PluginVersion, st.BundledVersion)
	default:
		fmt.Fprintf(e.Stdout, "plugin: installed, version %s\n", st.PluginVersion)
	}
	provider := st.Provider
	if provider == "" {
		provider = "(built-in memory only)"
	}
	fmt.Fprintf(e.Stdout, "memory.provider: %s (active: %v)\n", provider, st.Active)
	if live.LastContact != nil {
		fmt.Fprintf(e.Stdout, "last contact: %s\n", live.LastContact.Local().Format("2006-01-02 15:04:05"))
	} else {
		fmt.Fprintln(e.Stdout, "last contact: none since the app started (or the app is not running)")
	}
	return nil
}
