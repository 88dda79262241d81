package memory_test

// Review test (embedder lifetime): the retire func SwitchEmbedder returns
// must wait until no call uses the old embedder any more; the engine then
// closes the old model (Batcher, then the ONNX session). A snapshot
// restore (ReplaceStore) stores a new embedding holder with the same
// embedder, and retire waits only for the calls that took the holder in
// place at the switch: a call that took the holder before the restore is
// not waited for.

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

// TestReviewORT_RetireWaitsForEveryCall: a search is inside the old
// embedder's Embed when the switch happens; retire must not return before
// it ends. Run without and with a snapshot restore between the search's
// start and the switch.
func TestReviewORT_RetireWaitsForEveryCall(t *testing.T) {
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
			retired := make(chan struct{})
			go func() { retire(); close(retired) }()
			select {
			case <-retired:
				// The engine would now close the old model: with ONNX
				// models the Batcher still waits for its callers, but a
				// call that took the embedding and has not yet reached
				// Embed gets "the embedder is closed", and any embedder
				// not behind a Batcher would be closed under the run.
				t.Errorf("retire returned while a search was still inside the old embedder (%d call(s) in flight)", old.inflight.Load())
			case <-time.After(300 * time.Millisecond):
			}
			close(old.release)
			if err := <-searched; err != nil {
				t.Errorf("search: %v", err)
			}
			select {
			case <-retired:
			case <-time.After(10 * time.Second):
				t.Fatal("retire never returned after the search ended")
			}
		})
	}
}
