package store

import (
	"context"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// TestMarkUsed_ARecordedRequestOutlivesARestart: the record of a counted
// feedback call is written with its count, so after the store is closed
// and opened again (HyAtlas stopped before the answer reached the agent)
// the call sent again counts nothing.
func TestMarkUsed_ARecordedRequestOutlivesARestart(t *testing.T) {
	ctx := context.Background()
	s, dir := openStoreDir(t, t.TempDir())
	insert(t, s, row("m1", "prefers tea", inLayer(memory.LayerFact)))
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	req := memory.UseRequest{ID: "req-1", Digest: "d1", Forget: at.Add(-time.Hour)}
	if res, err := s.MarkUsed(ctx, []string{"m1"}, at, 0.01, req); err != nil || res.Repeat || len(res.Found) != 1 {
		t.Fatalf("first call: %+v, %v", res, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, _ := openStoreDir(t, dir)
	res, err := s2.MarkUsed(ctx, []string{"m1"}, at.Add(time.Minute), 0.01, req)
	if err != nil || !res.Repeat || res.Counted != 1 || len(res.Found) != 0 {
		t.Fatalf("the call sent again after a restart: %+v, %v; want a repeat of a count of 1", res, err)
	}
	if m := mustGet(t, s2, "m1"); m.UseCount != 1 {
		t.Errorf("use count %d, want 1", m.UseCount)
	}
}

// TestMarkUsed_ARetiredRowIsNeverCounted: a row retired before the count
// (between the service reading it and MarkUsed) keeps its uses and
// strength; the live rows of the same call are counted.
func TestMarkUsed_ARetiredRowIsNeverCounted(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s, row("m1", "prefers tea", inLayer(memory.LayerFact)), row("m2", "lives in Lyon", inLayer(memory.LayerFact)))
	retire(t, s, "m1")
	before := mustGet(t, s, "m1")
	res, err := s.MarkUsed(ctx, []string{"m1", "m2"}, time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), 0.01, memory.UseRequest{})
	if err != nil || len(res.Found) != 1 || res.Found[0] != "m2" {
		t.Fatalf("counted %+v, %v; want m2 only", res, err)
	}
	if m := mustGet(t, s, "m1"); m.UseCount != before.UseCount || m.Strength != before.Strength {
		t.Errorf("the retired row: %d uses, strength %v; want %d, %v", m.UseCount, m.Strength, before.UseCount, before.Strength)
	}
}
