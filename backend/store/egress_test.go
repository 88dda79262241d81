package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// TestEgress_ARequestIsLedgeredBeforeItsAnswer: a request is in the ledger
// as it leaves (in_flight), its end is written into the same row, and a
// row a crash left in flight is marked interrupted at the next start.
func TestEgress_ARequestIsLedgeredBeforeItsAnswer(t *testing.T) {
	ctx := context.Background()
	s, dir := openStoreDir(t, t.TempDir())
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	call := memory.EgressCall{At: at, Host: "llm.example", Model: "m", Purpose: "extract", BytesOut: 900}
	seq, err := s.StartEgress(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := func(s *Store) []string {
		t.Helper()
		calls, err := s.ListEgress(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range calls {
			out = append(out, c.Outcome)
		}
		return out
	}
	if got := outcomes(s); len(got) != 1 || got[0] != EgressInFlight {
		t.Fatalf("after the start: %v", got)
	}
	done := call
	done.BytesIn, done.Status, done.Outcome, done.Duration = 300, 200, "ok", 1200
	if err := s.FinishEgress(ctx, seq, done); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartEgress(ctx, call); err != nil { // this one never ends: the process dies
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, _ := openStoreDir(t, dir)
	if n, err := s2.InterruptEgress(ctx); err != nil || n != 1 {
		t.Fatalf("interrupted %d, %v; want 1", n, err)
	}
	calls, _ := s2.ListEgress(ctx, 10)
	if len(calls) != 2 || calls[0].Outcome != EgressInterrupted || calls[1] != done {
		t.Errorf("ledger after the restart: %+v; want the interrupted one, then %+v", calls, done)
	}
}

// TestEgress_ARestoreKeepsTheLedger: restoring a snapshot takes memories
// back, never the record of what left the machine since.
func TestEgress_ARestoreKeepsTheLedger(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	add := func(purpose string) {
		if err := s.AddEgress(ctx, memory.EgressCall{At: at, Host: "llm.example", Model: "m", Purpose: purpose, Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	add("extract")
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.db")
	if err := s.BackupTo(ctx, snap); err != nil {
		t.Fatal(err)
	}
	add("consolidate")
	flying, err := s.StartEgress(ctx, memory.EgressCall{At: at, Host: "llm.example", Model: "m", Purpose: "now"})
	if err != nil {
		t.Fatal(err)
	}
	// As a snapshot restore does: the current database copied aside first.
	before, seq := filepath.Join(dir, "before.db"), s.WriteSeq()
	if err := s.BackupTo(ctx, before); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreFrom(ctx, snap, before, seq); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishEgress(ctx, flying, memory.EgressCall{Outcome: "ok", Status: 200}); err != nil {
		t.Fatal(err)
	}
	calls, err := s.ListEgress(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var purposes []string
	for _, c := range calls {
		purposes = append(purposes, c.Purpose+":"+c.Outcome)
	}
	if want := "now:ok consolidate:ok extract:ok"; len(calls) != 3 || strings.Join(purposes, " ") != want {
		t.Errorf("ledger after the restore: %v; want %s", purposes, want)
	}
	if err := s.AddEgress(ctx, memory.EgressCall{At: at, Host: "h", Model: "m", Purpose: "test", Outcome: "ok"}); err != nil {
		t.Errorf("a request after the restore: %v", err)
	}
}

// TestEgress_ALedgerThatCannotBeCarriedRestoresNothing: when the ledger
// cannot be put into the copy to restore, the restore fails before it
// changes anything: the live data is as it was.
func TestEgress_ALedgerThatCannotBeCarriedRestoresNothing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.db")
	if err := s.BackupTo(ctx, snap); err != nil {
		t.Fatal(err)
	}
	insert(t, s, row("new", "written after the snapshot"))
	junk := filepath.Join(dir, "before.db")
	if err := os.WriteFile(junk, []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreFrom(ctx, snap, junk, s.WriteSeq()); err == nil {
		t.Fatal("the restore went ahead without the ledger")
	}
	if _, err := s.Get(ctx, "new"); err != nil {
		t.Errorf("a failed restore changed the live data: %v", err)
	}
}
