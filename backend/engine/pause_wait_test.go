package engine

import (
	"testing"
	"time"

	"hyatlas/backend/config"
)

// A pause that comes while the workers wait for a row holds the next write
// too: the worker that takes it puts it back and waits for the resume.
func TestExtraction_APauseWhileTheWorkersWaitHoldsTheNextWrite(t *testing.T) {
	async := false
	r := newLLMRig(t, func(c *config.Config) { c.SyncExtract = &async })
	_ = r.eng.x.keys.Hand("sk-test-key-1")
	r.fake.setReply(func(llmRequest) (int, string) {
		return 200, planJSON([]map[string]any{fact("A fact of a write", "project_state")}, nil)
	})
	first := r.add(t, "a note written before the pause")
	r.waitExtracted(t, first.MemoryID, "the write before the pause")
	r.waitIdle(t) // the workers wait for the next row
	before := len(r.fake.requests())
	r.eng.PauseExtraction(true)
	held := r.add(t, "a note written while extraction is paused")
	q := r.eng.x.queue
	waiting := func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.ids) == 1 && q.ids[0] == held.MemoryID && q.working == 0
	}
	for deadline := time.Now().Add(10 * time.Second); !waiting(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the paused write is not waiting in the queue (%d calls since the pause)", len(r.fake.requests())-before)
		}
	}
	if n := len(r.fake.requests()) - before; n != 0 {
		t.Fatalf("%d calls while paused", n)
	}
	r.eng.PauseExtraction(false)
	r.waitExtracted(t, held.MemoryID, "the write held by the pause")
}
