package memory_test

// Retiring an embedder (after a switch) waits for every call using it,
// also one that took the embedding before a snapshot restore: the engine
// closes the model next, and a call still in it would fail (or, with a
// model not behind a Batcher, run on freed memory).

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/vector"
)

// gateEmbedder holds the first call after arm() until release closes.
type gateEmbedder struct {
	memory.Embedder
	armed    atomic.Bool
	entered  chan struct{}
	release  chan struct{}
	inflight atomic.Int64
}

func (g *gateEmbedder) arm() {
	g.entered, g.release = make(chan struct{}), make(chan struct{})
	g.armed.Store(true)
}

func (g *gateEmbedder) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	g.inflight.Add(1)
	defer g.inflight.Add(-1)
	if g.armed.CompareAndSwap(true, false) {
		close(g.entered)
		<-g.release
	}
	return g.Embedder.Embed(ctx, texts, p)
}

// A search is inside the old embedder's Embed when the switch happens;
// retire returns only after it ends, with or without a snapshot restore
// between the search's start and the switch.
func TestRetiringAnEmbedderWaitsForEveryCall(t *testing.T) {
	for _, restore := range []bool{false, true} {
		name := "no restore"
		if restore {
			name = "restore between the call and the switch"
		}
		t.Run(name, func(t *testing.T) {
			h, _ := embed.NewHash(64)
			old := &gateEmbedder{Embedder: h}
			r := newRig(t, memory.Config{}, func(d *memory.Deps) { d.Embedder = old })
			r.add(t, "the cat sat on the mat", "u")
			ctx := context.Background()

			old.arm()
			searched := make(chan error, 1)
			go func() {
				_, err := r.svc.Search(ctx, memory.SearchInput{Query: "cat", Limit: 5})
				searched <- err
			}()
			select {
			case <-old.entered: // the search holds the embedding and runs the model
			case <-time.After(10 * time.Second):
				t.Fatal("the search never reached the embedder")
			}
			if restore {
				r.restoreSnapshot(t, nil)
			}
			next, _ := embed.NewHash(32)
			retire, err := r.svc.SwitchEmbedder(ctx, next, func(context.Context) (memory.VectorIndex, error) {
				return vector.New(32), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// The calls in the old embedder when retire returns: the
			// engine closes the model then.
			inside := make(chan int64, 1)
			go func() { retire(); inside <- old.inflight.Load() }()
			time.Sleep(300 * time.Millisecond) // time for a wrong retire to return
			close(old.release)
			if err := <-searched; err != nil {
				t.Errorf("search: %v", err)
			}
			select {
			case n := <-inside:
				if n != 0 {
					t.Errorf("retire returned while %d call(s) were still inside the old embedder", n)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("retire never returned after the search ended")
			}
		})
	}
}
