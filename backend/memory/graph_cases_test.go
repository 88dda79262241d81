package memory_test

// The knowledge graph against its rules (README, The knowledge graph), in
// cases a review found broken: an agent's history, a restore or a late
// relation that ends another, a re-import, an undone merge, an undated
// relation before a future one.

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// The graph history of one agent (GET /api/v1/graph/history
// with agent_id, the endpoint the README offers for a timeline that scrubs
// without asking again) lists that agent's records but not the entities
// they touch when another agent of the same person created them: a client
// drawing from it gets relations with dangling ends (the Mind Palace's
// listing would show "e2024..." instead of "Alice"), while
// /api/v1/graph-as-of for the same agent shows Alice. (The page itself
// asks by user_id only, where the person's nodes are covered.)
// Rule (README, The knowledge graph): "a view of one agent shows its own
// relations, with the entities they touch"; the API table: history gives
// "every nodes and every belief records" of the owner.
func TestGraph_HistoryOfOneAgentHasTheEntitiesItsRelationsTouch(t *testing.T) {
	r := personRig(t)
	ctx := context.Background()
	hermes, coder := memory.Owner{UserID: "amy", AgentID: "hermes"}, memory.Owner{UserID: "amy", AgentID: "coder"}
	learnStated(t, r, hermes, "Acme", "2024-01-01", "2024-02-01", "Alice works at Acme") // hermes makes Alice
	learnStated(t, r, coder, "Globex", "2025-01-01", "2025-02-01", "Alice moved to Globex")
	h, err := r.svc.GraphHistory(ctx, "amy", "coder")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, n := range h.Nodes {
		have[n.ID] = true
	}
	if len(h.Records) == 0 {
		t.Fatal("coder's history has no records")
	}
	for _, e := range h.Records {
		if !have[e.From] || !have[e.To] {
			t.Errorf("coder's history has record %s (%s) whose end is not among its %d nodes: the Mind Palace cannot draw it", e.ID, e.Relation, len(h.Nodes))
		}
	}
	// The same agent's graph-as-of draws it, with Alice.
	if edges, _ := viewOf(t, r, "amy", "coder", "2025-06-01"); len(edges) != 1 {
		t.Errorf("graph-as-of for coder: %v", edges)
	}
}

// Restoring a fact can hold its relation again and, by
// the rules, end another one (a restored "works at Acme" from March 2025
// ends "works at Globex", learnt meanwhile from 2024). The graph does, but
// Globex's L5 row stays live next to Acme's restored one: recall offers
// "Alice works at Globex" as true now while the graph says it ended.
// Rule (README, The knowledge graph): "when a later relation ends it, that
// row is retired as replaced (reversibly), so recall offers what is true
// now while the graph keeps the history"; a restore holds the relation
// again "by the same rules against what is held by then".
func TestGraph_ARestoreThatEndsARelationRetiresItsRow(t *testing.T) {
	ctx := context.Background()
	r, c := newConsolidateRig(t, consolidateCfg())
	works := func(to, from string, ids ...string) memory.ConsolidatePlan {
		return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Alice", To: to, Relation: "works at",
			Exclusive: true, ValidFrom: date(from), Evidence: ids}}}
	}
	a1 := r.fact(t, "Alice works at Acme", "alice", r.turn(t, "acme", "alice"), date("2025-03-01"))
	a2 := r.fact(t, "Alice is an Acme engineer", "alice", r.turn(t, "acme again", "alice"), date("2025-03-02"))
	c.set(reply(works("Acme", "2025-03-01", a1.ID, a2.ID)))
	r.consolidate(t)
	for _, id := range []string{a1.ID, a2.ID} {
		if _, err := r.svc.Retire(ctx, id, memory.RetireInput{Reason: "not sure"}); err != nil {
			t.Fatal(err)
		}
	}
	r.advance(time.Hour)
	g1 := r.fact(t, "Alice works at Globex", "alice", r.turn(t, "globex", "alice"), date("2024-01-01"))
	g2 := r.fact(t, "Alice joined Globex", "alice", r.turn(t, "globex again", "alice"), date("2024-01-02"))
	c.set(reply(works("Globex", "2024-01-01", g1.ID, g2.ID)))
	if rep := r.consolidate(t); rep.Edges != 1 {
		t.Fatalf("pass 2: %+v", rep)
	}
	r.advance(time.Hour)
	if _, err := r.svc.Restore(ctx, a1.ID); err != nil {
		t.Fatal(err)
	}
	held := heldRelations(t, r)
	var open []string
	for _, e := range held {
		if e.ValidTo.IsZero() {
			open = append(open, e.ID)
		}
	}
	if len(open) != 1 {
		t.Fatalf("after the restore %d open jobs are held, want Acme alone: %+v", len(open), held)
	}
	var texts []string
	for _, m := range r.live(t, memory.LayerKnowledge, "alice") {
		texts = append(texts, m.Content)
	}
	slices.Sort(texts)
	if !slices.Equal(texts, []string{"Alice works at Acme"}) {
		t.Errorf("live L5 rows after the restore: %q; the graph ended Globex, so recall should offer Acme alone", texts)
	}
}

// Restoring a fact behind a relation that a later one ended meanwhile
// holds it again as ended ("lived in Berlin" until the Paris move): the
// graph has it back in its history, and its L5 row stays retired, so
// recall offers Paris alone as where Alice lives now.
func TestGraph_ARestoredRelationThatHasEndedKeepsItsRowRetired(t *testing.T) {
	ctx := context.Background()
	r, c := newConsolidateRig(t, consolidateCfg())
	lives := func(to, from string, ids ...string) memory.ConsolidatePlan {
		return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Alice", To: to, Relation: "lives in",
			Exclusive: true, ValidFrom: date(from), Evidence: ids}}}
	}
	b1 := r.fact(t, "Alice lives in Berlin", "alice", r.turn(t, "berlin", "alice"), date("2020-01-01"))
	b2 := r.fact(t, "Alice has a flat in Berlin", "alice", r.turn(t, "berlin flat", "alice"), date("2020-01-02"))
	c.set(reply(lives("Berlin", "2020-01-01", b1.ID, b2.ID)))
	r.consolidate(t)
	for _, id := range []string{b1.ID, b2.ID} {
		if _, err := r.svc.Retire(ctx, id, memory.RetireInput{Reason: "not sure"}); err != nil {
			t.Fatal(err)
		}
	}
	r.advance(time.Hour)
	p1 := r.fact(t, "Alice lives in Paris since June 2024", "alice", r.turn(t, "paris", "alice"), date("2024-06-01"))
	p2 := r.fact(t, "Alice moved to Paris", "alice", r.turn(t, "paris move", "alice"), date("2024-06-02"))
	c.set(reply(lives("Paris", "2024-06-01", p1.ID, p2.ID)))
	if rep := r.consolidate(t); rep.Edges != 1 {
		t.Fatalf("pass 2: %+v", rep)
	}
	r.advance(time.Hour)
	if _, err := r.svc.Restore(ctx, b1.ID); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range r.live(t, memory.LayerKnowledge, "alice") {
		texts = append(texts, m.Content)
	}
	if !slices.Equal(texts, []string{"Alice lives in Paris"}) {
		t.Errorf("live L5 rows after the restore: %q; Berlin ended when Paris began, so recall should offer Paris alone", texts)
	}
	held := heldRelations(t, r)
	ended := slices.ContainsFunc(held, func(e memory.GraphEdge) bool { return e.To != "" && !e.ValidTo.IsZero() })
	if len(held) != 2 || !ended {
		t.Errorf("held after the restore: %+v, want Paris and Berlin ended", held)
	}
}

// Importing a newer export of an instance into a copy made
// from an older one: a relation the copy already has (same id) does not
// gain the evidence the original learnt since. The copy shows the
// relation with the old weight and facts, and retiring the old fact in the
// copy expires the relation although the imported fact still backs it.
// Rule (README, Export and import): "a relation it already has (the same
// id, or held here with the same ends) only gains the imported evidence".
func TestGraph_ReimportedRelationGainsTheNewEvidence(t *testing.T) {
	ctx := context.Background()
	o := memory.Owner{UserID: "alice"}
	a := graphRig(t)
	f1 := a.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice knows Bob from school", Owner: o}).ID
	learn := func(ev string) memory.GraphEdge {
		e, err := a.svc.LearnRelation(ctx, memory.RelationInput{Owner: o, From: "Alice", To: "Bob", Relation: "knows", Facts: []string{ev}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	rel := learn(f1)
	export := func() []byte {
		var buf bytes.Buffer
		if _, err := a.svc.Export(ctx, &buf, memory.ExportInput{}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	c := graphRig(t)
	if _, err := c.svc.Import(ctx, bytes.NewReader(export())); err != nil {
		t.Fatal(err)
	}
	f2 := a.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice and Bob are old friends", Owner: o}).ID
	if again := learn(f2); again.ID != rel.ID || len(again.Facts) != 2 {
		t.Fatalf("the original: %+v", again)
	}
	if _, err := c.svc.Import(ctx, bytes.NewReader(export())); err != nil {
		t.Fatal(err)
	}
	held := heldRelations(t, c)
	if len(held) != 1 || !slices.Contains(held[0].Facts, f2) {
		t.Errorf("the copy's relation after importing the newer export: %+v; want it to rest on %s too", held, f2)
	}
	if _, err := c.svc.Retire(ctx, f1, memory.RetireInput{Reason: "wrong"}); err != nil {
		t.Fatal(err)
	}
	if held := heldRelations(t, c); len(held) != 1 {
		t.Errorf("retiring the old fact in the copy expired the relation the imported fact still backs (held: %d)", len(held))
	}
}

// A pass that learns an older job late ("Alice worked at
// Initech from 2023", after "Alice works at Acme from 2024" is held) ends
// it in the graph where Acme began, yet writes its L5 row live: recall
// offers "Alice works at Initech" next to "Alice works at Acme" as if both
// were true now.
// Rule (README, The knowledge graph): "when a later relation ends it, that
// row is retired as replaced (reversibly), so recall offers what is true
// now while the graph keeps the history"; "An older relation learned late
// ends itself where the later one began".
func TestGraph_ALateOlderJobsRowIsNotOfferedAsCurrent(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	works := func(to, from string, ids ...string) memory.ConsolidatePlan {
		return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Alice", To: to, Relation: "works at",
			Exclusive: true, ValidFrom: date(from), Evidence: ids}}}
	}
	a1 := r.fact(t, "Alice works at Acme", "alice", r.turn(t, "acme", "alice"), date("2024-01-01"))
	a2 := r.fact(t, "Alice is an Acme engineer", "alice", r.turn(t, "acme again", "alice"), date("2024-01-02"))
	c.set(reply(works("Acme", "2024-01-01", a1.ID, a2.ID)))
	r.consolidate(t)
	r.advance(time.Hour)
	i1 := r.fact(t, "Alice worked at Initech", "alice", r.turn(t, "initech", "alice"), date("2023-01-01"))
	i2 := r.fact(t, "Alice was an Initech intern", "alice", r.turn(t, "initech again", "alice"), date("2023-01-02"))
	c.set(reply(works("Initech", "2023-01-01", i1.ID, i2.ID)))
	if rep := r.consolidate(t); rep.Edges != 1 {
		t.Fatalf("pass 2: %+v", rep)
	}
	if got := edgesAt(t, r, memory.AxisValid, "2025-01-01"); !slices.Equal(got, []string{"Alice works at Acme [2024-01-01, ?)"}) {
		t.Fatalf("valid axis 2025: %q", got)
	}
	var texts []string
	for _, m := range r.live(t, memory.LayerKnowledge, "alice") {
		texts = append(texts, m.Content)
	}
	slices.Sort(texts)
	if !slices.Equal(texts, []string{"Alice works at Acme"}) {
		t.Errorf("live L5 rows: %q; the graph ended Initech in 2024, so recall should offer Acme alone", texts)
	}
}

// A pass merges two facts and learns a relation on them
// in the same reply (the relation rests on the merged fact). The user then
// undoes the merge by restoring both facts: the merged fact is retired
// and the relation expires with its L5 row, although every fact that
// stated it is live again. The Mind Palace loses "Alice drinks green tea"
// and recall stops offering it.
// Rule (README): "A fact retired as updated, restated or merged passes its
// place as evidence to the fact that took over, so a relation outlives the
// versions of its facts"; "restoring every fact a merge took undoes the
// merge (the merged fact is retired)" - undoing a merge must leave things
// as they were, the relation included.
func TestGraph_UndoingAMergeKeepsTheRelationItsFactsState(t *testing.T) {
	ctx := context.Background()
	r, c := newConsolidateRig(t, consolidateCfg())
	f := r.aliceFacts(t)
	c.set(reply(memory.ConsolidatePlan{
		Merges: []memory.PlannedMerge{{IDs: []string{f.tea1.ID, f.tea2.ID}, Text: "Alice drinks green tea every morning"}},
		Edges:  []memory.PlannedEdge{teaEdge(f.tea1.ID, f.tea2.ID)},
	}))
	if rep := r.consolidate(t); rep.Merged != 2 || len(heldRelations(t, r)) != 1 {
		t.Fatalf("pass: %+v", rep)
	}
	for _, id := range []string{f.tea1.ID, f.tea2.ID} {
		if _, err := r.svc.Restore(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if !r.get(t, f.tea1.ID).Live() || !r.get(t, f.tea2.ID).Live() {
		t.Fatal("the originals are not back")
	}
	if held := heldRelations(t, r); len(held) != 1 {
		t.Errorf("after undoing the merge %d relations are held, want Alice drinks green tea (both facts stating it are live)", len(held))
	}
	if rows := r.live(t, memory.LayerKnowledge, "alice"); len(rows) != 1 {
		t.Errorf("after undoing the merge %d live L5 rows, want the relation's", len(rows))
	}
}

// A job known to start in the future ("Alice joins Globex
// on 2027-01-01", learnt in 2025) and then a job of unknown start learnt
// later in 2025 ("Alice works at Acme"): the undated one, which counts from
// when it was learnt (mid 2025), is treated as the later one and ends
// Globex at mid 2025, before Globex began: a record [2027-01-01,
// 2025-06-01) that no moment shows. The valid axis in 2027 says Alice works
// at Acme, and never shows Globex at all.
// Rule (README): "an unknown start counts from when the relation was first
// learned"; "An older relation learned late ends itself where the later
// one began"; "An older relation whose successor's start is unknown ends
// where the successor was first learned" (here the successor is Globex).
func TestGraph_AnUndatedJobDoesNotEndAFutureOneBeforeItBegins(t *testing.T) {
	r := graphRig(t)
	o := memory.Owner{UserID: "alice"}
	f := func(s string) string {
		return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: s, Owner: o}).ID
	}
	learnJob(t, r, o, "Globex", "2027-01-01", "2025-05-01", f("Alice joins Globex on 2027-01-01"))
	learnJob(t, r, o, "Acme", "", "2025-06-01", f("Alice works at Acme"))
	got := edgesAt(t, r, memory.AxisValid, "2027-06-01")
	t.Logf("valid axis 2027-06-01: %q; 2026-01-01: %q", got, edgesAt(t, r, memory.AxisValid, "2026-01-01"))
	if !slices.Equal(got, []string{"Alice works at Globex [2027-01-01, ?)"}) {
		t.Errorf("valid axis 2027-06-01: %q, want Globex (from 2027) alone", got)
	}
	for _, e := range heldRelations(t, r) {
		if !e.ValidTo.IsZero() && e.ValidTo.Before(e.Began()) {
			t.Errorf("record %s ends (%s) before it begins (%s)", e.ID, ymd(e.ValidTo), ymd(e.Began()))
		}
	}
}

// A relation learnt with a clock read earlier than the records it ends
// were recorded (two topics of one person in a parallel pass) is recorded
// after them: the recorded axis never shows a belief before HyAtlas
// learnt it (README: "recorded: the records held at ts, what the app
// believed then").
func TestGraph_NoBeliefIsShownBeforeItWasLearnt(t *testing.T) {
	r := graphRig(t)
	o := memory.Owner{UserID: "alice"}
	f := func(s string) string {
		return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: s, Owner: o}).ID
	}
	learnJob(t, r, o, "Globex", "2024-01-01", "2025-06-02", f("Alice works at Globex"))
	learnJob(t, r, o, "Initech", "2025-03-01", "2025-06-01", f("Alice moved to Initech"))
	if got := edgesAt(t, r, memory.AxisRecorded, "2025-06-01"); slices.ContainsFunc(got, func(s string) bool {
		return strings.Contains(s, "Globex")
	}) {
		t.Errorf("recorded axis 2025-06-01 (before Globex was learnt on 2025-06-02): %q", got)
	}
}

// An import that brings an exclusive relation (Alice works at Acme from
// 2024) into a HyAtlas that holds another of the same subject (Globex from
// 2023) keeps one job at a time, as learning it would (README: "facts can
// arrive in any order").
func TestGraph_ImportKeepsOneJobAtATime(t *testing.T) {
	ctx := context.Background()
	o := memory.Owner{UserID: "alice"}
	a := graphRig(t)
	acme := a.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Acme", Owner: o}).ID
	learnJob(t, a, o, "Acme", "2024-01-01", "2024-02-01", acme)
	var buf bytes.Buffer
	if _, err := a.svc.Export(ctx, &buf, memory.ExportInput{}); err != nil {
		t.Fatal(err)
	}
	b := graphRig(t)
	globex := b.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Globex", Owner: o}).ID
	learnJob(t, b, o, "Globex", "2023-01-01", "2023-02-01", globex)
	if _, err := b.svc.Import(ctx, bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	got := edgesAt(t, b, memory.AxisValid, "2025-01-01")
	if len(got) != 1 {
		t.Errorf("valid axis 2025-01-01 after the import: %q; Alice works at one place at a time (Acme from 2024 ends Globex)", got)
	}
}
