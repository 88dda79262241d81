package memory_test

import (
	"context"
	"fmt"
	"strings"
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
	retire, err := r.svc.SwitchEmbedder(ctx, &cancelAfter{Embedder: next, n: 1, cancel: cancel},
		func(context.Context) (memory.VectorIndex, error) { return ix, nil })
	if err != nil {
		t.Fatal(err)
	}
	retire()
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

// gate blocks Embed until released, to hold a write inside the embedder.
type gate struct {
	memory.Embedder
	entered, release chan struct{}
}

func (g *gate) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	g.entered <- struct{}{}
	<-g.release
	return g.Embedder.Embed(ctx, texts, p)
}

// TestWriteRacingASwitch: a write that embedded with the old model while
// the switch happened stores a vector of the new one, so no row is left
// that nothing will re-embed.
func TestWriteRacingASwitch(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, memory.Config{})
	old, _ := embed.NewHash(64)
	g := &gate{Embedder: old, entered: make(chan struct{}), release: make(chan struct{})}
	retire, err := r.svc.SwitchEmbedder(ctx, g, func(context.Context) (memory.VectorIndex, error) { return r.index, nil })
	if err != nil {
		t.Fatal(err)
	}
	retire()
	done := make(chan memory.AddResult)
	go func() {
		res, err := r.svc.Add(ctx, memory.AddInput{Text: "written during the switch"})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-g.entered // the write is inside the old embedder
	next, _ := embed.NewHash(32)
	ix := vector.New(32)
	retire, err = r.svc.SwitchEmbedder(ctx, next, func(context.Context) (memory.VectorIndex, error) { return ix, nil })
	if err != nil {
		t.Fatal(err)
	}
	close(g.release)
	res := <-done
	retire()
	v, err := r.store.Vector(ctx, res.Memory.ID)
	if err != nil || v.Embedder != next.Info().ID {
		t.Fatalf("the row's vector is from %s (%v), want %s", v.Embedder, err, next.Info().ID)
	}
	if _, ok := ix.Vector(res.Memory.ID); !ok {
		t.Error("the row is not in the new index")
	}
	if err := r.svc.Ready(ctx); err != nil {
		t.Error(err)
	}
}

// refuses fails any batch holding a text with POISON in it.
type refuses struct{ memory.Embedder }

func (r refuses) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	for _, t := range texts {
		if strings.Contains(t, "POISON") {
			return nil, fmt.Errorf("the endpoint refused a text")
		}
	}
	return r.Embedder.Embed(ctx, texts, p)
}

// TestReembed_OneBadRowDoesNotStopTheRest: rows the embedder refuses are
// skipped and reported; every other row gets its vector.
func TestReembed_OneBadRowDoesNotStopTheRest(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, memory.Config{})
	var ids []string
	for i := range 10 {
		ids = append(ids, r.add(t, fmt.Sprintf("ordinary note %d", i), "u1").ID)
	}
	bad := r.add(t, "a POISON note", "u1")
	next, _ := embed.NewHash(32)
	ix := vector.New(32)
	retire, err := r.svc.SwitchEmbedder(ctx, refuses{next}, func(context.Context) (memory.VectorIndex, error) { return ix, nil })
	if err != nil {
		t.Fatal(err)
	}
	retire()
	if err := r.svc.Reembed(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if v, _ := r.store.Vector(ctx, id); v.Embedder != next.Info().ID {
			t.Errorf("%s was not re-embedded", id)
		}
	}
	if v, _ := r.store.Vector(ctx, bad.ID); v.Embedder == next.Info().ID {
		t.Error("the refused row has a new vector")
	}
	st, _ := r.svc.Stats(ctx)
	if st.Reembed.Running || !strings.Contains(st.Reembed.Error, "1 memory could not be embedded") {
		t.Errorf("progress = %+v", st.Reembed)
	}
}
