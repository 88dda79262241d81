package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestOpen_MakesTheDataPrivate: the data folder and the database files are
// the owner's alone, also when the folder was made before with wider
// rights (by hand, or by an older version) and the files with SQLite's
// default 0644.
func TestOpen_MakesTheDataPrivate(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "hyatlas")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		s, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		insert(t, s, row("m"+string(rune('a'+round)), "a memory other users must not read"))
		check := func(path string, want os.FileMode) {
			t.Helper()
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != want {
				t.Errorf("round %d: %s has mode %o, want %o", round, filepath.Base(path), got, want)
			}
		}
		check(dir, 0o700)
		for _, f := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
			check(filepath.Join(dir, f), 0o600)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		// As an older version left them: open to everyone on the machine.
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, FileName), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
