package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hyatlas/backend/snapshot"
)

// TestSnapshot_OtherFilesInTheWorkspaceFolder: what else a person keeps
// in the workspace folder (an editor's backup, notes, a .git folder, an
// editor's copy of a workspace file) never makes a snapshot
// unrestorable, and a restore leaves it as it is; a workspace file that is
// a symbolic link is kept with what it points at, and the restore puts
// that back.
func TestSnapshot_OtherFilesInTheWorkspaceFolder(t *testing.T) {
	ctx := context.Background()
	eng := openSnapEngine(t)
	ws := filepath.Join(eng.Config.Paths.Data, "workspace")
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(ws, rel))
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return string(b)
	}
	if _, err := eng.Memory.WriteWorkspace(ctx, "hermes", "SOUL.md", "then\n", ""); err != nil {
		t.Fatal(err)
	}
	others := map[string]string{"hermes/SOUL.md~": "backup", "notes.txt": "notes", ".git/HEAD": "ref: main",
		"hermes/SOUL.md.orig": "an editor's copy", "hermes/sub/x.md": "deeper", ".hidden/USER.md": "a dot folder"}
	for rel, content := range others {
		write(rel, content)
	}
	outside := filepath.Join(t.TempDir(), "user.md")
	if err := os.WriteFile(outside, []byte("linked then\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "claude", "USER.md")); err != nil {
		t.Fatal(err)
	}

	snap, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.VerifySnapshot(ctx, snap.ID); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if _, err := eng.Memory.WriteWorkspace(ctx, "hermes", "SOUL.md", "now\n", ""); err != nil {
		t.Fatal(err)
	}
	write("notes.txt", "notes, later")
	others["notes.txt"] = "notes, later"

	rep, err := eng.RestoreSnapshot(ctx, snap.ID)
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	if got := read("hermes/SOUL.md"); got != "then\n" {
		t.Errorf("SOUL.md = %q after the restore", got)
	}
	if got := read("claude/USER.md"); got != "linked then\n" {
		t.Errorf("the linked USER.md = %q after the restore", got)
	}
	for rel, content := range others {
		if got := read(rel); got != content {
			t.Errorf("%s = %q after the restore, want it left as it was (%q)", rel, got, content)
		}
	}
	if _, err := eng.VerifySnapshot(ctx, rep.Before.ID); err != nil {
		t.Fatalf("the before-restore snapshot: %v", err)
	}
	// Undo: the workspace file comes back; the other files stay.
	if _, err := eng.RestoreSnapshot(ctx, rep.Before.ID); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if got := read("hermes/SOUL.md"); got != "now\n" {
		t.Errorf("SOUL.md = %q after the undo", got)
	}
	if got := read("notes.txt"); got != "notes, later" {
		t.Errorf("notes.txt = %q after the undo", got)
	}
}

// TestKeepOthers_ANameTakenSinceIsKeptBeside: a file of the workspace
// folder that the live folder has again by the time it is moved back (an
// editor made it anew) is kept beside it, not dropped with the work folder.
func TestKeepOthers_ANameTakenSinceIsKeptBeside(t *testing.T) {
	old, live := t.TempDir(), t.TempDir()
	for dir, content := range map[string]string{old: "old notes", live: "new notes"} {
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if left := keepOthers(old, live, quiet().Logger); left {
		t.Error("keepOthers says it left a file")
	}
	for name, want := range map[string]string{"notes.txt": "new notes", "notes.txt.before-restore": "old notes"} {
		if b, err := os.ReadFile(filepath.Join(live, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", name, b, err, want)
		}
	}
}

// TestKeepOthers_AFileThatCannotGoBackIsKeptAside: a file that cannot be
// moved back (here both its name and NAME.before-restore are taken) is
// left and said to be; keepLeftOthers then keeps the folder holding it
// beside the workspace, out of the work folder that is removed.
func TestKeepOthers_AFileThatCannotGoBackIsKeptAside(t *testing.T) {
	data := t.TempDir()
	old, live := filepath.Join(data, ".restore", "workspace.old"), filepath.Join(data, "workspace")
	for _, d := range []string{old, live} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{filepath.Join(old, "notes.txt"): "old notes", filepath.Join(live, "notes.txt"): "new notes",
		filepath.Join(live, "notes.txt.before-restore"): "an earlier restore's"}
	for p, content := range files {
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if left := keepOthers(old, live, quiet().Logger); !left {
		t.Fatal("keepOthers does not say it left a file")
	}
	keepLeftOthers(old, data, time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC), quiet().Logger)
	b, err := os.ReadFile(filepath.Join(data, "workspace.kept-20261202T150000.000Z", "notes.txt"))
	if err != nil || string(b) != "old notes" {
		t.Errorf("the file left is not kept aside: %q, %v", b, err)
	}
}
