package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// summaryCalls counts the calls of one kind the scripted extractor was asked.
func (x *scriptedExtractor) summaryCalls(kind memory.SummaryKind) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, req := range x.summaries {
		if req.Kind == kind {
			n++
		}
	}
	return n
}

// A Now page call that fails leaves no page, and is still not asked again
// before NowEvery has passed since it went out: not on every pass, nor on
// every new fact.
func TestNow_FailedCallWaitsNowEvery(t *testing.T) {
	r, x := newExtractRig(t, extractCfg()) // NowEvery 15m
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user is moving house", Label: "project_state"}}}))
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		return "", fmt.Errorf("503 from endpoint: %w", memory.ErrProvider)
	}
	ctx := context.Background()
	r.write(t, "moving house next month", "u1")
	for i := range 5 {
		if i == 2 {
			r.write(t, "the removal van is booked", "u1") // a new fact marks the page again
		}
		_, _ = r.svc.Housekeep(ctx)
		r.advance(time.Minute)
	}
	if n := x.summaryCalls(memory.SummaryNow); n != 1 {
		t.Fatalf("%d Now page calls in 5 minutes of failures, want 1", n)
	}
	x.summarize = func(req memory.SummaryRequest) (string, error) { return "moving house", nil }
	r.advance(15 * time.Minute)
	if res, err := r.svc.Housekeep(ctx); err != nil || res.NowPages != 1 {
		t.Fatalf("after NowEvery: %+v, %v; want the page", res, err)
	}
	if n := x.summaryCalls(memory.SummaryNow); n != 2 {
		t.Fatalf("%d Now page calls, want 2", n)
	}
}
