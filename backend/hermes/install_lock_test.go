package hermes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestInstallsOfManyProcessesKeepEveryRecord: installs run by separate
// processes (each with an Installer of its own, as a CLI run and the app
// have) into different Hermes homes at once keep every home's record, so
// each uninstall puts that home's own provider back.
func TestInstallsOfManyProcessesKeepEveryRecord(t *testing.T) {
	cfgDir := t.TempDir()
	const n = 8
	homes := make([]string, n)
	for i := range homes {
		homes[i] = t.TempDir()
		if err := os.WriteFile(filepath.Join(homes[i], "config.yaml"), []byte(fmt.Sprintf("memory:\n  provider: p%d\n", i)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	process := func() *Installer { // an Installer of its own, like another process's
		in := newInstaller(t)
		in.ConfigDir = cfgDir
		return in
	}
	var wg sync.WaitGroup
	for _, home := range homes {
		wg.Go(func() {
			if _, err := process().Install(home); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, home := range homes {
		st, err := process().Uninstall(home)
		if err != nil {
			t.Fatal(err)
		}
		if cfg, _ := os.ReadFile(filepath.Join(home, "config.yaml")); string(cfg) != fmt.Sprintf("memory:\n  provider: p%d\n", i) {
			t.Errorf("home %d after the uninstall: %q (%s)", i, cfg, st.Message)
		}
	}
}

// TestAnInstallWaitsForAnotherProcesss: while another process holds the
// records, an install waits for it, and past lockWait says so with nothing
// changed; once it is free the install goes on.
func TestAnInstallWaitsForAnotherProcesss(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	other := &Installer{ConfigDir: in.ConfigDir}
	unlock, err := other.lockRecords()
	if err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { lockWait = d }(lockWait)
	lockWait = 200 * time.Millisecond
	if _, err := in.Install(home); !errors.Is(err, ErrBusy) {
		t.Fatalf("an install while another process holds the records: %v", err)
	}
	if _, err := os.Stat(PluginDir(home)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the refused install wrote the plugin: %v", err)
	}
	unlock()
	if st, err := in.Install(home); err != nil || !st.Installed {
		t.Fatalf("once free: %+v, %v", st, err)
	}
}
