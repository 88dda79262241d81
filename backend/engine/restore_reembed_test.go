package engine

import (
	"context"
	"testing"
	"time"

	"hyatlas/backend/memory"
	"hyatlas/backend/snapshot"
)

// TestSnapshot_ARestoreReembedsRowsOfAnotherModel: a snapshot made while
// another model was in use holds rows whose vectors are that model's; the
// restore asks for a re-embedding pass, so they come back into the vector
// index without a restart.
func TestSnapshot_ARestoreReembedsRowsOfAnotherModel(t *testing.T) {
	ctx := context.Background()
	eng := openSnapEngine(t)
	now := time.Now().UTC()
	old := make([]float32, 300)
	for i := range old {
		old[i] = float32(i%7) + 1
	}
	m := memory.Memory{ID: memory.NewID(now), Layer: memory.LayerFact, Content: "Foxtrot runs on Postgres 16", Owner: memory.Owner{UserID: "u1"},
		Category: "fact", Strength: 0.5, EventAt: now, CreatedAt: now, UpdatedAt: now, Extraction: memory.ExtractSkipped}
	if err := eng.store.Insert(ctx, memory.NewRow{Memory: m, Vector: memory.Vector{Embedder: "an-older-model", Values: old}}); err != nil {
		t.Fatal(err)
	}
	snap, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Memory.Reembed(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.RestoreSnapshot(ctx, snap.ID); err != nil {
		t.Fatal(err)
	}
	// The pass runs in the background: wait for it, as a person would.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		st, err := eng.Memory.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.IndexLen == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the restore the index holds %d rows, want the restored fact (vectors %v)", st.IndexLen, st.Vectors)
		}
	}
}
