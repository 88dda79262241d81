//go:build linux

package engine

import (
	"context"
	"os"
	"strings"
	"testing"

	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
)

// A snapshot (by hand, or the one an import makes first) onto a full disk
// says so in words naming the folder (503), not "internal error", and
// leaves no file there. A real small tmpfs: root only.
func TestSnapshotOnAFullDiskSaysSo(t *testing.T) {
	cfg := testConfig(t)
	cfg.Snapshot.Dir = t.TempDir()
	proctest.Tmpfs(t, cfg.Snapshot.Dir, "64k")
	e, err := Open(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.CreateSnapshot(context.Background(), "manual")
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(memory.ErrorMessage(err), "snapshots ("+cfg.Snapshot.Dir+") is full") {
		t.Fatalf("a snapshot onto a full disk: %v (code %s)", err, memory.ErrorCode(err))
	}
	if entries, _ := os.ReadDir(cfg.Snapshot.Dir); len(entries) != 0 {
		t.Errorf("left on the full disk: %v", entries)
	}
}
