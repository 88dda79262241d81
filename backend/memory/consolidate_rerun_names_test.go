package memory_test

import (
	"testing"

	"hyatlas/backend/memory"
)

// A plan run again (its cluster's save was lost) whose relation names its
// ends with another case of a non-ASCII letter or other spacing finds the
// same relation, and its L5 row: no second row is written.
func TestConsolidateRerunWithRespeltNamesWritesNoSecondRow(t *testing.T) {
	r, c, flaky := newFlakyRig(t)
	f := r.aliceFacts(t)
	plan := func(from, to string) memory.ConsolidatePlan {
		return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: from, FromType: "person", To: to, ToType: "organization",
			Relation: "works at", Exclusive: true, Evidence: []string{f.job1.ID, f.job2.ID}}}}
	}
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		flaky.mu.Lock()
		flaky.fail = true // the plan's writes commit, the cluster's save does not
		flaky.mu.Unlock()
		return plan("Émile", "Globex Corp"), nil
	})
	if rep := r.consolidate(t); rep.Edges != 1 {
		t.Fatalf("first pass: %+v", rep)
	}
	flaky.mu.Lock()
	flaky.fail = false
	flaky.mu.Unlock()
	c.set(reply(plan("émile", "Globex  Corp")))
	if rep := r.consolidate(t); rep.Edges != 0 {
		t.Fatalf("the second pass learnt the relation again: %+v", rep)
	}
	if rows := r.live(t, memory.LayerKnowledge, "alice"); len(rows) != 1 {
		for _, m := range rows {
			t.Logf("L5 row %q", m.Content)
		}
		t.Fatalf("%d L5 rows, want 1", len(rows))
	}
}
