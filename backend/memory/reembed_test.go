package memory_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/vector"
)

// recorder keeps published events.
type recorder struct {
	mu     sync.Mutex
	events []memory.Event
}

func (r *recorder) Publish(e memory.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// cancelAfter cancels a context after n embed calls.
type cancelAfter struct {
	memory.Embedder
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	if c.n--; c.n < 0 {
		c.cancel()
	}
	return c.Embedder.Embed(ctx, texts, p)
}

func TestReembed_SwitchesEveryRowAndResumes(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	var ids []string
	for i := range 150 {
		ids = append(ids, r.add(t, fmt.Sprintf("note number %d about topic%d", i, i%7), "u1").ID)
	}
	if _, err := r.svc.Retire(ctx, ids[3], memory.RetireInput{}); err != nil {
		t.Fatal(err)
	}

	next, _ := embed.NewHash(32)
	ix := vector.New(32)
	cctx, cancel := context.WithCancel(ctx)
	r.svc.SetEmbedder(&cancelAfter{Embedder: next, n: 1, cancel: cancel}, ix)
	if info := r.svc.EmbedderInfo(); info.ID != next.Info().ID {
		t.Fatalf("embedder after switch: %s", info.ID)
	}
	// Cut short after the second batch, as a restart would.
	if err := r.svc.Reembed(cctx); err == nil {
		t.Fatal("a cancelled pass reported success")
	}
	left, _ := r.store.VectorBacklog(ctx, next.Info().ID)
	if left == 0 || left == 150 {
		t.Fatalf("after a cut pass %d rows are left; want some done and some left", left)
	}
	// Keyword search works meanwhile.
	if ids := r.search(t, memory.SearchInput{Query: "topic3", Reader: "keyword", Limit: 50}); len(ids) == 0 {
		t.Error("keyword search failed during re-embedding")
	}

	rec := &recorder{}
	svc2, err := memory.NewService(memory.Config{Mode: memory.ModeLite, MinScore: -1},
		memory.Deps{Store: r.store, Index: ix, Embedder: next, Events: rec})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc2.Reembed(ctx); err != nil {
		t.Fatal(err)
	}
	if left, _ := r.store.VectorBacklog(ctx, next.Info().ID); left != 0 {
		t.Errorf("%d rows still lack a vector of the new embedder", left)
	}
	for _, id := range ids {
		v, err := r.store.Vector(ctx, id)
		if err != nil || v.Embedder != next.Info().ID || len(v.Values) != 32 {
			t.Fatalf("row %s: vector %s/%d, %v", id, v.Embedder, len(v.Values), err)
		}
	}
	if err := svc2.Ready(ctx); err != nil {
		t.Errorf("index disagrees after re-embedding: %v", err)
	}
	if _, ok := ix.Vector(ids[3]); ok {
		t.Error("a retired row was indexed")
	}
	st, _ := svc2.Stats(ctx)
	if st.Reembed.Running || st.Reembed.Done != st.Reembed.Total || st.Reembed.Total == 0 {
		t.Errorf("progress = %+v", st.Reembed)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.events) < 2 || rec.events[len(rec.events)-1].Type != "reembed.progress" {
		t.Errorf("events = %v", rec.events)
	}
}

// TestReembed_NothingToDo: with every vector current, no pass runs.
func TestReembed_NothingToDo(t *testing.T) {
	r := newRig(t, memory.Config{})
	r.add(t, "already embedded", "u1")
	if err := r.svc.Reembed(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.svc.Stats(context.Background()); st.Reembed.Total != 0 {
		t.Errorf("a pass ran with nothing to do: %+v", st.Reembed)
	}
}
