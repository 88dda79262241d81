package hermes

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"hyatlas/backend/atomicfile"
)

//go:embed all:plugin
var pluginFiles embed.FS

// installsFile records, per Hermes home, what memory.provider was before
// the install (in the app's config directory).
const installsFile = "hermes-installs.json"

var pluginVersionLine = regexp.MustCompile(`(?m)^version:\s*"?([^"\s]+)"?\s*$`)

// PluginVersion is the version of the embedded plugin (from its plugin.yaml).
func PluginVersion() string {
	b, err := pluginFiles.ReadFile("plugin/plugin.yaml")
	if err != nil {
		return ""
	}
	return versionOf(b)
}

func versionOf(pluginYAML []byte) string {
	if m := pluginVersionLine.FindSubmatch(pluginYAML); m != nil {
		return string(m[1])
	}
	return ""
}

// Installer installs the plugin into Hermes homes. ConfigDir is the app's
// config directory (the discovery file and the install records live
// there); Discovery is written there when no discovery file exists yet,
// so the plugin is available before the app first runs.
type Installer struct {
	ConfigDir string
	Discovery Discovery
	Now       func() time.Time

	mu sync.Mutex // one install or uninstall at a time
}

// Status is what Settings and `hyatlas hermes status` show.
type Status struct {
	HermesHome       string `json:"hermes_home"`
	HomeExists       bool   `json:"home_exists"`
	Installed        bool   `json:"installed"`         // the plugin's files are there
	Active           bool   `json:"active"`            // memory.provider is hyatlas and the plugin is installed
	Provider         string `json:"provider"`          // memory.provider now ("" = built-in only)
	PluginVersion    string `json:"plugin_version"`    // installed ("" when not installed)
	BundledVersion   string `json:"bundled_version"`   // what this app would install
	Outdated         bool   `json:"outdated"`          // installed and older than bundled
	PreviousProvider string `json:"previous_provider"` // what uninstall restores
	PreviousSet      bool   `json:"previous_set"`      // false: uninstall removes the key
	Message          string `json:"message,omitempty"` // what an install or uninstall did
}

// install is one record of installs.json.
type install struct {
	PreviousProvider string    `json:"previous_provider"`
	PreviousSet      bool      `json:"previous_set"`
	InstalledAt      time.Time `json:"installed_at"`
	Version          string    `json:"version"`
	// Created lists what the first install made in the home ("." the home
	// itself, "plugins", "config.yaml"): uninstall removes each again when
	// it holds nothing else.
	Created []string `json:"created,omitempty"`
}

// PluginDir is where the plugin lives in a Hermes home.
func PluginDir(home string) string { return filepath.Join(home, "plugins", PluginName) }

// Status reports the plugin's state in home.
func (in *Installer) Status(home string) (Status, error) {
	home, err := cleanHome(home)
	if err != nil {
		return Status{}, err
	}
	st := Status{HermesHome: home, BundledVersion: PluginVersion()}
	if fi, err := os.Stat(home); err == nil && fi.IsDir() {
		st.HomeExists = true
	}
	if b, err := os.ReadFile(filepath.Join(PluginDir(home), "plugin.yaml")); err == nil {
		st.Installed = true
		st.PluginVersion = versionOf(b)
		st.Outdated = st.PluginVersion != st.BundledVersion
	}
	cfg, err := readConfig(home)
	if err != nil {
		return st, err
	}
	if p, ok, err := MemoryProvider(cfg); err != nil {
		return st, err
	} else if ok {
		st.Provider = p
		st.Active = p == PluginName && st.Installed
	}
	recs, err := in.records()
	if err != nil {
		return st, err
	}
	if r, ok := recs[home]; ok {
		st.PreviousProvider, st.PreviousSet = r.PreviousProvider, r.PreviousSet
	}
	return st, nil
}

// Install writes the plugin into home (replacing an older copy), records
// the current memory.provider and sets it to hyatlas. A missing home or
// config.yaml is created. Nothing is changed when config.yaml cannot be
// edited safely.
func (in *Installer) Install(home string) (Status, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	unlock, err := in.lockRecords()
	if err != nil {
		return Status{}, err
	}
	defer unlock()
	home, err = cleanHome(home)
	if err != nil {
		return Status{}, err
	}
	if err := checkReservedProfile(home); err != nil {
		return Status{}, err
	}
	if err := checkProfileExists(home); err != nil {
		return Status{}, err
	}
	cfg, err := readConfig(home)
	if err != nil {
		return Status{}, err
	}
	edited, err := SetMemoryProvider(cfg, PluginName)
	if err != nil {
		return Status{}, err
	}
	prev, prevSet, err := MemoryProvider(cfg)
	if err != nil {
		return Status{}, err
	}
	recs, err := in.records()
	if err != nil {
		return Status{}, err
	}
	old, reinstall := recs[home]
	created := old.Created
	if !reinstall {
		for _, p := range []string{".", "plugins", "config.yaml"} {
			if _, err := os.Stat(filepath.Join(home, p)); errors.Is(err, fs.ErrNotExist) {
				created = append(created, p)
			}
		}
	}
	if reinstall && prev == PluginName {
		prev, prevSet = old.PreviousProvider, old.PreviousSet // a reinstall keeps the first record
	} else if prev == PluginName {
		prev, prevSet = "", false
	}
	if err := os.MkdirAll(filepath.Join(home, "plugins"), 0o700); err != nil {
		return Status{}, fmt.Errorf("create %s: %w", filepath.Join(home, "plugins"), err)
	}
	if err := in.writeDiscoveryIfMissing(); err != nil {
		return Status{}, err
	}
	if err := in.writePlugin(home); err != nil {
		return Status{}, err
	}
	recs[home] = install{PreviousProvider: prev, PreviousSet: prevSet, InstalledAt: in.now(), Version: PluginVersion(),
		Created: created}
	if err := in.saveRecords(recs); err != nil {
		return Status{}, err
	}
	if err := writeConfig(home, edited); err != nil {
		return Status{}, err
	}
	st, err := in.Status(home)
	was := "Hermes used its built-in memory only"
	if prevSet && prev != "" {
		was = "it was " + prev
	}
	st.Message = fmt.Sprintf("Installed in %s and set memory.provider to %s (%s; uninstall puts that back). It takes effect from the next Hermes session.",
		PluginDir(home), PluginName, was)
	if bytes.Equal(edited, cfg) && !reinstall {
		st.Message = fmt.Sprintf("Installed in %s; config.yaml already named %s as memory.provider (uninstall removes it). It takes effect from the next Hermes session.",
			PluginDir(home), PluginName)
		if _, err := RemoveMemoryProvider(cfg); err != nil { // a form HyAtlas does not edit, set by hand
			st.Message = fmt.Sprintf("Installed in %s; config.yaml already named %s as memory.provider, written in a form HyAtlas does not edit, so uninstall will ask you to change it by hand. It takes effect from the next Hermes session.",
				PluginDir(home), PluginName)
		}
	}
	return st, err
}

// ErrNoProfile is an install into a named profile's home that does not
// exist: Hermes creates profiles, and a mistyped name must not become one.
var ErrNoProfile = errors.New("no such Hermes profile")

// checkProfileExists refuses a named profile's home (…/profiles/NAME) that
// does not exist. The default home may be missing: installing there first
// is ready for when Hermes is installed.
func checkProfileExists(home string) error {
	if filepath.Base(filepath.Dir(home)) != "profiles" {
		return nil
	}
	if _, err := os.Stat(home); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w %q (no %s): create it in Hermes first", ErrNoProfile, filepath.Base(home), home)
	}
	return nil
}

// writePlugin writes the embedded files into a fresh directory next to the
// plugin's and swaps it in, so Hermes never loads half a plugin.
func (in *Installer) writePlugin(home string) error {
	dst := PluginDir(home)
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "."+PluginName+".new-")
	if err != nil {
		return fmt.Errorf("install the plugin: %w", err)
	}
	defer os.RemoveAll(tmp)
	err = fs.WalkDir(pluginFiles, "plugin", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, "plugin"), "/")
		if rel == "" {
			return nil
		}
		if strings.Contains(rel, "__pycache__") {
			return fs.SkipDir
		}
		out := filepath.Join(tmp, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := pluginFiles.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("install the plugin: %w", err)
	}
	conn, err := json.MarshalIndent(map[string]string{
		"discovery": filepath.Join(in.ConfigDir, DiscoveryFile),
		"installed": in.now().UTC().Format(time.RFC3339),
	}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "connection.json"), append(conn, '\n'), 0o600); err != nil {
		return fmt.Errorf("install the plugin: %w", err)
	}
	old := dst + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(dst, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("replace %s: %w", dst, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Rename(old, dst)
		return fmt.Errorf("install the plugin: %w", err)
	}
	return os.RemoveAll(old)
}

func (in *Installer) writeDiscoveryIfMissing() error {
	if _, err := os.Stat(filepath.Join(in.ConfigDir, DiscoveryFile)); err == nil {
		return nil
	}
	d := in.Discovery
	d.Written = in.now().UTC()
	return WriteDiscovery(in.ConfigDir, d)
}

func (in *Installer) records() (map[string]install, error) {
	recs := map[string]install{}
	b, err := os.ReadFile(filepath.Join(in.ConfigDir, installsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return recs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the Hermes install records: %w", err)
	}
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("read the Hermes install records (%s): %w", filepath.Join(in.ConfigDir, installsFile), err)
	}
	return recs, nil
}

func (in *Installer) saveRecords(recs map[string]install) error {
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(in.ConfigDir, 0o700); err != nil {
		return fmt.Errorf("save the Hermes install records: %w", err)
	}
	return atomicfile.Write(filepath.Join(in.ConfigDir, installsFile), append(b, '\n'), 0o600)
}

func (in *Installer) now() time.Time {
	if in.Now != nil {
		return in.Now()
	}
	return time.Now()
}

// cleanHome is home as the install records know it: absolute, clean, and
// with symbolic links resolved (in its longest part that exists: a home
// an install makes may not exist yet), so a home named through a link
// (HERMES_HOME a link to ~/.hermes, say) is the same home, and uninstall
// finds what install recorded.
func cleanHome(home string) (string, error) {
	if home == "" || !filepath.IsAbs(home) {
		return "", fmt.Errorf("the Hermes home must be an absolute path, not %q", home)
	}
	clean := filepath.Clean(home)
	var rest []string
	for dir := clean; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if dir == filepath.Dir(dir) {
			return clean, nil
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}

func readConfig(home string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(home, "config.yaml"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(home, "config.yaml"), err)
	}
	return b, nil
}

// isEmptyConfig reports whether a config holds nothing but what the
// install wrote: blank lines and an empty memory section. A comment is
// the user's (notes, settings kept commented out) and keeps the file.
func isEmptyConfig(b []byte) bool {
	for line := range strings.Lines(strings.TrimPrefix(string(b), bom)) {
		if t := strings.TrimSpace(line); t != "" && t != "memory:" && t != "memory: {}" {
			return false
		}
	}
	return true
}

// writeConfig replaces config.yaml atomically, keeping its mode. A
// config.yaml that is a symbolic link (dotfiles kept elsewhere) stays one
// (atomicfile edits the file it points to).
func writeConfig(home string, b []byte) error {
	p := filepath.Join(home, "config.yaml")
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(p); err == nil {
		mode = fi.Mode().Perm()
	}
	return atomicfile.Write(p, b, mode)
}
