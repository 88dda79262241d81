package memory_test

// The rules that tie relations to the facts behind them and to their L5
// rows (memory/graph.go), each in a case that once broke them.

import (
	"context"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func learnJob(t *testing.T, r *rig, o memory.Owner, to, from, at string, facts ...string) memory.GraphEdge {
	t.Helper()
	var vf time.Time
	if from != "" {
		vf = day(from)
	}
	e, err := r.svc.LearnRelation(context.Background(), memory.RelationInput{Owner: o, From: "Alice", FromType: "person",
		To: to, ToType: "organization", Relation: "works at", Exclusive: true, ValidFrom: vf, Facts: facts, At: day(at)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Alice works at Acme (2020), moves to Globex (2022), returns to Acme
// (2024): the return is Acme holding again from 2024 (and ending Globex),
// not the ended Acme stated again.
func TestGraph_AJobTakenUpAgainHoldsAgain(t *testing.T) {
	r := graphRig(t)
	o := memory.Owner{UserID: "alice"}
	f := func(s string) string {
		return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: s, Owner: o}).ID
	}
	learnJob(t, r, o, "Acme", "2020-01-01", "2020-02-01", f("Alice works at Acme"))
	learnJob(t, r, o, "Globex", "2022-01-01", "2022-02-01", f("Alice moved to Globex"))
	learnJob(t, r, o, "Acme", "2024-01-01", "2024-02-01", f("Alice went back to Acme in 2024"))
	got := edgesAt(t, r, memory.AxisValid, "2025-01-01")
	t.Logf("valid axis 2025-01-01: %q", got)
	t.Logf("recorded axis 2025-01-01: %q", edgesAt(t, r, memory.AxisRecorded, "2025-01-01"))
	if !slices.Contains(got, "Alice works at Acme [2024-01-01, ?)") || slices.Contains(got, "Alice works at Globex [2022-01-01, ?)") {
		t.Errorf("after returning to Acme in 2024, the valid axis for 2025 should show Acme (from 2024) and not an open Globex")
	}
}

// A held relation of unknown start (learnt 2025-06) and an older one with
// a known start (2020) that arrives later: the older one ends where the
// held one began, which for an unknown start is when it was learnt; the
// held one is not ended in 2020.
func TestGraph_ALateOlderJobEndsWhereTheUndatedOneWasLearnt(t *testing.T) {
	r := graphRig(t)
	o := memory.Owner{UserID: "alice"}
	f := func(s string) string {
		return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: s, Owner: o}).ID
	}
	learnJob(t, r, o, "Globex", "", "2025-06-01", f("Alice works at Globex"))
	learnJob(t, r, o, "Acme", "2020-01-01", "2025-07-01", f("Alice worked at Acme from 2020"))
	got := edgesAt(t, r, memory.AxisValid, "2025-08-01")
	t.Logf("valid axis 2025-08-01: %q", got)
	t.Logf("valid axis 2021-01-01: %q", edgesAt(t, r, memory.AxisValid, "2021-01-01"))
	if !slices.Contains(got, "Alice works at Globex [?, ?)") {
		t.Errorf("Globex (current, start unknown) vanished from the valid axis after an older job arrived late")
	}
}

// Retire the only fact behind "works at Acme", learn "works at Globex"
// (nothing held to end), restore the Acme fact: Acme holds again by the
// rules, so an exclusive relation still has one object at a time.
func TestGraph_ARestoredFactHoldsItsRelationByTheRules(t *testing.T) {
	r := graphRig(t)
	ctx := context.Background()
	o := memory.Owner{UserID: "alice"}
	acme := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Acme", Owner: o})
	globex := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Globex", Owner: o})
	learnJob(t, r, o, "Acme", "2020-01-01", "2020-02-01", acme.ID)
	r.setClock(day("2021-01-01"))
	if _, err := r.svc.Retire(ctx, acme.ID, memory.RetireInput{Reason: "oops"}); err != nil {
		t.Fatal(err)
	}
	learnJob(t, r, o, "Globex", "2023-01-01", "2023-02-01", globex.ID)
	r.setClock(day("2024-01-01"))
	if _, err := r.svc.Restore(ctx, acme.ID); err != nil {
		t.Fatal(err)
	}
	// Acme is held again, ended where Globex began (it was true before).
	if got := edgesAt(t, r, memory.AxisValid, "2024-06-01"); !slices.Equal(got, []string{"Alice works at Globex [2023-01-01, ?)"}) {
		t.Errorf("valid axis 2024-06-01: %q, want Globex alone", got)
	}
	if got := edgesAt(t, r, memory.AxisValid, "2021-06-01"); !slices.Equal(got, []string{"Alice works at Acme [2020-01-01, 2023-01-01)"}) {
		t.Errorf("valid axis 2021-06-01: %q, want Acme held again until Globex began", got)
	}
}

// Retire the fact behind a relation, learn the same relation again from
// another fact (a new id), restore the first fact: it joins the relation
// held meanwhile instead of holding the same relation twice.
func TestGraph_ARestoredFactJoinsTheRelationLearntAgain(t *testing.T) {
	r := graphRig(t)
	ctx := context.Background()
	o := memory.Owner{UserID: "alice"}
	a := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice knows Bob from school", Owner: o})
	b := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice and Bob are old friends", Owner: o})
	learn := func(ev string) memory.GraphEdge {
		e, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: o, From: "Alice", To: "Bob", Relation: "knows", Facts: []string{ev}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e1 := learn(a.ID)
	if _, err := r.svc.Retire(ctx, a.ID, memory.RetireInput{}); err != nil {
		t.Fatal(err)
	}
	e2 := learn(b.ID)
	if _, err := r.svc.Restore(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	v, err := r.svc.GraphAsOf(ctx, memory.GraphQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Edges) != 1 || v.Edges[0].ID != e2.ID || !slices.Contains(v.Edges[0].Facts, a.ID) {
		t.Errorf("after the restore: %+v; want %s alone (not %s again), resting on the restored fact too", v.Edges, e2.ID, e1.ID)
	}
}

// A relation backed by facts A and B; B is retired (A keeps it held); A
// is deleted: no live fact backs it, so it expires, as retiring A would
// have done.
func TestGraph_DeletingTheLastLiveFactExpires(t *testing.T) {
	r := graphRig(t)
	ctx := context.Background()
	o := memory.Owner{UserID: "alice"}
	a := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Acme", Owner: o})
	b := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice is employed by Acme", Owner: o})
	learnJob(t, r, o, "Acme", "2020-01-01", "2020-02-01", a.ID, b.ID)
	if _, err := r.svc.Retire(ctx, b.ID, memory.RetireInput{}); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	v, _ := r.svc.GraphAsOf(ctx, memory.GraphQuery{})
	for _, e := range v.Edges {
		t.Logf("held: %s facts=%v (fact %s is retired)", e.ID, e.Facts, b.ID)
	}
	if len(v.Edges) != 0 {
		t.Errorf("relation still held with no live fact behind it")
	}
}

// A relation as consolidation writes it (facts and turns): deleting its
// fact expires it (as retiring it does); it does not live on on its turn.
func TestGraph_DeletingTheFactsExpiresARelationOnTurns(t *testing.T) {
	r := graphRig(t)
	ctx := context.Background()
	o := memory.Owner{UserID: "alice"}
	turn := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "I work at Acme", Owner: o})
	a := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Acme", Owner: o, SourceIDs: []string{turn.ID}})
	if _, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: o, From: "Alice", To: "Acme", Relation: "works at",
		Facts: []string{a.ID}, Turns: []string{turn.ID}}); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := r.svc.GraphCounts(ctx); n != 0 {
		t.Errorf("deleting the only fact leaves the relation held (%d) on its turn alone; retiring it would expire it", n)
	}
}

func heldRelations(t *testing.T, r *rig) []memory.GraphEdge {
	t.Helper()
	v, err := r.svc.GraphAsOf(context.Background(), memory.GraphQuery{UserID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	return v.Edges
}

func teaEdge(ids ...string) memory.PlannedEdge {
	return memory.PlannedEdge{From: "Alice", FromType: "person", To: "green tea", ToType: "concept", Relation: "drinks", Evidence: ids}
}

// Pass 1 learns "Alice drinks green tea" from tea1 and tea2; pass 2 merges
// them: the merged fact takes their place as the relation's evidence, so
// the relation and its L5 row stay.
func TestConsolidate_AMergeKeepsTheRelationItsFactsBacked(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	f := r.aliceFacts(t)
	c.set(reply(memory.ConsolidatePlan{Edges: []memory.PlannedEdge{teaEdge(f.tea1.ID, f.tea2.ID)}}))
	if rep := r.consolidate(t); rep.Edges != 1 {
		t.Fatalf("pass 1: %+v", rep)
	}
	if n := len(heldRelations(t, r)); n != 1 {
		t.Fatalf("held after pass 1: %d", n)
	}
	r.fact(t, "Alice bought a new kettle", "alice", r.turn(t, "kettle", "alice"), time.Time{})
	c.set(reply(memory.ConsolidatePlan{Merges: []memory.PlannedMerge{{IDs: []string{f.tea1.ID, f.tea2.ID}, Text: "Alice drinks green tea every morning"}}}))
	if rep := r.consolidate(t); rep.Merged != 2 {
		t.Fatalf("pass 2: %+v", rep)
	}
	held := heldRelations(t, r)
	l5 := r.live(t, memory.LayerKnowledge, "alice")
	if len(held) != 1 || len(l5) != 1 {
		t.Fatalf("after the merge: %d held relations, %d live L5 rows; want 1 and 1", len(held), len(l5))
	}
	if facts := held[0].Facts; !slices.ContainsFunc(facts, func(id string) bool { return r.get(t, id).Live() }) {
		t.Errorf("the relation rests on no live fact: %v", facts)
	}
}

// Retiring the last live fact behind a relation by hand retires its L5
// row too (recall must not offer what the graph no longer holds);
// restoring the fact brings both back; the vector index follows each step.
func TestGraph_ARelationsRowFollowsItsEvidence(t *testing.T) {
	ctx := context.Background()
	r, c := newConsolidateRig(t, consolidateCfg())
	f := r.aliceFacts(t)
	c.set(reply(memory.ConsolidatePlan{Edges: []memory.PlannedEdge{teaEdge(f.tea1.ID, f.tea2.ID)}}))
	if rep := r.consolidate(t); rep.Edges != 1 {
		t.Fatalf("pass: %+v", rep)
	}
	row := r.live(t, memory.LayerKnowledge, "alice")
	if len(row) != 1 {
		t.Fatalf("%d L5 rows", len(row))
	}
	steps := []struct {
		name      string
		do        func() error
		held, l5  int
		rowIsLive bool
	}{
		{"retire one fact", func() error { _, err := r.svc.Retire(ctx, f.tea1.ID, memory.RetireInput{Reason: "wrong"}); return err }, 1, 1, true},
		{"retire the other", func() error { _, err := r.svc.Retire(ctx, f.tea2.ID, memory.RetireInput{Reason: "wrong"}); return err }, 0, 0, false},
		// The first one retired, not the one whose retirement took the row.
		{"restore the first", func() error { _, err := r.svc.Restore(ctx, f.tea1.ID); return err }, 1, 1, true},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		held, l5 := heldRelations(t, r), r.live(t, memory.LayerKnowledge, "alice")
		if len(held) != st.held || len(l5) != st.l5 || r.get(t, row[0].ID).Live() != st.rowIsLive {
			t.Errorf("after %s: %d held, %d live L5 rows; want %d and %d", st.name, len(held), len(l5), st.held, st.l5)
		}
		if err := r.svc.Ready(ctx); err != nil {
			t.Errorf("after %s the index disagrees with the store: %v", st.name, err)
		}
		_, inIndex := r.index.Vector(row[0].ID)
		if inIndex != st.rowIsLive {
			t.Errorf("after %s the L5 row is in the vector index: %v, want %v", st.name, inIndex, st.rowIsLive)
		}
	}
}

// One reply merges tea1 and tea2 and proposes a relation on them: the
// relation rests on the merged fact, not on the two it retired.
func TestConsolidate_ARelationOnFactsMergedInTheSameReplyRestsOnTheMergedFact(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	f := r.aliceFacts(t)
	c.set(reply(memory.ConsolidatePlan{
		Merges: []memory.PlannedMerge{{IDs: []string{f.tea1.ID, f.tea2.ID}, Text: "Alice drinks green tea every morning"}},
		Edges:  []memory.PlannedEdge{teaEdge(f.tea1.ID, f.tea2.ID)},
	}))
	rep := r.consolidate(t)
	held := heldRelations(t, r)
	if rep.Merged != 2 || len(held) != 1 {
		t.Fatalf("report %+v, %d held relations; want the merge and one relation", rep, len(held))
	}
	for _, e := range held {
		live := 0
		for _, id := range e.Facts {
			if r.get(t, id).Live() {
				live++
			}
		}
		t.Logf("held %s facts %v (live %d)", e.ID, e.Facts, live)
		if live == 0 {
			t.Errorf("relation %s is held with no live fact behind it (rule: retiring the last fact expires it)", e.ID)
		}
	}
}

// Extraction states a fact again with more detail ("updates"), which
// retires the old version: the relation it backed stays, on the new one.
func TestExtract_AnUpdatedFactKeepsItsRelation(t *testing.T) {
	x := &scriptedExtractor{}
	cfg := extractCfg()
	r := newRig(t, cfg, func(d *memory.Deps) {
		d.Extractor = x
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
		d.GraphStore = d.ExtractStore.(memory.GraphStore)
	})
	ctx := context.Background()
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Alice works at Globex as an engineer", Label: "project_state"}}}))
	r.write(t, "I work at Globex as an engineer", "alice")
	facts := r.live(t, memory.LayerFact, "alice")
	if len(facts) != 1 {
		t.Fatalf("facts: %+v", facts)
	}
	turn2 := r.turn(t, "Globex, still", "alice")
	if _, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: memory.Owner{UserID: "alice"}, From: "Alice", To: "Globex",
		Relation: "works at", Exclusive: true, Facts: []string{facts[0].ID}, Turns: []string{turn2.ID}}); err != nil {
		t.Fatal(err)
	}
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		if len(req.RelatedFacts) == 0 {
			t.Fatalf("old fact not offered")
		}
		return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Alice works at Globex as an engineer", Label: "project_state",
			Updates: req.RelatedFacts[0].ID}}}, nil
	})
	r.write(t, "Still at Globex, still an engineer", "alice")
	old := r.get(t, facts[0].ID)
	t.Logf("old fact retired as %q; held relations %d", old.RetiredHow, len(heldRelations(t, r)))
	if len(heldRelations(t, r)) != 1 {
		t.Errorf("restating the fact behind 'Alice works at Globex' removed the relation from the graph")
	}
}

// flakyEmbedder fails once for one text.
type flakyEmbedder struct {
	memory.Embedder
	failText string
	failed   bool
}

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	for _, t := range texts {
		if t == f.failText && !f.failed {
			f.failed = true
			return nil, context.DeadlineExceeded
		}
	}
	return f.Embedder.Embed(ctx, texts, p)
}

// The relation is learnt, then writing its L5 row fails (here the
// embedding call; a crash at that point is the same): the next pass that
// proposes the relation writes the missing row.
func TestConsolidate_ARelationLeftWithoutItsRowGetsItNextPass(t *testing.T) {
	c := &scriptedConsolidator{}
	var fe *flakyEmbedder
	r := newRig(t, consolidateCfg(), func(d *memory.Deps) {
		d.Extractor = &scriptedExtractor{}
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
		d.Consolidator = c
		d.GraphStore = d.ExtractStore.(memory.GraphStore)
		d.ConsolidationStore = d.ExtractStore.(memory.ConsolidationStore)
		fe = &flakyEmbedder{Embedder: d.Embedder, failText: "Alice works at Globex"}
		d.Embedder = fe
	})
	f := r.aliceFacts(t)
	edge := memory.PlannedEdge{From: "Alice", To: "Globex", Relation: "works at", Exclusive: true, Evidence: []string{f.job1.ID, f.job2.ID}}
	c.set(reply(memory.ConsolidatePlan{Edges: []memory.PlannedEdge{edge}}))
	rep := r.consolidate(t)
	t.Logf("pass 1: edges %d errors %v", rep.Edges, rep.Errors)
	r.fact(t, "Alice starts at 9", "alice", r.turn(t, "nine", "alice"), time.Time{})
	rep = r.consolidate(t)
	t.Logf("pass 2: clusters %d edges %d errors %v", rep.ClustersRun, rep.Edges, rep.Errors)
	held, rows := heldRelations(t, r), r.live(t, memory.LayerKnowledge, "alice")
	if len(held) != 1 || len(rows) != 1 {
		t.Errorf("%d held relations, %d live L5 rows; want the relation and its row, written by the next pass", len(held), len(rows))
	}
}

// A preference fact's profile mirror follows it through curation by
// hand: retired with it, restored with it (when retired with it), deleted
// with it.
func TestCurate_APreferencesMirrorFollowsItsFact(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	ctx := context.Background()
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Alice prefers green tea in the morning", Label: memory.LabelUserPreferences}}}))
	r.write(t, "I prefer green tea in the morning", "alice")
	f1 := r.live(t, memory.LayerFact, "alice")[0]
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Alice prefers black tea in the morning",
			Label: memory.LabelUserPreferences, Replaces: []string{req.RelatedFacts[0].ID}}}}, nil
	})
	r.write(t, "Alice prefers black tea in the morning", "alice")
	f2 := r.live(t, memory.LayerFact, "alice")[0]
	if f2.ID == f1.ID || r.get(t, f1.ID).Live() {
		t.Fatalf("replace did not happen")
	}
	m1, m2 := f1.Metadata[memory.MetaMirror], f2.Metadata[memory.MetaMirror]

	// (a) the user retires the current preference in the Atlas.
	if _, err := r.svc.Retire(ctx, f2.ID, memory.RetireInput{Reason: "not true"}); err != nil {
		t.Fatal(err)
	}
	if r.get(t, m2).Live() {
		t.Errorf("(a) retiring preference fact %s left its profile mirror %s live", f2.ID, m2)
	}
	if _, err := r.svc.Restore(ctx, f2.ID); err != nil {
		t.Fatal(err)
	}
	// (b) the user restores the replaced version.
	if _, err := r.svc.Restore(ctx, f1.ID); err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, m := range r.live(t, memory.LayerFact, "alice") {
		live = append(live, m.Content)
	}
	t.Logf("(b) live facts after restoring the replaced version: %q; old mirror live=%v", live, r.get(t, m1).Live())
	if !r.get(t, m1).Live() {
		t.Errorf("(b) restoring fact %s did not restore its mirror %s (retired with it)", f1.ID, m1)
	}
	// (c) the user deletes the current preference.
	if err := r.svc.Delete(ctx, f2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Get(ctx, m2); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("(c) deleting preference fact %s left its mirror %s (it stays in the profile and the prompt block): %v", f2.ID, m2, err)
	}
}

// Merging two preference facts (each with its profile mirror), then
// restoring both originals, undoes the merge: the originals and their
// mirrors are back, the merged fact and its mirror are retired.
func TestConsolidate_RestoringWhatAMergeTookUndoesIt(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	a := memory.Owner{UserID: "alice"}
	mk := func(text string) (memory.Memory, memory.Memory) {
		src := r.turn(t, text, "alice")
		mir := r.put(t, memory.Memory{Layer: memory.LayerProfile, Content: text, Owner: a, Category: memory.CategoryPreference})
		f := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: text, Owner: a, Category: memory.CategoryPreference,
			SourceIDs: []string{src.ID}, Metadata: map[string]string{memory.MetaMirror: mir.ID, memory.MetaLabel: memory.LabelUserPreferences}})
		return f, mir
	}
	p1, m1 := mk("Alice prefers green tea every morning")
	p2, m2 := mk("Alice prefers green tea each morning")
	c.set(reply(memory.ConsolidatePlan{Merges: []memory.PlannedMerge{{IDs: []string{p1.ID, p2.ID}, Text: "Alice prefers green tea in the morning"}}}))
	if rep := r.consolidate(t); rep.Merged != 2 {
		t.Fatalf("merge did not happen: %+v", rep)
	}
	merged := r.live(t, memory.LayerFact, "alice")
	if len(merged) != 1 {
		t.Fatalf("%d live facts after the merge", len(merged))
	}
	ctx := context.Background()
	if _, err := r.svc.Restore(ctx, p1.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(r.live(t, memory.LayerFact, "alice")); n != 2 {
		t.Errorf("after restoring one original: %d live facts, want 2 (it and the merge)", n)
	}
	if _, err := r.svc.Restore(ctx, p2.ID); err != nil {
		t.Fatal(err)
	}
	facts, prof := r.live(t, memory.LayerFact, "alice"), r.live(t, memory.LayerProfile, "alice")
	if len(facts) != 2 || len(prof) != 2 || !r.get(t, m1.ID).Live() || !r.get(t, m2.ID).Live() || r.get(t, merged[0].ID).Live() {
		t.Errorf("after restoring both originals: %d facts, %d profile rows live; the merge live: %v",
			len(facts), len(prof), r.get(t, merged[0].ID).Live())
	}
	if err := r.svc.Ready(ctx); err != nil {
		t.Errorf("the index disagrees with the store: %v", err)
	}
}

// A memory retired by hand as merged into another, then restored, leaves
// that other one alone: only a merge consolidation made is undone.
func TestCurate_RestoringAHandMergeKeepsItsTarget(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, memory.Config{})
	a := memory.Owner{UserID: "alice"}
	x := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice likes tea", Owner: a})
	y := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice drinks green tea", Owner: a})
	if _, err := r.svc.Retire(ctx, x.ID, memory.RetireInput{How: "merged", By: y.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Restore(ctx, x.ID); err != nil {
		t.Fatal(err)
	}
	if !r.get(t, y.ID).Live() || !r.get(t, x.ID).Live() {
		t.Errorf("after the undo: %s live %v, %s live %v; want both", x.ID, r.get(t, x.ID).Live(), y.ID, r.get(t, y.ID).Live())
	}
}
