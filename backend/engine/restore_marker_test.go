package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecoverRestore_AMarkerThatCannotBeReadKeepsTheWork: a restore
// marker that cannot be read (not one cut short: an I/O error, here a
// folder in its place) is no reason to take the restore as never begun:
// its work folder may hold the only copy of what it replaced, so the start
// stops and says so, and nothing of it is removed.
func TestRecoverRestore_AMarkerThatCannotBeReadKeepsTheWork(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	e, err := Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(cfg.Paths.Data, restoreDir)
	if err := os.MkdirAll(filepath.Join(work, "marker.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	replaced := filepath.Join(work, "before.db")
	if err := os.WriteFile(replaced, []byte("the only copy"), 0o600); err != nil {
		t.Fatal(err)
	}
	if e, err := Open(ctx, cfg, quiet()); err == nil || !strings.Contains(err.Error(), "restore marker") {
		if e != nil {
			_ = e.Close()
		}
		t.Fatalf("a start with an unreadable marker: %v", err)
	}
	if _, err := os.Stat(replaced); err != nil {
		t.Errorf("the work folder's copy is gone: %v", err)
	}
}
