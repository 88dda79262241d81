//go:build linux

package engine

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
	"hyatlas/backend/store"
)

// A snapshot (by hand, or the one an import makes first) onto a full disk,
// or into a folder HyAtlas may not write (a disk remounted read-only), says
// so in words naming the folder (503), not "internal error", and leaves no
// file there. A real small tmpfs: root only.
func TestSnapshotOnAFullDiskSaysSo(t *testing.T) {
	for _, tt := range []struct {
		name, size, want string
		readOnly         bool
	}{
		{"full", "64k", "snapshots (%s) is full", false},
		{"read-only", "8m", "may not write the snapshot folder %s", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.Snapshot.Dir = t.TempDir()
			proctest.Tmpfs(t, cfg.Snapshot.Dir, tt.size)
			e, err := Open(context.Background(), cfg, quiet())
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if tt.readOnly {
				proctest.Remount(t, cfg.Snapshot.Dir, true)
			}
			_, err = e.CreateSnapshot(context.Background(), "manual")
			if want := fmt.Sprintf(tt.want, cfg.Snapshot.Dir); memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(memory.ErrorMessage(err), want) {
				t.Fatalf("a snapshot onto a %s folder: %v (code %s), want %q", tt.name, err, memory.ErrorCode(err), want)
			}
			if entries, _ := os.ReadDir(cfg.Snapshot.Dir); len(entries) != 0 {
				t.Errorf("left in the folder: %v", entries)
			}
		})
	}
}

// TestRestore_ASnapshotFolderThatTakesNoUndo: a restore whose snapshot
// folder cannot take the before-restore snapshot (read-only, or full) is
// done all the same and says what waits: the replaced state is kept beside
// the data. Another restore is refused with nothing changed until it is
// kept; a start goes on meanwhile; once the folder takes it, the next
// start keeps it as the before-restore snapshot, and nothing is lost.
func TestRestore_ASnapshotFolderThatTakesNoUndo(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	cfg.Snapshot.Dir = t.TempDir()
	proctest.Tmpfs(t, cfg.Snapshot.Dir, "8m")
	e, err := Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	then := addFact(t, e, "Ada keeps bees")
	snap, err := e.CreateSnapshot(ctx, "manual")
	if err != nil {
		t.Fatal(err)
	}
	later := addFact(t, e, "Ada sold the hives")
	proctest.Remount(t, cfg.Snapshot.Dir, true)

	rep, err := e.RestoreSnapshot(ctx, snap.ID)
	if err != nil || rep.Warning == "" || rep.Before.ID != "" {
		t.Fatalf("restore = %+v, %v; want it done, with a warning and no undo yet", rep, err)
	}
	if _, err := e.Memory.Get(ctx, later); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("the restored data holds a memory written after the snapshot: %v", err)
	}
	if _, err := e.RestoreSnapshot(ctx, snap.ID); memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(memory.ErrorMessage(err), "nothing changed") {
		t.Fatalf("a second restore while the first's undo waits: %v", err)
	}
	if _, err := e.Memory.Get(ctx, then); err != nil {
		t.Fatalf("after the refused restore: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// A start while the folder still takes nothing goes on.
	e, err = Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatalf("a start while the undo waits: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	proctest.Remount(t, cfg.Snapshot.Dir, false)
	e, err = Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	list, err := e.Snapshots()
	if err != nil {
		t.Fatal(err)
	}
	var before string
	for _, s := range list {
		if s.Manifest != nil && s.Manifest.Reason == "before-restore" {
			before = s.ID
		}
	}
	if before == "" {
		t.Fatalf("no before-restore snapshot once the folder takes it: %+v", list)
	}
	if _, err := e.RestoreSnapshot(ctx, before); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Memory.Get(ctx, later); err != nil {
		t.Errorf("the undo lost the memory written after the snapshot: %v", err)
	}
}

// addFact stores a fact by hand and returns its id.
func addFact(t *testing.T, e *Engine, text string) string {
	t.Helper()
	m, err := e.Memory.Remember(context.Background(), memory.RememberInput{Content: text})
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// TestBeforeUpgrade_ASnapshotFolderThatTakesNothing: a start that must
// upgrade the database snapshots it first; when the snapshot folder is
// full or read-only the start is refused in words that name the folder
// and what to do, and the database is left at its schema. A real small
// tmpfs: root only.
func TestBeforeUpgrade_ASnapshotFolderThatTakesNothing(t *testing.T) {
	for _, tt := range []struct {
		name, want string
		readOnly   bool
	}{
		{"full", "is on a full disk: nothing was migrated; free some space there", false},
		{"read-only", "may not be written (read-only, or its permissions): nothing was migrated; make it writable", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			cfg := testConfig(t)
			cfg.Snapshot.Dir = t.TempDir()
			e, err := Open(ctx, cfg, quiet())
			if err != nil {
				t.Fatal(err)
			}
			addFact(t, e, "Ada keeps bees")
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(cfg.Paths.Data, store.FileName)
			older := store.SchemaVersion() - 1
			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(fmt.Sprintf("ALTER TABLE memories DROP COLUMN extract_asked_at; PRAGMA user_version = %d", older)); err != nil {
				t.Fatal(err)
			}
			_ = db.Close()
			proctest.Tmpfs(t, cfg.Snapshot.Dir, "8m")
			if tt.readOnly {
				proctest.Remount(t, cfg.Snapshot.Dir, true)
			} else {
				fill(t, cfg.Snapshot.Dir)
			}
			if e, err = Open(ctx, cfg, quiet()); err == nil {
				_ = e.Close()
				t.Fatal("the start went on without its before-upgrade snapshot")
			}
			if msg := err.Error(); !strings.Contains(msg, "the snapshot folder "+cfg.Snapshot.Dir+" "+tt.want) {
				t.Errorf("start: %v, want it to say the folder %s", err, tt.want)
			}
			if fi, err := store.InspectFile(ctx, path); err != nil || fi.Schema != older {
				t.Errorf("the database after the refused start: schema %d (%v), want %d", fi.Schema, err, older)
			}
		})
	}
}
