package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"hyatlas/backend/snapshot"
)

// TestSwapWorkspace: each state a restore can leave the workspace folders
// in ends with the snapshot's folder live, the replaced one kept for the
// before-restore snapshot, and no acknowledged file lost.
func TestSwapWorkspace(t *testing.T) {
	type tree map[string]string // path under the data folder -> content; a path ending in / is a folder
	const (
		live = "workspace/"
		nu   = ".restore/new/workspace/"
		old  = ".restore/workspace.old/"
	)
	for _, tc := range []struct {
		name       string
		before     tree
		live, kept tree // the live folder and workspace.old afterwards
	}{{
		name:   "a restore: the live folder is replaced and kept",
		before: tree{live + "hermes/SOUL.md": "now", nu + "hermes/SOUL.md": "then"},
		live:   tree{"hermes/SOUL.md": "then"},
		kept:   tree{"hermes/SOUL.md": "now"},
	}, {
		name:   "a crash between the two renames",
		before: tree{old + "hermes/SOUL.md": "now", nu + "hermes/SOUL.md": "then"},
		live:   tree{"hermes/SOUL.md": "then"},
		kept:   tree{"hermes/SOUL.md": "now"},
	}, {
		name:   "already done: nothing moves",
		before: tree{live + "hermes/SOUL.md": "then", old + "hermes/SOUL.md": "now"},
		live:   tree{"hermes/SOUL.md": "then"},
		kept:   tree{"hermes/SOUL.md": "now"},
	}, {
		name: "a write between the renames (left by an older version) is kept over the snapshot's",
		before: tree{old + "hermes/SOUL.md": "now", nu + "hermes/SOUL.md": "then", nu + "hermes/USER.md": "user then",
			live + "hermes/SOUL.md": "written during the restore", live + "coder/MEMORY.md": "new agent"},
		live: tree{"hermes/SOUL.md": "written during the restore", "hermes/USER.md": "user then", "coder/MEMORY.md": "new agent"},
		kept: tree{"hermes/SOUL.md": "now"},
	}, {
		name:   "a snapshot taken before any workspace file",
		before: tree{live + "hermes/SOUL.md": "now", nu: ""},
		live:   tree{},
		kept:   tree{"hermes/SOUL.md": "now"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			for p, content := range tc.before {
				full := filepath.Join(data, p)
				dir := filepath.Dir(full)
				if strings.HasSuffix(p, "/") {
					dir = full
				}
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if dir != full {
					if err := os.WriteFile(full, []byte(content), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := swapWorkspace(filepath.Join(data, "workspace"), filepath.Join(data, ".restore")); err != nil {
				t.Fatal(err)
			}
			if got := readTree(t, filepath.Join(data, live)); !reflect.DeepEqual(got, map[string]string(tc.live)) {
				t.Errorf("live workspace = %v, want %v", got, tc.live)
			}
			if got := readTree(t, filepath.Join(data, old)); !reflect.DeepEqual(got, map[string]string(tc.kept)) {
				t.Errorf("kept for the before-restore snapshot = %v, want %v", got, tc.kept)
			}
			if exists(filepath.Join(data, nu)) {
				t.Error("the snapshot's folder is still waiting")
			}
		})
	}
}

func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// TestSnapshot_WorkspaceWritesDuringRestores: agents write workspace files
// while restores run. Every restore succeeds (a write used to recreate the
// live folder between the restore's two renames, failing the restore after
// its database swap and every later start), every write is acknowledged,
// and HyAtlas starts again afterwards with the last restore's files plus
// what was written after it.
func TestSnapshot_WorkspaceWritesDuringRestores(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	eng, err := Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Memory.WriteWorkspace(ctx, "hermes", "SOUL.md", "old soul", ""); err != nil {
		t.Fatal(err)
	}
	info, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				if _, err := eng.Memory.WriteWorkspace(ctx, fmt.Sprintf("agent%d", w), "MEMORY.md", fmt.Sprintf("note %d", i), ""); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range 25 {
		if _, err := eng.RestoreSnapshot(ctx, info.ID); err != nil {
			stop.Store(true)
			wg.Wait()
			_ = eng.Close()
			t.Fatalf("restore %d while workspace files are written: %v", i+1, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a workspace write during a restore: %v", err)
	}
	if _, err := eng.Memory.WriteWorkspace(ctx, "agent0", "MEMORY.md", "after the restores", ""); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	eng2, err := Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatalf("HyAtlas does not start after restores with workspace writes: %v", err)
	}
	defer eng2.Close()
	for agent, want := range map[string]string{"hermes": "old soul", "agent0": "after the restores"} {
		file := "MEMORY.md"
		if agent == "hermes" {
			file = "SOUL.md"
		}
		d, err := eng2.Memory.ReadWorkspace(ctx, agent, file)
		if err != nil || d.Content != want {
			t.Errorf("%s/%s = %q (%v), want %q", agent, file, d.Content, err, want)
		}
	}
}

// TestRestore_FinishesAnUnfinishedOneFirst: a restore whose database went
// in but whose before-restore snapshot was not made yet (a failure after
// the swap) is finished by the next restore, never thrown away: its work
// folder holds the only copy of what it replaced.
func TestRestore_FinishesAnUnfinishedOneFirst(t *testing.T) {
	ctx := context.Background()
	eng := openSnapEngine(t)
	info, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.RestoreSnapshot(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	// The state a failure after the swap leaves: the marker (with the token
	// the database holds), the replaced database and workspace.
	token, err := eng.store.Counter(ctx, restoreTokenKey)
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(eng.Config.Paths.Data, restoreDir)
	if err := os.MkdirAll(filepath.Join(work, "workspace.old", "hermes"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "workspace.old", "hermes", "SOUL.md"), []byte("the replaced soul"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := eng.store.BackupTo(ctx, filepath.Join(work, "before.db")); err != nil {
		t.Fatal(err)
	}
	if err := writeMarker(filepath.Join(work, "marker.json"), restoreMarker{Token: token, Snapshot: info.ID}); err != nil {
		t.Fatal(err)
	}
	before, _ := eng.snap.keeper.List()
	if _, err := eng.RestoreSnapshot(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	after, _ := eng.snap.keeper.List()
	kept := 0
	for _, s := range after {
		if s.Manifest != nil && s.Manifest.Reason == snapshot.ReasonBeforeRestore && s.Manifest.Files["workspace/hermes/SOUL.md"] != "" {
			kept++
		}
	}
	if len(after) != len(before)+2 || kept == 0 {
		t.Errorf("snapshots %d -> %d, %d before-restore ones with the replaced workspace; want the unfinished restore's kept too",
			len(before), len(after), kept)
	}
}
