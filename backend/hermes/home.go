// Package hermes installs the Hermes memory-provider plugin (Python,
// standard library only, embedded in the binary) into a Hermes home,
// switches Hermes's memory.provider to it and back, and writes the
// discovery file through which the plugin finds the running app.
//
// Rules this package keeps:
//   - The Hermes home is HERMES_HOME, else the OS default (~/.hermes;
//     %LOCALAPPDATA%\hermes on Windows); a named profile lives at
//     <root>/profiles/<name>. The app reads nothing else of Hermes's.
//   - config.yaml is edited line by line: only the memory.provider value
//     changes; comments, order and every other setting stay as they were,
//     and the result is parsed back to prove it.
//   - Uninstall restores the provider recorded at install, and only when
//     nothing changed it meanwhile, and deletes the plugin's own files in
//     the home (its folder with the outbox of unsent turns and the auto
//     start's log, its settings file): no conversation text outlives the
//     connection.
//   - The discovery file holds the address and the path of the token
//     file, never the token (mode 0600).
package hermes

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// PluginName is the plugin's directory name and the memory.provider value
// that activates it.
const PluginName = "hyatlas"

var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// CheckProfile refuses a name Hermes would not accept as a profile.
func CheckProfile(name string) error {
	if !profileName.MatchString(name) {
		return fmt.Errorf("profile %q is not a valid Hermes profile name (letters, digits, '.', '_' and '-', at most 64)", name)
	}
	return nil
}

// ReservedProfile is the one profile name Hermes accepts and HyAtlas does
// not: "all" is no owner in HyAtlas (its graph views read it as every
// agent), so it is never an agent_id. Install refuses a profile of that
// name; the plugin writes a Hermes whose profile or gateway user is still
// called so (set up otherwise) as "_all", an id no profile can have.
const ReservedProfile = "all"

// ErrReservedProfile is an install into the profile named ReservedProfile.
var ErrReservedProfile = errors.New("reserved Hermes profile name")

// checkReservedProfile refuses the home of a profile named ReservedProfile
// (<root>/profiles/all), however it was named (--profile, HERMES_HOME, the
// sticky active profile).
func checkReservedProfile(home string) error {
	if filepath.Base(filepath.Dir(home)) == "profiles" && filepath.Base(home) == ReservedProfile {
		return fmt.Errorf("%w: HyAtlas cannot connect the Hermes profile %q (%s): HyAtlas reserves the name %q, "+
			"which in its views means every agent, so it is no agent's id; give the profile another name in Hermes "+
			"or connect another one", ErrReservedProfile, ReservedProfile, home, ReservedProfile)
	}
	return nil
}

// ResolveHome returns the Hermes home to install into. With profile "" it
// is HERMES_HOME, else the OS default root, or, when HERMES_HOME is unset
// and the root names a sticky active profile, that profile's home. A named
// profile is <root>/profiles/<name> ("default" is the root itself).
func ResolveHome(getenv func(string) string, profile string) (string, error) {
	if profile != "" {
		if err := CheckProfile(profile); err != nil {
			return "", err
		}
	}
	if env := strings.TrimSpace(getenv("HERMES_HOME")); env != "" {
		if !filepath.IsAbs(env) {
			return "", fmt.Errorf("HERMES_HOME must be an absolute path, not %q", env)
		}
		if profile == "" || profile == "default" {
			return filepath.Clean(env), nil
		}
		return filepath.Join(rootOf(env), "profiles", profile), nil
	}
	root, err := defaultRoot(getenv)
	if err != nil {
		return "", err
	}
	if profile == "" {
		profile = activeProfile(root)
	}
	if profile == "" || profile == "default" {
		return root, nil
	}
	return filepath.Join(root, "profiles", profile), nil
}

// rootOf is the root of a home that may itself be a profile's home.
func rootOf(home string) string {
	home = filepath.Clean(home)
	if parent := filepath.Dir(home); filepath.Base(parent) == "profiles" {
		return filepath.Dir(parent)
	}
	return home
}

func defaultRoot(getenv func(string) string) (string, error) {
	if runtime.GOOS == "windows" {
		if la := getenv("LOCALAPPDATA"); la != "" {
			return filepath.Join(la, "hermes"), nil
		}
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the home directory for the Hermes home: %w", err)
		}
		home = h
	}
	return filepath.Join(home, ".hermes"), nil
}

// activeProfile is the sticky profile Hermes records in <root>/active_profile
// ("" when none or unreadable).
func activeProfile(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "active_profile"))
	if err != nil {
		return ""
	}
	name := strings.TrimSpace(string(b))
	if !profileName.MatchString(name) {
		return ""
	}
	return name
}
