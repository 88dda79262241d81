package memory_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// pausable makes a rig's extraction pausable (the tray's Pause).
func pausable(p *atomic.Bool) func(*memory.Deps) {
	return func(d *memory.Deps) { d.Paused = p.Load }
}

// A pause during a catch-up run stops it before its next row: the rows it
// did not reach stay pending, with no try counted.
func TestCatchUp_StopsAtAPauseDuringTheRun(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.Sync = false // writes only queue: the run extracts them
	var paused atomic.Bool
	x := &scriptedExtractor{}
	r := newRig(t, cfg, func(d *memory.Deps) {
		d.Extractor = x
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
	}, pausable(&paused))
	x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) {
		paused.Store(true) // the person pauses while the first row's call runs
		return memory.ExtractPlan{}, nil
	})
	for i := range 5 {
		r.write(t, fmt.Sprintf("queued write %d", i), "u1")
	}
	r.advance(time.Hour)
	res, err := r.svc.CatchUp(context.Background(), 0)
	if err != nil || res.Tried != 1 || !errors.Is(res.Stopped, memory.ErrPaused) || len(res.Backlog) != 0 {
		t.Fatalf("run paused after its first row: %+v, %v", res, err)
	}
	if n := len(x.requests); n != 1 {
		t.Fatalf("%d calls, want 1", n)
	}
	if st, _ := r.svc.Stats(context.Background()); st.Unextracted != 4 {
		t.Fatalf("unextracted = %d, want the 4 rows not reached", st.Unextracted)
	}
}

// A pause during a scheduled consolidation pass stops its calls: the
// topics not called stay due and uncharged, and no cross-topic call is
// made. A pass asked for (Run a pass now) still runs while paused.
func TestConsolidate_ScheduledPassStopsAtAPause(t *testing.T) {
	cfg := consolidateCfg()
	cfg.Consolidate.Parallel = 1
	cfg.Consolidate.CrossEvery = 24 * time.Hour
	var paused atomic.Bool
	r, c := newConsolidateRig(t, cfg, pausable(&paused))
	r.chessPlayers(t, "alice", "bob", "carol")
	for i, text := range []string{"Alice plans her week on Sundays", "Alice reviews code before lunch",
		"Alice runs along the river at dawn", "Alice cooks batch meals on weekends"} {
		r.put(t, memory.Memory{Layer: memory.LayerSchema, Content: text, Owner: memory.Owner{UserID: "alice"},
			Metadata: map[string]string{memory.MetaTopic: []string{"c1", "c2"}[i/2]}})
	}
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		paused.Store(true) // the person pauses while the first topic's call runs
		return memory.ConsolidatePlan{}, nil
	})
	rep, err := r.svc.ConsolidateScheduled(context.Background())
	if err != nil || c.calls() != 1 || rep.ClustersRun != 1 || rep.ClustersPending != 2 || len(c.crosses) != 0 {
		t.Fatalf("a pass paused after its first call: %d calls, %d cross-topic, report %+v, %v", c.calls(), len(c.crosses), rep, err)
	}
	rep, err = r.svc.ConsolidateScheduled(context.Background())
	if err != nil || c.calls() != 1 || rep.ClustersPending != 2 {
		t.Fatalf("a scheduled pass while paused: %d calls, report %+v, %v", c.calls(), rep, err)
	}
	rep = r.consolidate(t) // asked for: runs while paused
	if c.calls() != 3 || rep.ClustersRun != 2 || len(c.crosses) != 1 {
		t.Fatalf("a pass asked for while paused: %d calls, %d cross-topic, report %+v", c.calls(), len(c.crosses), rep)
	}
}

// A pause during a housekeeping pass stops it before its next call: the
// episodes not reached stay due, the Now page stays marked.
func TestHousekeep_StopsAtAPauseDuringThePass(t *testing.T) {
	var paused atomic.Bool
	x := &scriptedExtractor{}
	r := newRig(t, extractCfg(), func(d *memory.Deps) {
		d.Extractor = x
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
	}, pausable(&paused))
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user is moving house", Label: "project_state"}}}))
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		paused.Store(true)
		return string(req.Kind) + " summary", nil
	}
	for _, u := range []string{"u1", "u2"} {
		r.write(t, "packing the kitchen", u)
		r.write(t, "the kitchen is packed", u)
	}
	r.advance(time.Hour)
	res, err := r.svc.Housekeep(context.Background())
	if err != nil || res.Episodes != 1 || res.NowPages != 0 || len(x.summaries) != 1 {
		t.Fatalf("a pass paused after its first call: %+v, %v, %d calls", res, err, len(x.summaries))
	}
	paused.Store(false)
	x.summarize = func(req memory.SummaryRequest) (string, error) { return string(req.Kind) + " summary", nil }
	if res, err := r.svc.Housekeep(context.Background()); err != nil || res.Episodes != 1 || res.NowPages != 2 {
		t.Fatalf("after the resume: %+v, %v; want the other episode and both pages", res, err)
	}
}

// "Run a pass now" while a scheduled pass runs and the person pauses: the
// asked-for call waits for that pass, which the pause stops, then runs a
// pass of its own, so every due topic is called as asked.
func TestConsolidate_APassAskedForDuringAHeldPassRunsItsOwn(t *testing.T) {
	cfg := consolidateCfg()
	cfg.Consolidate.Parallel = 1
	var paused atomic.Bool
	r, c := newConsolidateRig(t, cfg, pausable(&paused))
	r.chessPlayers(t, "alice", "bob", "carol")
	entered, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		if first.CompareAndSwap(false, true) {
			close(entered)
			<-release
		}
		return memory.ConsolidatePlan{}, nil
	})
	scheduled := make(chan error, 1)
	go func() { _, err := r.svc.ConsolidateScheduled(context.Background()); scheduled <- err }()
	<-entered
	paused.Store(true)
	joined := make(chan struct{})
	defer memory.PassJoined(func() { close(joined) })()
	asked := make(chan memory.ConsolidationReport, 1)
	go func() {
		rep, err := r.svc.Consolidate(context.Background())
		if err != nil {
			t.Error(err)
		}
		asked <- rep
	}()
	<-joined // it waits for the running pass
	close(release)
	if err := <-scheduled; err != nil {
		t.Fatal(err)
	}
	rep := <-asked
	if c.calls() != 3 || rep.ClustersPending != 0 {
		t.Fatalf("a pass asked for during a held one: %d calls, report %+v; want every topic called", c.calls(), rep)
	}
}
