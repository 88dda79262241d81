package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// TestSwitch_StopAndSwitchBackDuringReembedding: GloVe -> BGE (install)
// with writes and searches running during the re-embedding; a stop in the
// middle of it; then removing BGE (back to GloVe) before the re-embedding
// finished. Every acknowledged write is there and, once re-embedding ends,
// in the index, and the index agrees with the store.
func TestSwitch_StopAndSwitchBackDuringReembedding(t *testing.T) {
	ctx := context.Background()
	cfg, opts := modelConfig(t)
	e, err := Open(ctx, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	glove := e.Memory.EmbedderInfo().ID
	for i := range 1500 {
		if _, err := e.Memory.Add(ctx, memory.AddInput{Text: fmt.Sprintf("note number %d about topic cats", i), Owner: memory.Owner{UserID: "u"}}); err != nil {
			t.Fatal(err)
		}
	}
	var acked sync.Map
	var writes, searchErrs atomic.Int64
	load := func(e *Engine, stop chan struct{}, wg *sync.WaitGroup) {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				res, err := e.Memory.Add(ctx, memory.AddInput{Text: fmt.Sprintf("during switch %d dogs rain", writes.Add(1)), Owner: memory.Owner{UserID: "u"}})
				if err == nil {
					acked.Store(res.Memory.ID, true)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := e.Memory.Search(ctx, memory.SearchInput{Query: "note about topic cats", Limit: 5}); err != nil {
					searchErrs.Add(1)
					t.Logf("search during re-embedding: %v", err)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	load(e, stop, &wg)
	if err := e.models.Install(bgeModel); err != nil {
		t.Fatal(err)
	}
	bge := e.embedders.bgeID()
	waitFor(t, "the switch to BGE", func() bool { return e.Memory.EmbedderInfo().ID == bge })
	waitFor(t, "some re-embedding", func() bool {
		st, _ := e.Memory.Stats(ctx)
		return st.Reembed.Done >= 128
	})
	close(stop)
	wg.Wait()
	backlog, _ := e.store.VectorBacklog(ctx, bge)
	t.Logf("stopping with %d rows still to re-embed", backlog)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// Restart in the middle: the pass resumes.
	e, err = Open(ctx, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	if id := e.Memory.EmbedderInfo().ID; id != bge {
		t.Fatalf("after the restart the embedder is %s, want %s", id, bge)
	}
	stop = make(chan struct{})
	load(e, stop, &wg)
	waitFor(t, "re-embedding to resume", func() bool {
		n, _ := e.store.VectorBacklog(ctx, bge)
		return n < backlog
	})
	// Back to GloVe before it finished.
	if removed, err := e.models.Remove(bgeModel); err != nil || !removed {
		t.Fatal(removed, err)
	}
	if id := e.Memory.EmbedderInfo().ID; id != glove {
		t.Fatalf("after removing BGE the embedder is %s", id)
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	waitFor(t, "re-embedding with GloVe", func() bool {
		n, _ := e.store.VectorBacklog(ctx, glove)
		return n == 0 && !reembedRunning(t, e)
	})
	if err := e.Memory.Ready(ctx); err != nil {
		t.Errorf("not ready after going back: %v", err)
	}
	st, _ := e.Memory.Stats(ctx)
	live := 0
	for _, n := range st.Live {
		live += n
	}
	if st.IndexLen != live {
		t.Errorf("index holds %d, store %d live", st.IndexLen, live)
	}
	if st.Reembed.Error != "" || st.Reembed.Running {
		t.Errorf("re-embed status after it finished: %+v", st.Reembed)
	}
	n := 0
	acked.Range(func(k, _ any) bool {
		n++
		if _, err := e.Memory.Get(ctx, k.(string)); err != nil {
			t.Errorf("acknowledged write %s lost: %v", k, err)
		}
		return true
	})
	if searchErrs.Load() > 0 {
		t.Errorf("%d searches failed during re-embedding", searchErrs.Load())
	}
	t.Logf("%d writes during the switches; reembed status %+v", n, st.Reembed)
}
