//go:build linux

package memory_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
)

// countingExtractor counts the (paid) model calls made.
type countingExtractor struct {
	scriptedExtractor
	calls atomic.Int32
}

func (c *countingExtractor) Extract(ctx context.Context, req memory.ExtractRequest) (memory.ExtractPlan, error) {
	c.calls.Add(1)
	return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Bob likes green tea", Label: "preference"}}}, nil
}

// A data folder on a read-only disk: the rows waiting for extraction are
// not sent to the model, run after run, since no answer could be kept
// (the provider is paid per call).
func TestReadOnlyStore_SendsNothingToTheModel(t *testing.T) {
	mnt := t.TempDir()
	proctest.Tmpfs(t, mnt, "16M")
	dir := filepath.Join(mnt, "data")
	ctx := context.Background()
	cfg := extractCfg()
	cfg.Extraction.Sync = false

	build := func(st *store.Store, x memory.Extractor, state memory.LLMState, shift time.Duration) *memory.Service {
		emb, err := embed.NewHash(64)
		if err != nil {
			t.Fatal(err)
		}
		svc, err := memory.NewService(cfg, memory.Deps{Store: st, Index: vector.New(64), Embedder: emb, ExtractStore: st,
			Extractor: x, LLMState: func() memory.LLMState { return state },
			Now: func() time.Time { return time.Now().Add(shift) }})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	// Written while the endpoint was not set up: the rows wait for extraction.
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := build(st, &countingExtractor{}, memory.LLMAwaitingKey, -time.Hour) // an hour ago
	for _, text := range []string{"Bob likes green tea", "Bob walks after lunch", "Bob reads before bed"} {
		if _, err := svc.Add(ctx, memory.AddInput{Text: text, Owner: memory.Owner{UserID: "bob"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	proctest.Remount(t, mnt, true)

	st, err = store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if !st.ReadOnly() {
		t.Fatal("the store did not open read-only")
	}
	x := &countingExtractor{}
	svc = build(st, x, memory.LLMOK, 0)
	for range 3 { // three catch-up runs, as HYATLAS_CATCHUP_EVERY makes them
		res, err := svc.CatchUp(ctx, 0)
		t.Logf("catch-up: %+v %v", res, err)
	}
	if n := x.calls.Load(); n != 0 {
		t.Errorf("a read-only store sent %d rows to the model in 3 catch-up runs; none of the answers could be stored", n)
	}
}

// A HyAtlas on a read-only disk that only showed and searched quits
// cleanly: the counters it could not store are no shutdown error.
func TestReadOnlyStore_QuitsCleanlyAfterASearch(t *testing.T) {
	mnt := t.TempDir()
	proctest.Tmpfs(t, mnt, "16M")
	dir := filepath.Join(mnt, "data")
	ctx := context.Background()
	open := func() (*store.Store, *memory.Service) {
		st, err := store.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		emb, _ := embed.NewHash(64)
		svc, err := memory.NewService(memory.Config{Mode: memory.ModeLite, MinScore: -1},
			memory.Deps{Store: st, Index: vector.New(64), Embedder: emb, ExtractStore: st})
		if err != nil {
			t.Fatal(err)
		}
		return st, svc
	}
	st, svc := open()
	if _, err := svc.Add(ctx, memory.AddInput{Text: "Bob likes green tea", Owner: memory.Owner{UserID: "bob"}}); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	proctest.Remount(t, mnt, true)
	st, svc = open()
	defer st.Close()
	if _, err := svc.Search(ctx, memory.SearchInput{Query: "green tea", UserIDs: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Flush(ctx); err != nil {
		t.Errorf("Flush (Engine.Close) after a search on a read-only store: %v", err)
	}
}
