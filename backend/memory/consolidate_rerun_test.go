package memory_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// flakyClusters is the real cluster store with a switch that makes saves
// fail: the state a crash leaves between a plan's writes and the save of
// its cluster's progress.
type flakyClusters struct {
	memory.ConsolidationStore
	mu   sync.Mutex
	fail bool
}

func (f *flakyClusters) SaveClusters(ctx context.Context, owner string, c memory.OwnerClusters) error {
	f.mu.Lock()
	fail := f.fail
	f.mu.Unlock()
	if fail {
		return errors.New("disk I/O error")
	}
	return f.ConsolidationStore.SaveClusters(ctx, owner, c)
}

// newFlakyRig is a consolidation rig whose cluster saves fail while
// flaky.fail is set.
func newFlakyRig(t *testing.T) (*rig, *scriptedConsolidator, *flakyClusters) {
	t.Helper()
	c := &scriptedConsolidator{}
	flaky := &flakyClusters{}
	r := newRig(t, consolidateCfg(), func(d *memory.Deps) {
		d.Extractor = &scriptedExtractor{}
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
		d.Consolidator = c
		d.GraphStore = d.ExtractStore.(memory.GraphStore)
		flaky.ConsolidationStore = d.ExtractStore.(memory.ConsolidationStore)
		d.ConsolidationStore = flaky
	})
	return r, c, flaky
}

// A plan whose writes committed but whose cluster was never marked done
// (a crash, a failed save) runs again next pass. Running it again must
// not write anything twice: the merged and dropped facts are gone from
// the cluster, the pattern and the relation are already known.
func TestConsolidateRerunAfterALostClusterSaveWritesNothingTwice(t *testing.T) {
	r, c, flaky := newFlakyRig(t)
	f := r.aliceFacts(t)
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		flaky.mu.Lock()
		flaky.fail = true // the plan's writes commit, the cluster's save does not
		flaky.mu.Unlock()
		return f.goodPlan(), nil
	})
	rep := r.consolidate(t)
	if rep.Merged != 2 || rep.Dropped != 1 || rep.Schemas != 1 || rep.Edges != 1 || len(rep.Errors) == 0 {
		t.Fatalf("first pass: %+v", rep)
	}
	flaky.mu.Lock()
	flaky.fail = false
	flaky.mu.Unlock()
	c.set(reply(f.goodPlan())) // the model answers the same again

	rep = r.consolidate(t)
	if rep.Merged != 0 || rep.Dropped != 0 || rep.Schemas != 0 || rep.Edges != 0 {
		t.Fatalf("the second pass wrote again: %+v", rep)
	}
	if schemas := r.live(t, memory.LayerSchema, "alice"); len(schemas) != 1 {
		t.Fatalf("schemas: %+v", schemas)
	}
	if rows := r.live(t, memory.LayerKnowledge, "alice"); len(rows) != 1 {
		t.Fatalf("L5 rows: %+v", rows)
	}
	if arcs := r.live(t, memory.LayerSummary, "alice"); len(arcs) != 1 {
		t.Fatalf("arcs: %+v", arcs)
	}
	view, err := r.svc.GraphAsOf(context.Background(), memory.GraphQuery{UserID: "alice"})
	if err != nil || len(view.Edges) != 1 {
		t.Fatalf("graph: %+v, %v", view, err)
	}
	facts := r.live(t, memory.LayerFact, "alice")
	if len(facts) != 3 { // the two job facts and the merged tea fact
		t.Fatalf("live facts: %d", len(facts))
	}
	// Once saved, nothing is due.
	calls := c.calls()
	if rep = r.consolidate(t); rep.ClustersRun != 0 || c.calls() != calls {
		t.Fatalf("third pass: %d calls, %+v", c.calls()-calls, rep)
	}
}

// An arc the model tells again word for word is not written again: the
// held one stays (same row, no replaced version), and the report counts
// no arc.
func TestConsolidateKeepsAnArcToldAgain(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	r.aliceFacts(t)
	c.set(reply(memory.ConsolidatePlan{Arc: "Alice, a Globex engineer, drinks green tea."}))
	if rep := r.consolidate(t); rep.Arc != 1 {
		t.Fatalf("first pass: %+v", rep)
	}
	first := r.live(t, memory.LayerSummary, "alice")
	r.fact(t, "Alice drinks green tea at noon too", "alice", r.turn(t, "more tea", "alice"), time.Time{})
	if rep := r.consolidate(t); rep.ClustersRun != 1 || rep.Arc != 0 {
		t.Fatalf("second pass: %+v, want the cluster run and no arc written", rep)
	}
	if now := r.live(t, memory.LayerSummary, "alice"); len(now) != 1 || len(first) != 1 || now[0].ID != first[0].ID {
		t.Errorf("arcs after the same story again: %+v, want the first one kept", now)
	}
}
