package memory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
)

// TestHousekeep_AStopDoesNotLeaveTheNowPageStale: which Now pages wait for
// a rebuild is kept in memory; after a stop between a change and the next
// pass, the first pass of the new start finds the change and rebuilds the
// page, and leaves up-to-date pages alone.
func TestHousekeep_AStopDoesNotLeaveTheNowPageStale(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.NowEvery = time.Hour
	r, x := newExtractRig(t, cfg)
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Alice moved to Berlin in May", Label: "project_state"}}}))
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		return "Now: " + strings.Join(req.Texts, " | "), nil
	}
	ctx := context.Background()
	r.write(t, "Alice moved to Berlin in May", "u1")
	r.write(t, "Bob's only note", "u2")
	if res, err := r.svc.Housekeep(ctx); err != nil || res.NowPages != 2 {
		t.Fatalf("first pass: %+v %v", res, err)
	}
	// A fact written just before HyAtlas stopped, its page not rebuilt yet.
	r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Carol starts the Zephyr project tomorrow", Owner: memory.Owner{UserID: "u1"}})
	emb, _ := embed.NewHash(64)
	restarted, err := memory.NewService(cfg, memory.Deps{Store: r.store, Index: r.index, Embedder: emb, Now: r.clock.Now,
		ExtractStore: r.store, Extractor: x, LLMState: func() memory.LLMState { return memory.LLMOK }})
	if err != nil {
		t.Fatal(err)
	}
	r.advance(2 * time.Hour)
	res, err := restarted.Housekeep(ctx)
	if err != nil || res.NowPages != 1 {
		t.Fatalf("the first pass after the restart: %+v %v; want u1's page rebuilt, u2's left alone", res, err)
	}
	var page string
	for _, m := range r.live(t, memory.LayerSummary, "u1") {
		if m.Category == memory.CategoryNow {
			page = m.Content
		}
	}
	if !strings.Contains(page, "Zephyr") {
		t.Errorf("u1's Now page after the restart: %q; want the fact written before the stop", page)
	}
}
