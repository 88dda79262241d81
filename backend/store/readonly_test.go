//go:build linux

package store

// A data folder on a disk remounted read-only, for real: a tmpfs (mounting
// one needs root, which CI has; elsewhere these tests are skipped).

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
)

// tmpfsDir mounts a small tmpfs at a fresh temp dir (root only).
func tmpfsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	proctest.Tmpfs(t, dir, "16M")
	return dir
}

// TestReadOnlyFolder_ShowsWhatItHoldsAndStoresNothing: a data folder whose
// disk went read-only (the kernel does that after disk errors) still
// opens, so a person can see their memories; each write is refused at once
// with words that say why, and the fault stays. Back on a writable disk,
// the store opens as before with nothing lost.
func TestReadOnlyFolder_ShowsWhatItHoldsAndStoresNothing(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(tmpfsDir(t), "data")
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	insert(t, s, row("m1", "green tea every morning"), row("m2", "a walk after lunch"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	proctest.Remount(t, filepath.Dir(dir), true)

	s, err = Open(ctx, dir)
	if err != nil {
		t.Fatalf("open on a read-only disk: %v", err)
	}
	if !s.ReadOnly() {
		t.Fatal("the store does not know it is read-only")
	}
	if m, err := s.Get(ctx, "m1"); err != nil || m.Content != "green tea every morning" {
		t.Fatalf("Get: %+v, %v", m, err)
	}
	if hits, err := s.Keyword(ctx, memory.KeywordQuery{Terms: []string{"tea"}, Limit: 5}); err != nil || len(hits) != 1 {
		t.Fatalf("keyword search: %+v, %v", hits, err)
	}
	fault := s.WriteFault()
	if fault == nil || !strings.Contains(memory.ErrorMessage(fault), "may not write its data folder "+dir) {
		t.Fatalf("fault before any write: %v", fault)
	}
	err = s.Insert(ctx, row("m3", "written to a read-only disk"))
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(memory.ErrorMessage(err), "may not write its data folder") {
		t.Fatalf("a write on a read-only disk: %v", err)
	}
	if err := s.Probe(ctx); err == nil {
		t.Fatal("the probe passed on a read-only disk")
	}
	if s.WriteFault() == nil {
		t.Fatal("the fault cleared")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	proctest.Remount(t, filepath.Dir(dir), false)
	s, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ReadOnly() || s.WriteFault() != nil {
		t.Fatalf("writable again: read-only %v, fault %v", s.ReadOnly(), s.WriteFault())
	}
	if _, err := s.Get(ctx, "m3"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("the refused write is there: %v", err)
	}
	insert(t, s, row("m3", "written once the disk is back"))
}

// TestReadOnlyFolder_ReadsTheLogACrashLeft: HyAtlas killed before it could
// fold its log into the database, then the disk went read-only: the rows
// only the log holds are shown too (opening the file alone, as immutable,
// would hide them).
func TestReadOnlyFolder_ReadsTheLogACrashLeft(t *testing.T) {
	ctx := context.Background()
	root := tmpfsDir(t)
	live := t.TempDir()
	s, _ := openStoreDir(t, live)
	insert(t, s, row("m1", "before the crash"))
	// The files as a kill leaves them: the database, its log and its index
	// of the log, copied while the store is open.
	dir := filepath.Join(root, "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm", LockFileName} {
		copyFile(t, filepath.Join(live, name), filepath.Join(dir, name))
	}
	if fi, err := os.Stat(filepath.Join(dir, FileName+"-wal")); err != nil || fi.Size() == 0 {
		t.Fatalf("no log to read: %v", err)
	}
	proctest.Remount(t, root, true)

	ro, err := Open(ctx, dir)
	if err != nil {
		t.Fatalf("open on a read-only disk: %v", err)
	}
	defer ro.Close()
	if m, err := ro.Get(ctx, "m1"); err != nil || m.Content != "before the crash" {
		t.Fatalf("a row the log holds: %+v, %v", m, err)
	}
}

// TestReadOnlyFolder_RefusedWhenItNeedsAnUpgrade: a database of an older
// schema needs writes to be read by this build; on a read-only disk that
// is refused, saying so, and nothing is touched.
func TestReadOnlyFolder_RefusedWhenItNeedsAnUpgrade(t *testing.T) {
	ctx := context.Background()
	root := tmpfsDir(t)
	dir := filepath.Join(root, "data")
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	proctest.Remount(t, root, true)
	if _, err := Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "needs an upgrade") {
		t.Fatalf("open: %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadOnlyFolder_NothingToShowSaysWhatToDo: a read-only folder with no
// HyAtlas data in it (or none that can be made) stops HyAtlas with words
// that say what to do, not a bare system error.
func TestReadOnlyFolder_NothingToShowSaysWhatToDo(t *testing.T) {
	root := tmpfsDir(t)
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	proctest.Remount(t, root, true)
	for _, dir := range []string{filepath.Join(root, "empty"), filepath.Join(root, "missing")} {
		_, err := Open(context.Background(), dir)
		if err == nil || !strings.Contains(err.Error(), "may not write its data folder "+dir) ||
			!strings.Contains(err.Error(), "HYATLAS_DATA") {
			t.Errorf("open %s: %v", dir, err)
		}
	}
}
