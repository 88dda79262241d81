package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/config"
	"hyatlas/backend/memory"
	"hyatlas/backend/snapshot"
)

// A snapshot taken while a write waited for extraction brings the write
// back as waiting when restored; it is extracted at once, not at the next
// catch-up run (which this rig never runs).
func TestRestore_QueuedWritesOfTheSnapshotAreExtracted(t *testing.T) {
	r := newLLMRig(t, func(c *config.Config) {
		sync := false
		c.SyncExtract = &sync
	})
	ctx := context.Background()
	_ = r.eng.x.keys.Hand("sk-test-key-1")
	r.fake.setReply(func(llmRequest) (int, string) {
		return 200, planJSON([]map[string]any{fact("The user keeps bees on the allotment", "user_preferences")}, nil)
	})
	write, snap := snapshotOfAQueuedWrite(t, r)
	r.waitIdle(t)
	if facts := r.live(t, memory.LayerFact); len(facts) != 1 {
		t.Fatalf("facts before the restore: %+v", facts)
	}

	if _, err := r.eng.RestoreSnapshot(ctx, snap.ID); err != nil {
		t.Fatal(err)
	}
	waitExtracted(t, r, write.MemoryID, 30*time.Second)
	r.waitIdle(t)
	if facts := r.live(t, memory.LayerFact); len(facts) != 1 || facts[0].Content != "The user keeps bees on the allotment" {
		t.Fatalf("facts after the restore: %+v", facts)
	}
}

// The write whose extraction call is in flight when a restore brings it
// back as waiting: the call's plan is stale and dropped, and the restore's
// re-queue, which waited for that call, extracts the write itself instead
// of leaving it to the next catch-up run (which this rig never runs).
func TestRestore_AWriteWhoseExtractionIsInFlightIsExtractedAgain(t *testing.T) {
	r := newLLMRig(t, func(c *config.Config) {
		sync := false
		c.SyncExtract = &sync
	})
	ctx := context.Background()
	_ = r.eng.x.keys.Hand("sk-test-key-1")
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	r.fake.setReply(func(llmRequest) (int, string) {
		first := false
		once.Do(func() { first = true; close(arrived) })
		if first {
			<-release
		}
		return 200, planJSON([]map[string]any{fact("The user keeps bees on the allotment", "user_preferences")}, nil)
	})
	write, snap := snapshotOfAQueuedWrite(t, r)
	select {
	case <-arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("no extraction call")
	}
	if _, err := r.eng.RestoreSnapshot(ctx, snap.ID); err != nil {
		t.Fatal(err)
	}
	// Let the restore's re-queue reach a worker, which then waits for the
	// call in flight (were it slower, the write would be extracted anyway).
	time.Sleep(200 * time.Millisecond)
	close(release)
	waitExtracted(t, r, write.MemoryID, 15*time.Second)
}

// waitExtracted waits (at most limit) until the write is extracted.
func waitExtracted(t *testing.T, r *llmRig, id string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(10 * time.Millisecond) {
		m, err := r.eng.Memory.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Memory.Extraction == memory.ExtractDone {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restored write is still %s after %s; %d calls made", m.Memory.Extraction, limit, len(r.fake.requests()))
		}
	}
}

// snapshotOfAQueuedWrite writes a turn while extraction is paused, takes a
// snapshot holding it as waiting, and lets extraction go on.
func snapshotOfAQueuedWrite(t *testing.T, r *llmRig) (api.AddResponse, snapshot.Info) {
	t.Helper()
	r.eng.PauseExtraction(true)
	write := r.add(t, "I keep bees on the allotment")
	snap, err := r.eng.CreateSnapshot(context.Background(), snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	r.eng.PauseExtraction(false)
	return write, snap
}
