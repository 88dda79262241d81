//go:build linux

package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
)

// TestRestore_ADataFolderThatTakesNothingSaysSo: a restore onto a data
// folder that is full, or that may not be written (a disk that was
// read-only at the start), is refused with words about the
// disk (503), never as a bad snapshot (422), and nothing changes: the
// memory written after the snapshot is still there, and the snapshot still
// verifies. A real small tmpfs: root only.
func TestRestore_ADataFolderThatTakesNothingSaysSo(t *testing.T) {
	for _, tt := range []struct {
		name, want string
		break_     func(t *testing.T, root string, e **Engine, open func() *Engine)
	}{
		{"full", "is full", func(t *testing.T, root string, _ **Engine, _ func() *Engine) { fill(t, root) }},
		{"read-only at the start", "may not write its data folder", func(t *testing.T, root string, e **Engine, open func() *Engine) {
			if err := (*e).Close(); err != nil {
				t.Fatal(err)
			}
			proctest.Remount(t, root, true)
			*e = open()
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			cfg := testConfig(t)
			root := t.TempDir()
			proctest.Tmpfs(t, root, "16m")
			cfg.Paths.Data = filepath.Join(root, "data")
			cfg.Snapshot.Dir = filepath.Join(t.TempDir(), "snapshots")
			open := func() *Engine {
				e, err := Open(ctx, cfg, quiet())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = e.Close() })
				return e
			}
			e := open()
			snap, err := e.CreateSnapshot(ctx, "manual")
			if err != nil {
				t.Fatal(err)
			}
			later := addFact(t, e, "Ada sold the hives")
			tt.break_(t, root, &e, open)

			_, err = e.RestoreSnapshot(ctx, snap.ID)
			if msg := memory.ErrorMessage(err); memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(msg, tt.want) || !strings.Contains(msg, "nothing was restored") {
				t.Fatalf("restore: %v (code %s), want a 503 saying %q and that nothing was restored", err, memory.ErrorCode(err), tt.want)
			}
			if _, err := e.Memory.Get(ctx, later); err != nil {
				t.Errorf("the memory written after the snapshot: %v", err)
			}
			if _, err := e.VerifySnapshot(ctx, snap.ID); err != nil {
				t.Errorf("the snapshot no longer verifies: %v", err)
			}
		})
	}
}

// fill writes a file into dir until its disk is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<16)
	for {
		if _, err := f.Write(buf); err != nil {
			return
		}
	}
}
