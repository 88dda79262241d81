package memory_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// TestSyncWrite_GivesUpWaitingAndQueues: a write that waits for its
// extraction (sync mode) answers pending once its wait is over, here while
// another extraction for the same person holds the endpoint, and hands the
// row to the workers; the write itself is stored. (Was: it waited for the
// extraction before it, up to the whole call timeout, and clients timed out.)
func TestSyncWrite_GivesUpWaitingAndQueues(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.SyncWait = 50 * time.Millisecond
	r, x, q := newQueueRig(t, cfg)
	release, started := make(chan struct{}), make(chan struct{})
	var once sync.Once
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		once.Do(func() { close(started) })
		<-release // a hung endpoint: the first write's call does not return
		return memory.ExtractPlan{}, nil
	})
	// The first write's extraction runs with no wait of its own (as the
	// workers run it), so it reaches the endpoint however slow this
	// machine is; a sync write's 50 ms could end before its call began.
	pending := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "first write, its call hangs",
		Owner: memory.Owner{UserID: "u1"}, Extraction: memory.ExtractPending})
	first := make(chan memory.ExtractionStatus, 1)
	go func() {
		st, err := r.svc.ExtractOne(context.Background(), pending.ID)
		if err != nil {
			t.Error(err)
		}
		first <- st
	}()
	select {
	case <-started:
	case <-time.After(2 * time.Minute): // not a timing check: it fails a hang instead of holding the suite
		close(release)
		t.Fatal("the first extraction never reached the endpoint")
	}
	second := make(chan memory.AddResult, 1)
	go func() {
		res, err := r.svc.Add(context.Background(), memory.AddInput{Text: "second write, same person", Owner: memory.Owner{UserID: "u1"}})
		if err != nil {
			t.Error(err)
		}
		second <- res
	}()
	var res memory.AddResult
	select {
	case res = <-second:
	case <-time.After(30 * time.Second): // not a timing check: without the wait's end it never answers
		close(release)
		t.Fatal("the second write waited for the first one's extraction")
	}
	if res.ExtractionStatus != memory.StatusPending {
		t.Errorf("the second write answered %s, want pending", res.ExtractionStatus)
	}
	if got, err := r.store.Get(context.Background(), res.Memory.ID); err != nil || got.Extraction != memory.ExtractPending {
		t.Errorf("the second write is not stored and pending: %+v %v", got, err)
	}
	if got := q.ids(); len(got) != 1 || got[0] != res.Memory.ID {
		t.Errorf("queued %v, want the second write %s", got, res.Memory.ID)
	}
	// The first call comes back long after its own wait; its write is kept
	// whatever it answers.
	close(release)
	<-first
	rows, err := r.svc.List(context.Background(), memory.ListInput{UserID: "u1", Layer: "l2_raw", Limit: 10})
	if err != nil || len(rows.Memories) != 2 {
		t.Errorf("rows after both writes: %d, %v; want 2", len(rows.Memories), err)
	}
}

// A write whose caller hangs up while its extraction runs is stored and
// handed to the workers at once, not left for the next catch-up run.
func TestSyncWrite_ACallerThatHangsUpLeavesItQueued(t *testing.T) {
	r, x, q := newQueueRig(t, extractCfg())
	ctx, hangUp := context.WithCancel(context.Background())
	x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) {
		hangUp() // the client goes away while the model thinks
		return memory.ExtractPlan{}, context.Canceled
	})
	res, err := r.svc.Add(ctx, memory.AddInput{Text: "a write whose caller hangs up", Owner: memory.Owner{UserID: "u1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.store.Get(context.Background(), res.Memory.ID); err != nil || got.Extraction != memory.ExtractPending {
		t.Errorf("the write is not stored and pending: %+v %v", got, err)
	}
	if got := q.ids(); len(got) != 1 || got[0] != res.Memory.ID {
		t.Errorf("queued %v, want the write %s", got, res.Memory.ID)
	}
}

// queue records the rows a rig hands to the extraction workers.
type queue struct {
	mu     sync.Mutex
	queued []string
}

func (q *queue) ids() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.queued...)
}

// newQueueRig is a rig with a scripted extractor whose endpoint is ready
// and whose queue to the workers is recorded.
func newQueueRig(t *testing.T, cfg memory.Config) (*rig, *scriptedExtractor, *queue) {
	t.Helper()
	x, q := &scriptedExtractor{}, &queue{}
	r := newRig(t, cfg, func(d *memory.Deps) {
		d.Extractor = x
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
		d.Enqueue = func(id string) {
			q.mu.Lock()
			q.queued = append(q.queued, id)
			q.mu.Unlock()
		}
	})
	return r, x, q
}
