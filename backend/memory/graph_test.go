package memory_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func graphRig(t *testing.T) *rig {
	t.Helper()
	var r *rig
	r = newRig(t, memory.Config{}, func(d *memory.Deps) { d.GraphStore = d.Store.(memory.GraphStore) })
	return r
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// setClock makes the rig's clock read (about) at next.
func (r *rig) setClock(at time.Time) {
	r.clock.mu.Lock()
	r.clock.now = at.Add(-time.Second)
	r.clock.mu.Unlock()
}

// edgesAt describes the view at t on an axis as sorted "from relation to
// [valid_from, valid_to)" strings, with node names.
func edgesAt(t *testing.T, r *rig, axis memory.GraphAxis, at string) []string {
	t.Helper()
	v, err := r.svc.GraphAsOf(context.Background(), memory.GraphQuery{At: day(at), Axis: axis})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, n := range v.Nodes {
		names[n.ID] = n.Name
	}
	out := []string{}
	for _, e := range v.Edges {
		if names[e.From] == "" || names[e.To] == "" {
			t.Fatalf("%s %s: edge %s dangles", axis, at, e.ID)
		}
		out = append(out, names[e.From]+" "+e.Relation+" "+names[e.To]+" ["+ymd(e.ValidFrom)+", "+ymd(e.ValidTo)+")")
	}
	sort.Strings(out)
	return out
}

func ymd(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.Format("2006-01-02")
}

// The history: Alice works at Acme (from 2024-01), learned on
// 2024-02-01; Alice works at Globex (from 2025-03), learned on 2025-04-01;
// then an older job (Initech, from 2023-05) arrives late on 2025-05-01.
// The evidence of Globex is retired on 2025-07-01 and restored on
// 2025-08-01; the only evidence of Initech is deleted on 2025-09-01.
func TestGraph_Bitemporal(t *testing.T) {
	r := graphRig(t)
	ctx := context.Background()
	alice := memory.Owner{UserID: "alice"}
	fact := func(text string) memory.Memory {
		return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: text, Owner: alice})
	}
	acme, globex, initech := fact("Alice works at Acme"), fact("Alice works at Globex"), fact("Alice worked at Initech")
	turn := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "I started at Globex in March", Owner: alice})
	learn := func(to string, from, at string, evidence ...string) memory.GraphEdge {
		t.Helper()
		e, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: alice, From: "Alice", FromType: "person",
			To: to, ToType: "organization", Relation: "works at", Exclusive: true, ValidFrom: day(from),
			Facts: evidence, At: day(at)})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	learn("Acme", "2024-01-01", "2024-02-01", acme.ID)
	g := learn("Globex", "2025-03-01", "2025-04-01", globex.ID, turn.ID)
	if !slices.Equal(g.Facts, []string{globex.ID}) || !slices.Equal(g.Turns, []string{turn.ID}) {
		t.Fatalf("evidence: facts %v turns %v", g.Facts, g.Turns)
	}
	learn("Initech", "2023-05-01", "2025-05-01", initech.ID)
	// Stating a held relation again changes no record.
	if again := learn("Globex", "2025-03-01", "2025-05-02", globex.ID); again.ID != g.ID || !again.RecordedAt.Equal(g.RecordedAt) {
		t.Fatalf("recite made a new record: %+v, was %+v", again, g)
	}

	r.setClock(day("2025-07-01"))
	if _, err := r.svc.Retire(ctx, globex.ID, memory.RetireInput{Reason: "wrong"}); err != nil {
		t.Fatal(err)
	}
	r.setClock(day("2025-08-01"))
	if _, err := r.svc.Restore(ctx, globex.ID); err != nil {
		t.Fatal(err)
	}
	r.setClock(day("2025-09-01"))
	if err := r.svc.Delete(ctx, initech.ID); err != nil {
		t.Fatal(err)
	}

	acmeOpen := "Alice works at Acme [2024-01-01, ?)"
	acmeClosed := "Alice works at Acme [2024-01-01, 2025-03-01)"
	globexOpen := "Alice works at Globex [2025-03-01, ?)"
	initechClosed := "Alice works at Initech [2023-05-01, 2024-01-01)"
	cases := []struct {
		axis memory.GraphAxis
		at   string
		want []string
	}{
		{memory.AxisRecorded, "2024-01-15", []string{}},
		{memory.AxisRecorded, "2024-06-01", []string{acmeOpen}},
		{memory.AxisRecorded, "2025-04-15", []string{acmeClosed, globexOpen}},
		{memory.AxisRecorded, "2025-06-01", []string{acmeClosed, globexOpen, initechClosed}},
		{memory.AxisRecorded, "2025-07-15", []string{acmeClosed, initechClosed}},             // Globex's evidence retired
		{memory.AxisRecorded, "2025-08-15", []string{acmeClosed, globexOpen, initechClosed}}, // restored
		{memory.AxisRecorded, "2025-09-15", []string{acmeClosed, globexOpen}},                // Initech's evidence deleted
		{memory.AxisValid, "2023-04-01", []string{}},
		{memory.AxisValid, "2023-08-01", []string{}}, // Initech was true then, but its only evidence is gone
		{memory.AxisValid, "2024-06-01", []string{acmeClosed}},
		{memory.AxisValid, "2025-02-28", []string{acmeClosed}},
		{memory.AxisValid, "2025-03-01", []string{globexOpen}},
		{memory.AxisValid, "2026-01-01", []string{globexOpen}},
	}
	for _, tc := range cases {
		if got := edgesAt(t, r, tc.axis, tc.at); !slices.Equal(got, tc.want) {
			t.Errorf("%s as of %s:\n got %q\nwant %q", tc.axis, tc.at, got, tc.want)
		}
	}
}

// The late-arriving relation and the valid axis before a deletion: an
// older job known today shows on the valid axis at its own time.
func TestGraph_LateFactOnValidAxis(t *testing.T) {
	r := graphRig(t)
	ctx := context.Background()
	o := memory.Owner{UserID: "u"}
	f1 := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Bo lives in Oslo", Owner: o})
	f2 := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Bo lived in Rome", Owner: o})
	f3 := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Bo likes Rome", Owner: o})
	lives := func(city, from, at, ev string) {
		t.Helper()
		if _, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: o, From: "Bo", To: city, Relation: "Lives  in",
			Exclusive: true, ValidFrom: day(from), Facts: []string{ev}, At: day(at)}); err != nil {
			t.Fatal(err)
		}
	}
	lives("Oslo", "2022-01-01", "2024-01-01", f1.ID)
	lives("Rome", "2019-01-01", "2024-02-01", f2.ID)
	// A non-exclusive relation of another name ends nothing.
	if _, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: o, From: "Bo", To: "Rome", Relation: "likes",
		Facts: []string{f3.ID}, At: day("2024-03-01")}); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"2020-06-01": {"Bo lives in Rome [2019-01-01, 2022-01-01)"},
		"2023-06-01": {"Bo lives in Oslo [2022-01-01, ?)"},
		"2024-06-01": {"Bo likes Rome [?, ?)", "Bo lives in Oslo [2022-01-01, ?)"},
	}
	for at, w := range want {
		if got := edgesAt(t, r, memory.AxisValid, at); !slices.Equal(got, w) {
			t.Errorf("valid as of %s: got %q, want %q", at, got, w)
		}
	}
}

func TestGraph_BadRelationsChangeNothing(t *testing.T) {
	r := graphRig(t)
	ctx := context.Background()
	o := memory.Owner{UserID: "u"}
	f := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "x", Owner: o})
	good := memory.RelationInput{Owner: o, From: "A", To: "B", Relation: "knows", Facts: []string{f.ID}}
	cases := map[string]func(*memory.RelationInput){
		"no subject":        func(in *memory.RelationInput) { in.From = "  " },
		"no relation":       func(in *memory.RelationInput) { in.Relation = "" },
		"same entity":       func(in *memory.RelationInput) { in.To = "a" },
		"no evidence":       func(in *memory.RelationInput) { in.Facts = nil },
		"unknown evidence":  func(in *memory.RelationInput) { in.Facts = []string{"m-nope"} },
		"bad type":          func(in *memory.RelationInput) { in.FromType = "planet" },
		"long name":         func(in *memory.RelationInput) { in.To = strings.Repeat("b", 201) },
		"long relation":     func(in *memory.RelationInput) { in.Relation = strings.Repeat("r", 101) },
		"no owner":          func(in *memory.RelationInput) { in.Owner = memory.Owner{} },
		"too much evidence": func(in *memory.RelationInput) { in.Turns = make([]string, 200) },
	}
	for name, mutate := range cases {
		in := good
		mutate(&in)
		if _, err := r.svc.LearnRelation(ctx, in); err == nil {
			t.Errorf("%s: accepted", name)
		} else if code := memory.ErrorCode(err); code != memory.EINVALID {
			t.Errorf("%s: code %s (%v), want invalid", name, code, err)
		}
	}
	if n, e, err := r.svc.GraphCounts(ctx); err != nil || n != 0 || e != 0 {
		t.Fatalf("after refused relations: %d nodes, %d edges, %v", n, e, err)
	}
	if _, err := r.svc.LearnRelation(ctx, good); err != nil {
		t.Fatal(err)
	}
	if n, e, _ := r.svc.GraphCounts(ctx); n != 2 || e != 1 {
		t.Fatalf("after one relation: %d nodes, %d edges", n, e)
	}
}

// Graph-assisted recall over the knowledge graph: a fact one hop from a
// strong match (through an entity they share) comes along with a graph
// part; once its relation's evidence is retired, it no longer does.
func TestGraph_AssistsRecall(t *testing.T) {
	r := newRig(t, memory.Config{}, func(d *memory.Deps) {
		d.GraphStore = d.Store.(memory.GraphStore)
		d.Graph = d.Store.(memory.GraphReader)
	})
	ctx := context.Background()
	o := memory.Owner{UserID: "u1"}
	job := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Globex as a data engineer", Owner: o})
	office := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "the company headquarters sit in Berlin Mitte", Owner: o})
	r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "the bakery downstairs sells pretzels", Owner: o})
	for _, rel := range []memory.RelationInput{
		{Owner: o, From: "Alice", To: "Globex", Relation: "works at", Facts: []string{job.ID}},
		{Owner: o, From: "Globex", To: "Berlin", Relation: "based in", Facts: []string{office.ID}},
	} {
		if _, err := r.svc.LearnRelation(ctx, rel); err != nil {
			t.Fatal(err)
		}
	}
	graphPart := func() float64 {
		res := searchRes(t, r, memory.SearchInput{Query: "where does Alice work as a data engineer", Limit: 10, UserIDs: []string{"u1"}})
		for _, h := range res.Hits {
			if h.Memory.ID == office.ID {
				return h.Why.Graph
			}
		}
		return 0
	}
	if g := graphPart(); g <= 0 {
		t.Fatalf("the fact one hop away has graph part %v, want > 0", g)
	}
	if _, err := r.svc.Retire(ctx, office.ID, memory.RetireInput{}); err != nil {
		t.Fatal(err)
	}
	if g := graphPart(); g != 0 {
		t.Fatalf("a retired fact still comes through the graph (part %v)", g)
	}
}

// Deleting everything an owner has deletes their graph too (names of
// people and things must not outlive a wipe); other owners keep theirs.
func TestGraph_OwnerDeleteTakesTheGraph(t *testing.T) {
	r := graphRig(t)
	ctx := context.Background()
	for _, u := range []string{"alice", "bob"} {
		o := memory.Owner{UserID: u}
		f := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: u + " knows Carol", Owner: o})
		if _, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: o, From: u, To: "Carol", Relation: "knows", Facts: []string{f.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := r.svc.GraphAsOf(ctx, memory.GraphQuery{At: day("2030-01-01"), UserID: "alice"}); len(v.Edges) != 1 {
		t.Fatalf("alice's graph before her delete: %+v", v) // also loads the in-memory copy
	}
	if _, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{UserID: "alice"}); err != nil {
		t.Fatal(err)
	}
	if n, e, _ := r.svc.GraphCounts(ctx); n != 2 || e != 1 {
		t.Fatalf("after deleting alice: %d nodes, %d relations; want bob's 2 and 1", n, e)
	}
	v, err := r.svc.GraphAsOf(ctx, memory.GraphQuery{At: day("2030-01-01"), UserID: "alice"})
	if err != nil || len(v.Nodes)+len(v.Edges)+v.TotalEdges != 0 {
		t.Fatalf("alice's graph after her delete: %+v, %v", v, err)
	}
}
