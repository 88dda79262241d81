package hermes

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newInstaller(t *testing.T) *Installer {
	t.Helper()
	cfg := t.TempDir()
	return &Installer{ConfigDir: cfg, Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) },
		Discovery: Discovery{Address: "http://127.0.0.1:19528", TokenFile: filepath.Join(cfg, "api-token"), Auth: true}}
}

const userConfig = `# Hermes settings, with comments that must survive
model:
  default: some-model   # chosen by hand
memory:
  memory_enabled: true
  provider: honcho  # was using honcho
display:
  memory_notifications: verbose
`

func TestInstallUninstallRestoresThePreviousProvider(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(userConfig), 0o640); err != nil {
		t.Fatal(err)
	}
	st, err := in.Install(home)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Installed || !st.Active || st.PreviousProvider != "honcho" || !st.PreviousSet || st.Outdated {
		t.Fatalf("after install: %+v", st)
	}
	cfg, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	want := strings.Replace(userConfig, "provider: honcho  # was using honcho", "provider: hyatlas  # was using honcho", 1)
	if string(cfg) != want {
		t.Errorf("config.yaml after install:\n%s\nwant\n%s", cfg, want)
	}
	if fi, _ := os.Stat(filepath.Join(home, "config.yaml")); fi.Mode().Perm() != 0o640 {
		t.Errorf("config.yaml mode %v, want 0640 kept", fi.Mode().Perm())
	}
	// The plugin is complete, and Hermes would detect it: the provider
	// class within the first 8 KB of __init__.py.
	for _, f := range []string{"plugin.yaml", "__init__.py", "client.py", "cli.py", "config_schema.py", "README.md", "connection.json"} {
		if _, err := os.Stat(filepath.Join(PluginDir(home), f)); err != nil {
			t.Errorf("plugin lacks %s: %v", f, err)
		}
	}
	init, _ := os.ReadFile(filepath.Join(PluginDir(home), "__init__.py"))
	if head := init[:min(len(init), 8192)]; !bytes.Contains(head, []byte("(MemoryProvider)")) {
		t.Error("__init__.py has no MemoryProvider subclass in its first 8 KB")
	}
	var conn map[string]string
	b, _ := os.ReadFile(filepath.Join(PluginDir(home), "connection.json"))
	if err := json.Unmarshal(b, &conn); err != nil || conn["discovery"] != filepath.Join(in.ConfigDir, DiscoveryFile) {
		t.Errorf("connection.json = %s (%v)", b, err)
	}
	d, err := ReadDiscovery(in.ConfigDir)
	if err != nil || d.Address != "http://127.0.0.1:19528" || !strings.HasSuffix(d.TokenFile, "api-token") {
		t.Errorf("discovery = %+v, %v", d, err)
	}
	if fi, _ := os.Stat(filepath.Join(in.ConfigDir, DiscoveryFile)); fi.Mode().Perm() != 0o600 {
		t.Errorf("discovery file mode %v", fi.Mode().Perm())
	}

	// A second install (an update) keeps the first record.
	if st, err = in.Install(home); err != nil || st.PreviousProvider != "honcho" {
		t.Fatalf("reinstall: %+v %v", st, err)
	}
	st, err = in.Uninstall(home)
	if err != nil {
		t.Fatal(err)
	}
	if st.Installed || st.Active || st.Provider != "honcho" {
		t.Errorf("after uninstall: %+v", st)
	}
	cfg, _ = os.ReadFile(filepath.Join(home, "config.yaml"))
	if string(cfg) != userConfig {
		t.Errorf("config.yaml after uninstall:\n%s\nwant it as it was:\n%s", cfg, userConfig)
	}
}

func TestInstallOnACleanHomeAndUninstallLeavesNoTrace(t *testing.T) {
	in := newInstaller(t)
	home := filepath.Join(t.TempDir(), "fresh-hermes")
	st, err := in.Install(home)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Active || st.PreviousSet {
		t.Fatalf("%+v", st)
	}
	if _, err := in.Install(home); err != nil { // a reinstall remembers what the first made
		t.Fatal(err)
	}
	if _, err := in.Uninstall(home); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(home)
		t.Errorf("the home the install made is still there, with %v (%v)", entries, err)
	}
	// A home that existed, empty: it stays, empty.
	home = t.TempDir()
	if _, err := in.Install(home); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Uninstall(home); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(home); err != nil || len(entries) != 0 {
		t.Errorf("the home holds %v after install and uninstall (%v), want nothing", entries, err)
	}
}

// What the install made is kept when something else now uses it.
func TestUninstallKeepsWhatTheInstallMadeWhenItIsUsedSince(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	if _, err := in.Install(home); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(home, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = append([]byte("display:\n  memory_notifications: verbose\n"), cfg...)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(home, "plugins", "other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Uninstall(home); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(home, "config.yaml"))
	if err != nil || !strings.Contains(string(got), "memory_notifications: verbose") || strings.Contains(string(got), PluginName) {
		t.Errorf("config.yaml = %q, %v", got, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another plugin went: %v", err)
	}
}

func TestUninstallLeavesAProviderTheUserChangedSince(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	if _, err := in.Install(home); err != nil {
		t.Fatal(err)
	}
	// The user switched to another provider by hand after installing.
	p := filepath.Join(home, "config.yaml")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.Replace(b, []byte("provider: hyatlas"), []byte("provider: mem0"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := in.Uninstall(home)
	if err != nil {
		t.Fatal(err)
	}
	if st.Provider != "mem0" || !strings.Contains(st.Message, "left as it is") {
		t.Errorf("%+v", st)
	}
}

func TestInstallChangesNothingWhenConfigCannotBeEdited(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	bad := "memory: {provider: honcho}\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Install(home); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Fatalf("err = %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	if string(b) != bad {
		t.Errorf("config.yaml changed to %q", b)
	}
	if _, err := os.Stat(PluginDir(home)); !os.IsNotExist(err) {
		t.Errorf("plugin written although the install failed: %v", err)
	}
	if _, err := in.Install("relative/home"); err == nil {
		t.Error("a relative Hermes home was accepted")
	}
}

func TestResolveHome(t *testing.T) {
	root := t.TempDir()
	cases := []struct {
		name, hermesHome, home, profile, want string
		fails                                 bool
	}{
		{"HERMES_HOME", root, "/home/u", "", root, false},
		{"HERMES_HOME with a profile", root, "/home/u", "work", filepath.Join(root, "profiles", "work"), false},
		{"profile of a profile's home", filepath.Join(root, "profiles", "a"), "", "b", filepath.Join(root, "profiles", "b"), false},
		{"OS default", "", "/home/u", "", "/home/u/.hermes", false},
		{"default profile is the root", "", "/home/u", "default", "/home/u/.hermes", false},
		{"sticky active profile", "", "", "", "", false}, // HOME set below
		{"relative HERMES_HOME", "rel/dir", "/home/u", "", "", true},
		{"bad profile name", "", "/home/u", "../x", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"HERMES_HOME": c.hermesHome, "HOME": c.home}
			if c.name == "sticky active profile" {
				// Point HOME so that ~/.hermes is the sticky root.
				home := t.TempDir()
				if err := os.MkdirAll(filepath.Join(home, ".hermes"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(home, ".hermes", "active_profile"), []byte("coder\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				env["HOME"] = home
				c.want = filepath.Join(home, ".hermes", "profiles", "coder")
			}
			got, err := ResolveHome(func(k string) string { return env[k] }, c.profile)
			if c.fails {
				if err == nil {
					t.Errorf("got %q, want an error", got)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// TestInstallRefusesAProfileHermesDoesNotHave: a mistyped profile name must
// not become a new profile folder; an existing profile is installed into.
func TestInstallRefusesAProfileHermesDoesNotHave(t *testing.T) {
	in := newInstaller(t)
	root := t.TempDir()
	typo := filepath.Join(root, "profiles", "cdoer")
	if _, err := in.Install(typo); !errors.Is(err, ErrNoProfile) || !strings.Contains(err.Error(), `"cdoer"`) {
		t.Fatalf("install into a missing profile: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "profiles")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused install created %s: %v", filepath.Join(root, "profiles"), err)
	}
	coder := filepath.Join(root, "profiles", "coder")
	if err := os.MkdirAll(coder, 0o700); err != nil {
		t.Fatal(err)
	}
	if st, err := in.Install(coder); err != nil || !st.Active {
		t.Fatalf("install into an existing profile: %+v %v", st, err)
	}
}

// TestUninstallWhereNothingIsInstalled says so and changes nothing.
func TestUninstallWhereNothingIsInstalled(t *testing.T) {
	in := newInstaller(t)
	home := filepath.Join(t.TempDir(), "none")
	st, err := in.Uninstall(home)
	if err != nil || !strings.Contains(st.Message, "not installed") || strings.Contains(st.Message, "Removed") {
		t.Fatalf("%+v %v", st, err)
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("uninstall created %s", home)
	}
}

// A config.yaml that already names hyatlas, however it writes it (the
// one-line form the install cannot edit, set by hand as its message
// says), is left as it is and the plugin is written; with the plugin
// missing, Hermes does not count as using HyAtlas.
func TestInstallAfterTheProviderWasSetByHand(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("memory: {provider: honcho}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Install(home); err == nil || !strings.Contains(err.Error(), "run the install again") {
		t.Fatalf("a one-line memory block: %v", err)
	}
	byHand := "memory: {provider: hyatlas}\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(byHand), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := in.Status(home); err != nil || st.Active {
		t.Errorf("provider set by hand, no plugin yet: active %v (%v)", st.Active, err)
	}
	st, err := in.Install(home)
	if err != nil {
		t.Fatalf("install after the provider was set by hand: %v", err)
	}
	if !st.Installed || !st.Active || !strings.Contains(st.Message, "already named hyatlas") || !strings.Contains(st.Message, "does not edit") {
		t.Errorf("after the install: %+v", st)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "config.yaml")); string(b) != byHand {
		t.Errorf("config.yaml changed to %q", b)
	}
}

// A home named through a symbolic link is the same home: installed through
// the link and removed by its real path (or the other way round), the
// previous provider comes back. It used to be looked up under the other
// name, and uninstall removed memory.provider instead.
func TestUninstallThroughAnotherNameOfTheHome(t *testing.T) {
	for _, order := range []string{"link then real", "real then link"} {
		t.Run(order, func(t *testing.T) {
			in := newInstaller(t)
			real := t.TempDir()
			link := filepath.Join(t.TempDir(), "hermes-link")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(real, "config.yaml"), []byte(userConfig), 0o640); err != nil {
				t.Fatal(err)
			}
			first, second := link, real
			if order == "real then link" {
				first, second = real, link
			}
			if _, err := in.Install(first); err != nil {
				t.Fatal(err)
			}
			if _, err := in.Uninstall(second); err != nil {
				t.Fatal(err)
			}
			if cfg, _ := os.ReadFile(filepath.Join(real, "config.yaml")); string(cfg) != userConfig {
				t.Errorf("config.yaml after install through %s and uninstall through %s:\n%s\nwant\n%s", first, second, cfg, userConfig)
			}
		})
	}
}
