package memory_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// aliceFacts stores the facts of the consolidation tests: two turns that
// say where Alice works, two that say the same thing about her tea, one
// bit of small talk.
type aliceFacts struct {
	job1, job2, tea1, tea2, chat memory.Memory
}

func (r *rig) aliceFacts(t *testing.T) aliceFacts {
	t.Helper()
	var f aliceFacts
	march := date("2025-03-01")
	f.job1 = r.fact(t, "Alice works at Globex as an engineer", "alice", r.turn(t, "I started at Globex", "alice"), march)
	f.job2 = r.fact(t, "Alice joined Globex in March 2025", "alice", r.turn(t, "Globex since March", "alice"), march.AddDate(0, 1, 0))
	f.tea1 = r.fact(t, "Alice drinks green tea every morning", "alice", r.turn(t, "tea time", "alice"), time.Time{})
	f.tea2 = r.fact(t, "Alice drinks green tea each morning", "alice", r.turn(t, "more tea", "alice"), time.Time{})
	f.chat = r.fact(t, "Alice said thanks for the help", "alice", r.turn(t, "thanks!", "alice"), time.Time{})
	return f
}

// goodPlan passes every guard: it merges the two tea facts, drops the
// small talk, and adds a pattern, a relation and the arc.
func (f aliceFacts) goodPlan() memory.ConsolidatePlan {
	return memory.ConsolidatePlan{
		Merges:  []memory.PlannedMerge{{IDs: []string{f.tea1.ID, f.tea2.ID}, Text: "Alice drinks green tea every morning"}},
		Drops:   []memory.PlannedDrop{{ID: f.chat.ID, Reason: "small talk"}},
		Schemas: []memory.PlannedSchema{{Text: "Alice keeps a morning tea ritual", Evidence: []string{f.tea1.ID, f.tea2.ID}}},
		Edges: []memory.PlannedEdge{{From: "Alice", FromType: "person", To: "Globex", ToType: "organization",
			Relation: "works at", Exclusive: true, Evidence: []string{f.job1.ID, f.job2.ID}}},
		Arc: "Alice is an engineer at Globex who starts her days with tea.",
	}
}

func TestConsolidateAppliesAGoodPlan(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	f := r.aliceFacts(t)
	c.set(reply(f.goodPlan()))
	rep := r.consolidate(t)
	if rep.ClustersRun != 1 || rep.Merged != 2 || rep.Dropped != 1 || rep.Schemas != 1 || rep.Edges != 1 || rep.Arc != 1 ||
		rep.FactsIn != 5 || rep.OwnersRun != 1 || rep.ClustersPending != 0 || len(rep.Errors) != 0 {
		t.Fatalf("report = %+v", rep)
	}
	req := c.requests[0]
	if len(req.Facts) != 5 || !req.Graph || req.Facts[0].ID != f.job1.ID || len(req.Facts[0].Turns) != 1 {
		t.Fatalf("request = %+v", req)
	}

	tea1, tea2 := r.get(t, f.tea1.ID), r.get(t, f.tea2.ID)
	if tea1.Live() || tea1.RetiredHow != memory.RetiredMerged || tea2.RetiredBy != tea1.RetiredBy {
		t.Fatalf("merged facts: %+v / %+v", tea1, tea2)
	}
	merged := r.get(t, tea1.RetiredBy)
	if !merged.Live() || merged.Layer != memory.LayerFact || merged.Metadata[memory.MetaCount] != "2" ||
		!slices.Contains(merged.SourceIDs, f.tea1.SourceIDs[0]) || !slices.Contains(merged.SourceIDs, f.tea2.SourceIDs[0]) {
		t.Fatalf("merged fact: %+v", merged)
	}
	chat := r.get(t, f.chat.ID)
	if chat.Live() || chat.RetiredHow != memory.RetiredDropped || chat.RetireReason != "small talk" {
		t.Fatalf("dropped fact: %+v", chat)
	}
	schemas := r.live(t, memory.LayerSchema, "alice")
	if len(schemas) != 1 || !slices.Equal(schemas[0].SourceIDs, []string{f.tea1.ID, f.tea2.ID}) {
		t.Fatalf("schemas: %+v", schemas)
	}
	knowledge := r.live(t, memory.LayerKnowledge, "alice")
	if len(knowledge) != 1 || knowledge[0].Content != "Alice works at Globex" {
		t.Fatalf("L5 rows: %+v", knowledge)
	}
	view, err := r.svc.GraphAsOf(context.Background(), memory.GraphQuery{UserID: "alice"})
	if err != nil || len(view.Edges) != 1 {
		t.Fatalf("graph: %+v, %v", view, err)
	}
	e := view.Edges[0]
	if !e.ValidFrom.Equal(date("2025-03-01")) || !e.Exclusive || len(e.Turns) != 2 || len(e.Facts) != 2 {
		t.Fatalf("edge: %+v", e)
	}
	arcs := r.live(t, memory.LayerSummary, "alice")
	if len(arcs) != 1 || arcs[0].Category != "arc" || !strings.Contains(arcs[0].Content, "Globex") {
		t.Fatalf("arc: %+v", arcs)
	}

	// Every retirement is reversible.
	for _, id := range []string{f.tea1.ID, f.chat.ID} {
		if m, err := r.svc.Restore(context.Background(), id); err != nil || !m.Live() {
			t.Fatalf("restore %s: %+v, %v", id, m, err)
		}
	}

	// Nothing joined since: the next pass calls nothing.
	rep = r.consolidate(t)
	if c.calls() != 1 || rep.ClustersRun != 0 || rep.OwnersUnchanged != 1 || rep.OwnersRun != 0 {
		t.Fatalf("second pass: %d calls, %+v", c.calls(), rep)
	}
	if st := r.svc.ConsolidationStatus(); st.Passes != 2 || st.Last == nil || st.Last.ClustersRun != 0 {
		t.Fatalf("status: %+v", st)
	}

	// A new fact makes the cluster due again; the arc is replaced.
	r.fact(t, "Alice moved to Lisbon", "alice", r.turn(t, "we moved", "alice"), time.Time{})
	c.set(reply(memory.ConsolidatePlan{Arc: "Alice, a Globex engineer, now lives in Lisbon."}))
	rep = r.consolidate(t)
	if rep.ClustersRun != 1 || rep.Arc != 1 || c.calls() != 2 {
		t.Fatalf("third pass: %+v", rep)
	}
	if c.requests[1].Arc == "" {
		t.Fatal("the current arc is not shown to the model")
	}
	arcs = r.live(t, memory.LayerSummary, "alice")
	if len(arcs) != 1 || !strings.Contains(arcs[0].Content, "Lisbon") {
		t.Fatalf("arc after the update: %+v", arcs)
	}
}

// A fact edited while the model thinks is neither merged nor dropped on
// the strength of its old text; the untouched ones still are.
func TestConsolidateLeavesFactsEditedDuringTheCall(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	f := r.aliceFacts(t)
	edited := "Alice switched to black coffee every morning"
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		if _, err := r.svc.Edit(context.Background(), f.tea2.ID, memory.EditInput{Content: &edited}); err != nil {
			return memory.ConsolidatePlan{}, err
		}
		return memory.ConsolidatePlan{
			Merges: []memory.PlannedMerge{{IDs: []string{f.tea1.ID, f.tea2.ID}, Text: "Alice drinks green tea every morning"}},
			Drops:  []memory.PlannedDrop{{ID: f.tea2.ID, Reason: "repeats tea1"}, {ID: f.chat.ID, Reason: "small talk"}},
		}, nil
	})
	rep := r.consolidate(t)
	if rep.Merged != 0 || rep.Dropped != 1 {
		t.Fatalf("report = %+v, want no merge and only the small talk dropped", rep)
	}
	if got := r.get(t, f.tea2.ID); !got.Live() || got.Content != edited {
		t.Errorf("the edited fact: %+v", got)
	}
	if got := r.get(t, f.tea1.ID); !got.Live() {
		t.Errorf("tea1 was merged with a fact that changed: %+v", got)
	}
	if got := r.get(t, f.chat.ID); got.Live() || got.RetiredHow != memory.RetiredDropped {
		t.Errorf("the untouched small talk was not dropped: %+v", got)
	}
}

func TestConsolidateGuards(t *testing.T) {
	type facts = aliceFacts
	edge := func(evidence ...string) memory.PlannedEdge {
		return memory.PlannedEdge{From: "Alice", To: "Globex", Relation: "works at", Evidence: evidence}
	}
	cases := []struct {
		name  string
		plan  func(f facts) memory.ConsolidatePlan
		check func(t *testing.T, r *rig, f facts, rep memory.ConsolidationReport)
	}{
		{"a merge with an invented id", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Merges: []memory.PlannedMerge{{IDs: []string{"m-invented", f.tea1.ID}, Text: "tea"}}}
		}, nothingRetired},
		{"a merge of one fact", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Merges: []memory.PlannedMerge{{IDs: []string{f.tea1.ID, f.tea1.ID}, Text: "tea"}}}
		}, nothingRetired},
		{"a merge of facts that are not similar", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Merges: []memory.PlannedMerge{{IDs: []string{f.job1.ID, f.tea1.ID}, Text: "Alice"}}}
		}, nothingRetired},
		{"a merge without text", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Merges: []memory.PlannedMerge{{IDs: []string{f.tea1.ID, f.tea2.ID}, Text: "  "}}}
		}, nothingRetired},
		{"a drop without a reason", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Drops: []memory.PlannedDrop{{ID: f.chat.ID, Reason: " "}}}
		}, nothingRetired},
		{"a drop of an invented id", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Drops: []memory.PlannedDrop{{ID: "m-invented", Reason: "gone"}}}
		}, nothingRetired},
		{"a fact merged and then dropped is only merged", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{
				Merges: []memory.PlannedMerge{{IDs: []string{f.tea1.ID, f.tea2.ID}, Text: "Alice drinks green tea every morning"}},
				Drops:  []memory.PlannedDrop{{ID: f.tea1.ID, Reason: "twice"}}}
		}, func(t *testing.T, r *rig, f facts, rep memory.ConsolidationReport) {
			if m := r.get(t, f.tea1.ID); m.RetiredHow != memory.RetiredMerged || rep.Merged != 2 || rep.Dropped != 0 {
				t.Errorf("tea1 %s, report %+v", m.RetiredHow, rep)
			}
		}},
		{"a schema with one fact behind it", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Schemas: []memory.PlannedSchema{{Text: "Alice likes tea", Evidence: []string{f.tea1.ID, "m-invented"}}}}
		}, noRows(memory.LayerSchema)},
		{"a schema that repeats a live one", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Schemas: []memory.PlannedSchema{
				{Text: "Alice keeps a morning tea ritual", Evidence: []string{f.tea1.ID, f.tea2.ID}},
				{Text: "Alice keeps a morning tea ritual.", Evidence: []string{f.tea1.ID, f.tea2.ID}}}}
		}, func(t *testing.T, r *rig, f facts, rep memory.ConsolidationReport) {
			if n := len(r.live(t, memory.LayerSchema, "alice")); n != 1 || rep.Schemas != 1 {
				t.Errorf("%d schemas, report %+v", n, rep)
			}
		}},
		{"a relation from one turn", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{edge(f.job1.ID)}}
		}, noRows(memory.LayerKnowledge)},
		{"a relation on invented ids", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{edge("m-1", "m-2", f.job1.ID)}}
		}, noRows(memory.LayerKnowledge)},
		{"a relation of a thing with itself", func(f facts) memory.ConsolidatePlan {
			e := edge(f.job1.ID, f.job2.ID)
			e.To = "alice"
			return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{e}}
		}, noRows(memory.LayerKnowledge)},
		{"a relation stated twice counts once", func(f facts) memory.ConsolidatePlan {
			return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{edge(f.job1.ID, f.job2.ID), edge(f.job2.ID, f.job1.ID)}}
		}, func(t *testing.T, r *rig, f facts, rep memory.ConsolidationReport) {
			if n := len(r.live(t, memory.LayerKnowledge, "alice")); n != 1 || rep.Edges != 1 {
				t.Errorf("%d L5 rows, report %+v", n, rep)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, c := newConsolidateRig(t, consolidateCfg())
			f := r.aliceFacts(t)
			c.set(reply(tc.plan(f)))
			rep := r.consolidate(t)
			if rep.ClustersRun != 1 || len(rep.Errors) != 0 {
				t.Fatalf("report = %+v", rep)
			}
			tc.check(t, r, f, rep)
			// The call succeeded: the cluster is not called again.
			if rep := r.consolidate(t); rep.ClustersRun != 0 || c.calls() != 1 {
				t.Errorf("second pass: %d calls, %+v", c.calls(), rep)
			}
		})
	}
}

// nothingRetired checks that every fact of the owner is still live.
func nothingRetired(t *testing.T, r *rig, f aliceFacts, rep memory.ConsolidationReport) {
	t.Helper()
	for _, m := range []memory.Memory{f.job1, f.job2, f.tea1, f.tea2, f.chat} {
		if !r.get(t, m.ID).Live() {
			t.Errorf("%q was retired", m.Content)
		}
	}
	if rep.Merged+rep.Dropped != 0 || len(r.live(t, memory.LayerFact, "alice")) != 5 {
		t.Errorf("report counts changes: %+v", rep)
	}
}

// noRows checks that nothing was written to layer.
func noRows(layer memory.Layer) func(*testing.T, *rig, aliceFacts, memory.ConsolidationReport) {
	return func(t *testing.T, r *rig, _ aliceFacts, rep memory.ConsolidationReport) {
		t.Helper()
		if rows := r.live(t, layer, "alice"); len(rows) != 0 || rep.Schemas+rep.Edges != 0 {
			t.Errorf("%s rows %+v, report %+v", layer.Title(), rows, rep)
		}
	}
}

func TestConsolidateFailurePolicy(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	r.aliceFacts(t)
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		return memory.ConsolidatePlan{}, fmt.Errorf("garbage: %w", memory.ErrUnparseable)
	})
	for pass := 1; pass <= memory.ClusterMaxFails; pass++ {
		rep := r.consolidate(t)
		if rep.ClustersRun != 0 || rep.ClustersPending != 1 || len(rep.Errors) != 1 || rep.ProviderDown {
			t.Fatalf("pass %d: %+v", pass, rep)
		}
	}
	if c.calls() != memory.ClusterMaxFails {
		t.Fatalf("%d calls", c.calls())
	}
	// Resting: listed, not called.
	rep := r.consolidate(t)
	if c.calls() != memory.ClusterMaxFails || rep.SkippedOwners != 1 || len(rep.Errors) != 1 ||
		!strings.Contains(rep.Errors[0], "skipped after 3 failed passes") {
		t.Fatalf("resting pass: %d calls, %+v", c.calls(), rep)
	}
	if due, err := r.svc.ConsolidationDue(context.Background()); err != nil || due {
		t.Fatalf("due while resting = %v, %v", due, err)
	}
	// A day later it is tried again.
	r.advance(memory.ClusterSkipFor)
	c.set(reply(memory.ConsolidatePlan{}))
	if rep := r.consolidate(t); rep.ClustersRun != 1 || c.calls() != memory.ClusterMaxFails+1 {
		t.Fatalf("a day later: %+v", rep)
	}

	// A fact that joins lifts the rest at once.
	r2, c2 := newConsolidateRig(t, consolidateCfg())
	r2.aliceFacts(t)
	c2.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		return memory.ConsolidatePlan{}, memory.ErrRejected
	})
	for range memory.ClusterMaxFails {
		r2.consolidate(t)
	}
	r2.fact(t, "Alice adopted a cat", "alice", r2.turn(t, "a cat!", "alice"), time.Time{})
	if rep := r2.consolidate(t); c2.calls() != memory.ClusterMaxFails+1 || rep.SkippedOwners != 0 {
		t.Fatalf("after a new fact: %d calls, %+v", c2.calls(), rep)
	}
}

func TestConsolidateProviderDownChargesNothing(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	for _, u := range []string{"alice", "bob"} {
		r.fact(t, u+" likes chess", u, r.turn(t, "chess", u), time.Time{})
		r.fact(t, u+" plays chess on Sundays", u, r.turn(t, "sunday chess", u), time.Time{})
	}
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		return memory.ConsolidatePlan{}, fmt.Errorf("503: %w", memory.ErrProvider)
	})
	for range memory.ClusterMaxFails + 1 {
		rep := r.consolidate(t)
		if !rep.ProviderDown || rep.ClustersPending != 2 || rep.OwnersRun != 2 {
			t.Fatalf("report = %+v", rep)
		}
	}
	// Nothing was charged: both are still called, none rests.
	if c.calls() != 2*(memory.ClusterMaxFails+1) {
		t.Fatalf("%d calls", c.calls())
	}
	c.set(reply(memory.ConsolidatePlan{}))
	if rep := r.consolidate(t); rep.ClustersRun != 2 || rep.ProviderDown {
		t.Fatalf("provider back: %+v", rep)
	}
}

// TestConsolidateProviderErrorOnALoneTopicChargesNothing: an endpoint
// down for any request, met by a pass with a single due topic, is not that
// topic's failure: it is called again every pass and does not rest. A
// failure of its own call (a timeout, a 5xx) is, and it rests after
// ClusterMaxFails.
func TestConsolidateProviderErrorOnALoneTopicChargesNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		calls int // after ClusterMaxFails+1 passes
	}{
		{"the endpoint is down", fmt.Errorf("connection refused: %w", memory.ErrEndpointDown), memory.ClusterMaxFails + 1},
		{"its own call timed out", fmt.Errorf("timeout: %w", memory.ErrProvider), memory.ClusterMaxFails},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, c := newConsolidateRig(t, consolidateCfg())
			r.aliceFacts(t)
			c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
				return memory.ConsolidatePlan{}, tc.err
			})
			for range memory.ClusterMaxFails + 1 {
				r.consolidate(t)
			}
			if c.calls() != tc.calls {
				t.Fatalf("%d calls, want %d", c.calls(), tc.calls)
			}
		})
	}
}

func TestConsolidateIsSingleFlight(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	r.aliceFacts(t)
	entered, release := make(chan struct{}), make(chan struct{})
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		close(entered)
		<-release
		return memory.ConsolidatePlan{}, nil
	})
	var wg sync.WaitGroup
	reports := make([]memory.ConsolidationReport, 2)
	wg.Add(1)
	go func() { defer wg.Done(); reports[0] = r.consolidate(t) }()
	<-entered
	wg.Add(1)
	go func() { defer wg.Done(); reports[1] = r.consolidate(t) }()
	time.Sleep(300 * time.Millisecond) // let the second caller join (a wait, not an assertion on time)
	close(release)
	wg.Wait()
	if c.calls() != 1 || reports[0].StartedAt != reports[1].StartedAt || reports[1].ClustersRun != 1 {
		t.Fatalf("%d calls, reports %+v", c.calls(), reports)
	}
}

func TestConsolidateNeedsUltra(t *testing.T) {
	cfg := consolidateCfg()
	cfg.Mode = memory.ModePro
	r, _ := newConsolidateRig(t, cfg)
	if _, err := r.svc.Consolidate(context.Background()); memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("err = %v", err)
	}
	if st := r.svc.ConsolidationStatus(); st.Passes != -1 {
		t.Fatalf("status = %+v", st)
	}
}

func TestConsolidateWithoutKeyCallsNothing(t *testing.T) {
	c := &scriptedConsolidator{}
	r := newRig(t, consolidateCfg(), func(d *memory.Deps) {
		d.Extractor = &scriptedExtractor{}
		d.LLMState = func() memory.LLMState { return memory.LLMAwaitingKey }
		d.Consolidator = c
		d.ConsolidationStore = d.ExtractStore.(memory.ConsolidationStore)
	})
	r.aliceFacts(t)
	rep := r.consolidate(t)
	if c.calls() != 0 || rep.ClustersPending != 1 || len(rep.Errors) != 1 {
		t.Fatalf("%d calls, %+v", c.calls(), rep)
	}
	if due, _ := r.svc.ConsolidationDue(context.Background()); !due {
		t.Fatal("the cluster is no longer due")
	}
}

// A relation that ends another (an exclusive one) retires the ended
// relation's L5 row as replaced; the graph keeps its history.
func TestConsolidateEndedRelationRetiresItsRow(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	acme1 := r.fact(t, "Alice works at Acme", "alice", r.turn(t, "acme", "alice"), date("2024-01-01"))
	acme2 := r.fact(t, "Alice is an Acme engineer", "alice", r.turn(t, "acme again", "alice"), date("2024-02-01"))
	works := func(to string, ids ...string) memory.ConsolidatePlan {
		return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Alice", To: to, Relation: "works at", Exclusive: true, Evidence: ids}}}
	}
	c.set(reply(works("Acme", acme1.ID, acme2.ID)))
	r.consolidate(t)
	old := r.live(t, memory.LayerKnowledge, "alice")
	if len(old) != 1 {
		t.Fatalf("L5 rows: %+v", old)
	}
	g1 := r.fact(t, "Alice works at Globex", "alice", r.turn(t, "globex", "alice"), date("2025-03-01"))
	g2 := r.fact(t, "Alice joined Globex", "alice", r.turn(t, "globex again", "alice"), date("2025-03-02"))
	c.set(reply(works("Globex", g1.ID, g2.ID)))
	if rep := r.consolidate(t); rep.Edges != 1 || len(rep.Errors) != 0 {
		t.Fatalf("report %+v", rep)
	}
	rows := r.live(t, memory.LayerKnowledge, "alice")
	if len(rows) != 1 || rows[0].Content != "Alice works at Globex" {
		t.Fatalf("live L5 rows: %+v", rows)
	}
	if m := r.get(t, old[0].ID); m.RetiredHow != memory.RetiredReplaced || m.RetiredBy != rows[0].ID {
		t.Fatalf("the ended relation's row: %+v", m)
	}
	v, err := r.svc.GraphAsOf(context.Background(), memory.GraphQuery{UserID: "alice", Axis: memory.AxisValid, At: date("2024-06-01")})
	if err != nil || len(v.Edges) != 1 || !v.Edges[0].ValidTo.Equal(date("2025-03-01")) {
		t.Fatalf("Acme in mid-2024, as known now: %+v, %v", v.Edges, err)
	}
}
