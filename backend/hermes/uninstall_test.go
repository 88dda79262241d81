package hermes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Disconnecting deletes the plugin's own files in the Hermes home: its
// outbox (the text of turns not yet sent), its log and stamp, its
// settings, and the logs older plugins wrote into Hermes's logs folder;
// the message says so. Hermes's own files stay.
func TestUninstallDeletesThePluginsFilesAndSaysSo(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	if _, err := in.Install(home); err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("hyatlas/outbox/4242-abcdef.jsonl", `{"n":1,"m":"POST","p":"/api/v1/add","b":{"text":"USER: my PIN is 4921"}}`+"\n"+
		`{"n":2,"m":"POST","p":"/api/v1/add","b":{"text":"USER: the boat is Marlin"}}`+"\n"+`{"done":1}`+"\n")
	write("hyatlas/outbox/4343-fedcba.jsonl", `{"n":1,"m":"POST","p":"/api/v1/session/end","b":{}}`+"\n")
	write("hyatlas/hyatlas.log", "HyAtlas is serving\n")
	write("hyatlas/hyatlas.start", "4242")
	write("hyatlas.json", `{"user_id": "ana"}`)
	write("logs/hyatlas.log", "an older plugin's auto start log\n")
	write("logs/hyatlas.start", "4242")
	write("logs/agent.log", "Hermes's own log\n")
	st, err := in.Uninstall(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"hyatlas", "hyatlas.json", "logs/hyatlas.log", "logs/hyatlas.start", "plugins/hyatlas"} {
		if _, err := os.Stat(filepath.Join(home, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after uninstall (%v)", gone, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(home, "logs", "agent.log")); err != nil || string(b) != "Hermes's own log\n" {
		t.Errorf("Hermes's own log: %q, %v", b, err)
	}
	for _, want := range []string{filepath.Join(home, "hyatlas"), "2 writes not yet sent to HyAtlas", "hyatlas.json", "auto start log"} {
		if !strings.Contains(st.Message, want) {
			t.Errorf("the message does not say %q: %s", want, st.Message)
		}
	}

	// What an older uninstall left behind goes with the next one, though
	// nothing is installed.
	write("hyatlas/outbox/4444-aaaaaa.jsonl", `{"n":1,"m":"POST","p":"/api/v1/add","b":{"text":"USER: left behind"}}`+"\n")
	st, err = in.Uninstall(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "hyatlas")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(st.Message, "1 write not yet sent") {
		t.Errorf("leftovers: %v; %s", err, st.Message)
	}
	if st, err = in.Uninstall(home); err != nil || !strings.HasSuffix(st.Message, "nothing to remove.") {
		t.Errorf("with nothing left: %s, %v", st.Message, err)
	}
}

// A profile named "all" is refused at install, with a clear error, however
// its home is named, and nothing is written: HyAtlas reserves "all" (graph
// views read it as every agent), so it would be no agent's id.
func TestInstallRefusesTheProfileNamedAll(t *testing.T) {
	in := newInstaller(t)
	root := t.TempDir()
	home := filepath.Join(root, "profiles", "all")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "memory:\n  provider: honcho\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{home, home + string(filepath.Separator)} {
		_, err := in.Install(h)
		if !errors.Is(err, ErrReservedProfile) || !strings.Contains(err.Error(), `"all"`) || !strings.Contains(err.Error(), "reserves") {
			t.Fatalf("install into %s: %v", h, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(home, "config.yaml")); string(b) != cfg {
		t.Errorf("config.yaml after a refused install: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused install wrote %s (%v)", filepath.Join(home, "plugins"), err)
	}
	// Only that exact name: "allison" and a home merely named all (not a
	// profile) are fine.
	for _, h := range []string{filepath.Join(root, "profiles", "allison"), filepath.Join(root, "all")} {
		if err := os.MkdirAll(h, 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Install(h); err != nil {
			t.Errorf("install into %s: %v", h, err)
		}
	}
}
