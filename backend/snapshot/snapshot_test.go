package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// A keeper over a fake database: the file's bytes stand for the copy.
func testKeeper(t *testing.T) *Keeper {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(filepath.Join(ws, "meepa"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "meepa", "SOUL.md"), []byte("You are Meepa."), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return New(Config{Dir: filepath.Join(dir, "snaps"), WorkspaceDir: ws, AppVersion: "test", Schema: 6,
		CopyDB: func(_ context.Context, dst string) error { return os.WriteFile(dst, []byte("db"), 0o600) },
		Inspect: func(context.Context, string) (DBInfo, error) {
			return DBInfo{Schema: 6, Integrity: "ok", Layers: map[memory.Layer]int{}}, nil
		},
		Now: func() time.Time { now = now.Add(time.Millisecond); return now }})
}

func TestCreateListVerifyPrune(t *testing.T) {
	ctx := context.Background()
	k := testKeeper(t)
	var ids []string
	for _, reason := range []string{ReasonSchedule, ReasonSchedule, ReasonManual, ReasonSchedule} {
		info, err := k.Create(ctx, reason)
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Manifest.Files) != 2 || info.Manifest.Files["workspace/meepa/SOUL.md"] == "" {
			t.Fatalf("manifest files: %v", info.Manifest.Files)
		}
		ids = append(ids, info.ID)
	}
	if _, err := k.Verify(ctx, ids[0]); err != nil {
		t.Fatalf("verify: %v", err)
	}
	list, _ := k.List()
	if len(list) != 4 || list[0].ID != ids[3] {
		t.Fatalf("list: %+v", list)
	}
	gone, err := k.Prune(1)
	if err != nil || len(gone) != 2 {
		t.Fatalf("prune: %v %v", gone, err)
	}
	// Leftovers of a crash are removed; finished snapshots stay.
	_ = os.MkdirAll(filepath.Join(k.Dir(), ".making-123"), 0o700)
	_ = os.WriteFile(filepath.Join(k.Dir(), "."+ids[3]+".zip.999"), []byte("half"), 0o600)
	if err := k.CleanPartial(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(k.Dir())
	if len(entries) != 2 {
		t.Fatalf("after cleaning: %v", entries)
	}
}

// TestPrune_AfterTheClockWasSetBack: the clock ran ahead (a VM resumed
// with a wrong clock, a manual mistake) while scheduled snapshots were
// made, and is then corrected. The snapshots made since are the newest:
// pruning deletes the ones dated in the future first, never the one just
// made.
func TestPrune_AfterTheClockWasSetBack(t *testing.T) {
	ctx := context.Background()
	k := testKeeper(t)
	real := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	clock := real.AddDate(1, 0, 0) // a year ahead
	k.c.Now = func() time.Time { return clock }
	const keep = 3
	for range keep {
		if _, err := k.Create(ctx, ReasonSchedule); err != nil {
			t.Fatal(err)
		}
		if _, err := k.Prune(keep); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(24 * time.Hour)
	}
	clock = real // corrected
	var made []string
	for day := range 3 {
		info, err := k.Create(ctx, ReasonSchedule)
		if err != nil {
			t.Fatal(err)
		}
		gone, err := k.Prune(keep)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range gone {
			if id == info.ID {
				t.Errorf("day %d after the clock was corrected: the scheduled snapshot just made (%s) was deleted at once by the pruning, which kept the older ones made under the wrong clock", day, id)
			}
		}
		clock = clock.Add(24 * time.Hour)
		made = append(made, info.ID)
	}
	list, err := k.List()
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, s := range list {
		kept = append(kept, s.ID)
	}
	slices.Reverse(kept)
	if !slices.Equal(kept, made) {
		t.Errorf("kept %v, want the three made since the clock was corrected %v", kept, made)
	}
}

// TestExtract_AFolderThatTakesNothingIsNotTheSnapshotsFault: when what a
// snapshot holds cannot be written where it unpacks (a full or read-only
// disk; here a file where the folder should be), the error keeps its
// cause and is no EINVALID "refused": the snapshot is sound.
func TestExtract_AFolderThatTakesNothingIsNotTheSnapshotsFault(t *testing.T) {
	ctx := context.Background()
	k := testKeeper(t)
	info, err := k.Create(ctx, ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"the folder is a file", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"the database's name is a folder", func(t *testing.T) string {
			d := t.TempDir()
			if err := os.MkdirAll(filepath.Join(d, dbName, "x"), 0o700); err != nil {
				t.Fatal(err)
			}
			return d
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := k.Extract(ctx, info.ID, tt.dir(t))
			var pe *fs.PathError
			if err == nil || memory.ErrorCode(err) == memory.EINVALID || !errors.As(err, &pe) {
				t.Fatalf("extract: %v (code %s), want the write's own error, not a refused snapshot", err, memory.ErrorCode(err))
			}
		})
	}
	if _, err := k.Verify(ctx, info.ID); err != nil {
		t.Fatalf("the snapshot itself: %v", err)
	}
}

// TestPrune_LeavesASnapshotBeingRead: the schedule prunes while a restore
// (or a verify) reads a scheduled snapshot: the one being read is left
// for the next pruning, never deleted under the restore.
func TestPrune_LeavesASnapshotBeingRead(t *testing.T) {
	for _, tt := range []struct {
		name              string
		read              int // index in made, oldest first
		during, afterward []int
	}{
		{"the oldest, due for pruning", 0, []int{1}, []int{0}},
		{"the newest, kept anyway", 2, []int{1, 0}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			k := testKeeper(t)
			var made []string
			for range 3 {
				info, err := k.Create(ctx, ReasonSchedule)
				if err != nil {
					t.Fatal(err)
				}
				made = append(made, info.ID)
			}
			ids := func(ix []int) []string {
				out := []string{}
				for _, i := range ix {
					out = append(out, made[i])
				}
				return out
			}
			inspect := k.c.Inspect
			var gone []string
			var perr error
			k.c.Inspect = func(ctx context.Context, p string) (DBInfo, error) {
				gone, perr = k.Prune(1) // while Extract reads the snapshot
				return inspect(ctx, p)
			}
			if _, err := k.Extract(ctx, made[tt.read], t.TempDir()); err != nil {
				t.Fatalf("extract: %v", err)
			}
			if perr != nil || !slices.Equal(gone, ids(tt.during)) {
				t.Fatalf("pruned while it was read: %v %v, want %v", gone, perr, ids(tt.during))
			}
			k.c.Inspect = inspect
			gone, err := k.Prune(1)
			if err != nil || !slices.Equal(gone, ids(tt.afterward)) {
				t.Fatalf("pruned afterward: %v %v, want %v", gone, err, ids(tt.afterward))
			}
		})
	}
}

// TestKeeper_WhatIsASnapshotInTheFolder: list, verify and delete agree on
// what a snapshot is. A snapshot moved to another disk and linked back is
// one (listed with its size, verified; deleting it removes the link); a
// folder named like one, or a link to nothing, is none: not listed, and
// verify and delete answer "no snapshot" and leave it as it is.
func TestKeeper_WhatIsASnapshotInTheFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a privilege on Windows")
	}
	ctx := context.Background()
	k := testKeeper(t)
	real, err := k.Create(ctx, ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "moved.zip")
	if err := os.Rename(k.path(real.ID), elsewhere); err != nil {
		t.Fatal(err)
	}
	const linked, folder, dangling = "hyatlas-20260101T000000.000Z", "hyatlas-20260102T000000.000Z", "hyatlas-20260103T000000.000Z"
	for _, err := range []error{os.Symlink(elsewhere, k.path(linked)), os.Mkdir(k.path(folder), 0o700),
		os.Symlink(filepath.Join(t.TempDir(), "gone.zip"), k.path(dangling))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	list, err := k.List()
	if err != nil || len(list) != 1 || list[0].ID != linked || list[0].Manifest == nil || list[0].Size != real.Size {
		t.Fatalf("list: %+v %v, want only %s with its manifest and size %d", list, err, linked, real.Size)
	}
	for _, tt := range []struct {
		id    string
		found bool
	}{{folder, false}, {dangling, false}, {linked, true}} {
		_, verr := k.Verify(ctx, tt.id)
		derr := k.Delete(tt.id)
		if tt.found {
			if verr != nil || derr != nil {
				t.Errorf("%s: verify %v, delete %v", tt.id, verr, derr)
			}
			if _, err := os.Stat(elsewhere); err != nil {
				t.Errorf("deleting the link removed the file it points at: %v", err)
			}
			continue
		}
		if memory.ErrorCode(verr) != memory.ENOTFOUND || memory.ErrorCode(derr) != memory.ENOTFOUND {
			t.Errorf("%s: verify %v, delete %v, want no snapshot", tt.id, verr, derr)
		}
		if _, err := os.Lstat(k.path(tt.id)); err != nil {
			t.Errorf("%s was removed: %v", tt.id, err)
		}
	}
}
