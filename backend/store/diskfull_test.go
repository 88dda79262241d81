package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// TestDiskFull_SaysSoAndStoresNothing: a write the disk has no room for is
// refused with words a person can act on (a 503 at the API; it was an
// "internal error"), stores nothing, and writes go on once there is room.
// SQLite's page limit stands in for a full disk: it fails the same way.
func TestDiskFull_SaysSoAndStoresNothing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s, row("m1", "a first memory"))
	var pages int
	if err := s.writer.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	err := s.Insert(ctx, row("m2", strings.Repeat("a memory that needs new pages ", 2000)))
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(memory.ErrorMessage(err), "disk holding HyAtlas's data is full") {
		t.Fatalf("a write on a full disk: %v (code %s)", err, memory.ErrorCode(err))
	}
	if _, err := s.Get(ctx, "m2"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("the refused write is readable: %v", err)
	}
	if _, err := s.writer.ExecContext(ctx, "PRAGMA max_page_count = 1000000"); err != nil {
		t.Fatal(err)
	}
	insert(t, s, row("m3", "room again"))
}

// TestWriteFault_ReportedUntilAWriteCommits: once the disk refuses a write,
// the store says why (so the status can, before the next write is lost to
// it) until a write commits again; a write refused for its data is no
// fault of the disk. A full disk (the page limit) and a database that may
// not be written (query_only; as root, file modes cannot make one) stand in
// for the real causes: SQLite fails the same ways.
func TestWriteFault_ReportedUntilAWriteCommits(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name        string
		fail, clear func(s *Store) string // PRAGMAs
		want        string
		// probeFails: the stand-in fails the probe's small in-place update
		// too (the page limit lets it through; a real full disk would not).
		probeFails bool
	}{
		{"full disk", func(s *Store) string {
			var pages int
			if err := s.writer.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("PRAGMA max_page_count = %d", pages)
		}, func(*Store) string { return "PRAGMA max_page_count = 1000000" }, "is full", false},
		{"read-only", func(*Store) string { return "PRAGMA query_only = 1" },
			func(*Store) string { return "PRAGMA query_only = 0" }, "may not write its data folder", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t)
			if err := s.WriteFault(); err != nil {
				t.Fatalf("a fresh store has a fault: %v", err)
			}
			insert(t, s, row("m1", "a first memory"))
			if err := s.Insert(ctx, row("m1", "the same id again")); err == nil || s.WriteFault() != nil {
				t.Fatalf("a write refused for its data: err %v, fault %v", err, s.WriteFault())
			}
			if _, err := s.writer.ExecContext(ctx, c.fail(s)); err != nil {
				t.Fatal(err)
			}
			if err := s.Insert(ctx, row("m2", strings.Repeat("a memory that needs new pages ", 2000))); !errors.Is(err, memory.ErrStorage) {
				t.Fatalf("a refused write: %v", err)
			}
			fault := s.WriteFault()
			if !errors.Is(fault, memory.ErrStorage) || memory.ErrorCode(fault) != memory.EUNAVAILABLE || !strings.Contains(memory.ErrorMessage(fault), c.want) {
				t.Fatalf("fault after a refused write: %v (code %s)", fault, memory.ErrorCode(fault))
			}
			if c.probeFails {
				if err := s.Probe(ctx); err == nil || s.WriteFault() == nil {
					t.Fatalf("probe while the disk refuses: err %v, fault %v", err, s.WriteFault())
				}
			}
			if _, err := s.writer.ExecContext(ctx, c.clear(s)); err != nil {
				t.Fatal(err)
			}
			if err := s.Probe(ctx); err != nil || s.WriteFault() != nil {
				t.Fatalf("probe once the disk takes writes: err %v, fault %v", err, s.WriteFault())
			}
		})
	}
}

// TestFolderMoved_WritesAreRefusedUntilItIsBack: a data folder deleted or
// moved while HyAtlas runs takes the database file with it; SQLite would
// go on writing to the unlinked file and lose every write at the next
// start. Writes are refused with a storage fault instead, and go on once
// the folder is back.
func TestFolderMoved_WritesAreRefusedUntilItIsBack(t *testing.T) {
	ctx := context.Background()
	parent := t.TempDir()
	dir := filepath.Join(parent, "data")
	s, _ := openStoreDir(t, dir)
	insert(t, s, row("m1", "before the move"))
	moved := filepath.Join(parent, "moved")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	err := s.Insert(ctx, row("m2", "while it is gone"))
	if !errors.Is(err, memory.ErrStorage) || !strings.Contains(err.Error(), "moved or deleted") {
		t.Fatalf("a write while the folder is gone: %v", err)
	}
	if f := s.WriteFault(); f == nil {
		t.Error("no storage fault while the folder is gone")
	}
	if err := os.Rename(moved, dir); err != nil {
		t.Fatal(err)
	}
	insert(t, s, row("m3", "after it is back"))
	if f := s.WriteFault(); f != nil {
		t.Errorf("the fault stays after a write committed: %v", f)
	}
	for id, want := range map[string]bool{"m1": true, "m2": false, "m3": true} {
		if _, err := s.Get(ctx, id); (err == nil) != want {
			t.Errorf("%s: %v, want stored %v", id, err, want)
		}
	}
}
