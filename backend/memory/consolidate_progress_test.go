package memory_test

// A pass's progress (events and stats) and its budget.

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// A pass tells live views where it stands: started, one progress event
// per cluster, done with the report.
func TestConsolidateProgressEvents(t *testing.T) {
	rec := &recorder{}
	c := &scriptedConsolidator{}
	r := newRig(t, consolidateCfg(), func(d *memory.Deps) {
		d.Events = rec
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
		d.Extractor = &scriptedExtractor{}
		d.Consolidator = c
		d.ConsolidationStore = d.ExtractStore.(memory.ConsolidationStore)
	})
	r.aliceFacts(t)
	r.consolidate(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var kinds []string
	for _, e := range rec.events {
		if strings.HasPrefix(e.Type, "consolidate.") {
			kinds = append(kinds, e.Type)
		}
	}
	if !slices.Equal(kinds, []string{"consolidate.started", "consolidate.progress", "consolidate.done"}) {
		t.Fatalf("events: %v", kinds)
	}
	last := rec.events[len(rec.events)-1]
	if rep, ok := last.Data.(memory.ConsolidationReport); !ok || rep.ClustersRun != 1 {
		t.Fatalf("done event: %+v", last)
	}
}

// A pass starts no call when less of its 10-minute budget is left than
// 1.25 times the median recent call (at least 3 minutes): with calls of 4
// minutes, the second starts at 4 (4 + 5 ≤ 10), the third would end after
// the budget; the rest wait for the next pass.
func TestConsolidateBudget(t *testing.T) {
	cfg := consolidateCfg()
	cfg.Consolidate.Parallel = 1
	r, c := newConsolidateRig(t, cfg)
	for _, u := range []string{"ann", "bob", "cat", "dan"} {
		r.fact(t, u+" plays chess", u, r.turn(t, "chess", u), time.Time{})
		r.fact(t, u+" plays chess on Sundays", u, r.turn(t, "sunday", u), time.Time{})
	}
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		r.advance(4 * time.Minute)
		return memory.ConsolidatePlan{}, nil
	})
	rep := r.consolidate(t)
	if rep.ClustersRun != 2 || rep.ClustersPending != 2 || c.calls() != 2 || !strings.Contains(strings.Join(rep.Errors, ";"), "budget") {
		t.Fatalf("report %+v", rep)
	}
	// The next pass takes the rest (and the estimate keeps it to two).
	if rep := r.consolidate(t); rep.ClustersRun != 2 || rep.ClustersPending != 0 {
		t.Fatalf("next pass: %+v", rep)
	}
}

// TestConsolidate_ProgressIsInTheStats: while a pass runs, the stats say
// so with how many topics are done of how many (the window shows it for a
// pass started by hand); once it ends, they say nothing runs.
func TestConsolidate_ProgressIsInTheStats(t *testing.T) {
	ctx := context.Background()
	r, c := newConsolidateRig(t, consolidateCfg())
	r.aliceFacts(t)
	inCall, release := make(chan struct{}), make(chan struct{})
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		close(inCall)
		<-release
		return memory.ConsolidatePlan{}, nil
	})
	done := make(chan error, 1)
	go func() {
		_, err := r.svc.Consolidate(ctx)
		done <- err
	}()
	<-inCall
	st, err := r.svc.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := st.Consolidating; !p.Running || p.Total != 1 || p.Done != 0 {
		t.Errorf("during the pass: %+v, want running, 0 of 1", p)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st, _ := r.svc.Stats(ctx); st.Consolidating.Running {
		t.Errorf("after the pass: %+v", st.Consolidating)
	}
}
