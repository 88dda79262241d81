package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/config"
	"hyatlas/backend/memory"
)

// A write's extraction that read "no key" just before the key was handed
// over does not mark the key missing after the hand-over was seen: the
// endpoint stays usable and the waiting write is extracted (before, every
// write waited for the next key check, a minute later).
func TestKeyReadBeforeAHandOverDoesNotHideIt(t *testing.T) {
	r := newLLMRig(t, func(c *config.Config) { c.Mode = memory.ModeUltra })
	res := r.add(t, "written before any key")
	if res.ExtractionStatus != memory.StatusAwaitingKey {
		t.Fatalf("status %s", res.ExtractionStatus)
	}
	r.fake.setReply(func(llmRequest) (int, string) {
		return 200, planJSON([]map[string]any{fact("A fact from a write that waited", "decision")}, nil)
	})
	// A call reads the key (none) and is held before it acts on it.
	entered, release := make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	hold := func() {
		if once.CompareAndSwap(false, true) {
			close(entered)
			<-release
		}
	}
	r.eng.x.afterKeyRead.Store(&hold)
	go func() { _, _ = r.eng.x.keyForCall(context.Background()) }()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never read the key")
	}
	if err := r.do(t, "POST", "/api/v1/llm/key", map[string]string{"key": "sk-late"}, nil); err != nil {
		t.Fatal(err)
	}
	close(release) // the call acts on its stale "no key" now
	r.waitExtracted(t, res.MemoryID, "the write that waited for the key")
	if st := r.eng.x.state(); st != memory.LLMOK {
		t.Errorf("the endpoint is %s with a key handed over", st)
	}
}
