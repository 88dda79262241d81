package engine

import (
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/config"
	"hyatlas/backend/memory"
)

// A wrong key replaced while a call with it is on its way: the call's
// refusal (the old key's) does not drop the writes the new key queued, so
// they are extracted at once, not at the next catch-up run.
func TestKeyReplacedDuringACallKeepsTheQueue(t *testing.T) {
	async := false
	r := newLLMRig(t, func(c *config.Config) {
		c.Mode = memory.ModeUltra
		c.SyncExtract = &async
		c.LLM.Workers = 1
		c.LLM.CatchupEvery = 0 // no timed run comes to the rescue
	})
	const wrong, right = "sk-wrong-key-0123456789", "sk-right-key-0123456789"
	r.fake.setReply(func(q llmRequest) (int, string) {
		if q.Auth != "Bearer "+right {
			return 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`
		}
		return 200, planJSON([]map[string]any{fact("A fact from a write", "decision")}, nil)
	})
	if err := r.eng.x.keys.Hand(wrong); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	hold := func() {
		if once.CompareAndSwap(false, true) {
			close(entered)
			<-release
		}
	}
	r.eng.x.afterKeyRead.Store(&hold)
	first := r.add(t, "the first write, whose call reads the wrong key")
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first write's call never read the key")
	}
	second := r.add(t, "the second write, queued behind it")
	if err := r.eng.x.keys.Hand(right); err != nil {
		t.Fatal(err)
	}
	close(release) // the call goes out with the wrong key and is refused
	r.waitExtracted(t, first.MemoryID, "the write whose call had the wrong key")
	r.waitExtracted(t, second.MemoryID, "the write queued behind it")
}
