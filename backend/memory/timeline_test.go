package memory_test

import (
	"context"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestTimeline(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "day one"})
	r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "a fact on day one"})
	r.advance(48 * time.Hour)
	r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "day three"})
	if err := r.store.AddEgress(ctx, memory.EgressCall{At: r.clock.Now(), Host: "h", Model: "m", Purpose: "extract", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	days, err := r.svc.Timeline(ctx, 5)
	if err != nil || len(days) != 5 {
		t.Fatalf("%+v %v", days, err)
	}
	last, first := days[4], days[2]
	if first.Added[memory.LayerRaw] != 1 || first.Added[memory.LayerFact] != 1 || days[3].Added[memory.LayerRaw] != 0 ||
		last.Added[memory.LayerRaw] != 1 || last.LLMCalls["extract"] != 1 {
		t.Fatalf("days: %+v", days)
	}
	if days[0].Date >= last.Date || len(last.Date) != 10 {
		t.Fatalf("dates: %s .. %s", days[0].Date, last.Date)
	}
	for _, bad := range []int{-1, 400} {
		if _, err := r.svc.Timeline(ctx, bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("days %d: %v", bad, err)
		}
	}
}
