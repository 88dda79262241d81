package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"hyatlas/backend/memory"
)

func TestBackupRestoreInspect(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if err := s.Insert(ctx, row("a", "first"), row("b", "second")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyPath := filepath.Join(dir, "copy.db")
	if err := s.BackupTo(ctx, copyPath); err != nil {
		t.Fatal(err)
	}
	info, err := InspectFile(ctx, copyPath)
	if err != nil || info.Integrity != "ok" || info.Schema != SchemaVersion() || info.Live[memory.LayerRaw] != 2 {
		t.Fatalf("inspect: %+v, %v", info, err)
	}
	if err := MarkFile(ctx, copyPath, "restore_token", 42); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(ctx, row("c", "third")); err != nil {
		t.Fatal(err)
	}
	// The before copy is stale (a write ran since the sequence was read):
	// the restore makes it again inside its pause.
	before := filepath.Join(dir, "before.db")
	paused, err := s.RestoreFrom(ctx, copyPath, before, s.WriteSeq()-1)
	if err != nil || paused <= 0 {
		t.Fatalf("restore: %v, %v", err, paused)
	}
	if _, err := s.Get(ctx, "c"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("a row written after the copy survived the restore: %v", err)
	}
	if m, err := s.Get(ctx, "a"); err != nil || m.Content != "first" {
		t.Fatalf("restored row: %+v, %v", m, err)
	}
	if v, _ := s.Counter(ctx, "restore_token"); v != 42 {
		t.Fatalf("restore token %d", v)
	}
	if info, _ := InspectFile(ctx, before); info.Live[memory.LayerRaw] != 3 {
		t.Fatalf("the before copy: %+v", info)
	}
	// The store works on: writes, and a restore back.
	if err := s.Insert(ctx, row("d", "fourth")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreFrom(ctx, before, "", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "c"); err != nil {
		t.Fatalf("undo: %v", err)
	}
}

// Writes queued while a restore runs wait for it and then go in: none is
// lost or fails.
func TestWritesDuringRestoreWaitAndGoIn(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if err := s.Insert(ctx, row("a", "first")); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if err := s.BackupTo(ctx, copyPath); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	restored := make(chan struct{})
	go func() {
		defer close(restored)
		if _, err := s.RestoreFrom(ctx, copyPath, "", 0); err != nil {
			errs <- err
		}
	}()
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.Insert(ctx, row(fmt.Sprintf("w%02d", i), "written meanwhile"))
		}()
	}
	wg.Wait()
	<-restored
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Each write either went in before the restore (and was replaced by
	// the snapshot's state, as a restore means) or after it: none failed.
	st, err := s.Stats(ctx)
	if err != nil || st.Live[memory.LayerRaw] < 1 {
		t.Fatalf("stats %+v, %v", st, err)
	}
}
