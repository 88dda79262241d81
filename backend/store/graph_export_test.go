package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

var alice = memory.Owner{UserID: "alice"}

// learnOn learns "Alice <relation> <to>" on the evidence given, by the
// domain's rules, as of at.
func learnOn(t *testing.T, s *Store, to, relation string, exclusive bool, validFrom, at time.Time, evidence ...string) memory.GraphEdge {
	t.Helper()
	in := memory.RelationInput{Owner: alice, From: "Alice", To: to, Relation: relation, Exclusive: exclusive,
		ValidFrom: validFrom, Facts: evidence, At: at}
	e, err := s.LearnRelation(context.Background(), in, func(held []memory.GraphEdge, next memory.GraphEdge) memory.GraphPlan {
		return memory.PlanRelation(held, next, at)
	})
	if err != nil {
		t.Fatalf("learn %s %s: %v", relation, to, err)
	}
	return e
}

// fact is a live L3 fact of Alice's.
func fact(id, text string) memory.NewRow {
	return row(id, text, inLayer(memory.LayerFact), ownedBy("alice", ""))
}

// relationRow is the L5 row that states relation rel.
func relationRow(id, text, rel string) memory.NewRow {
	return row(id, text, inLayer(memory.LayerKnowledge), ownedBy("alice", ""), func(r *memory.NewRow) {
		r.Memory.Category = "relation"
		r.Memory.Metadata = map[string]string{memory.MetaRelation: rel}
	})
}

// exportOf is what an export of s carries to the store of an import: its
// rows, with their histories, and its graph.
func exportOf(t *testing.T, s *Store) memory.ImportSet {
	t.Helper()
	ctx := context.Background()
	var set memory.ImportSet
	if err := s.ScanExport(ctx, memory.Scope{}, true, func(r memory.ExportRow) error {
		set.Rows = append(set.Rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	g, err := s.GraphExport(ctx, memory.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	set.Graph = g
	return set
}

func importInto(t *testing.T, s *Store, set memory.ImportSet) {
	t.Helper()
	if _, err := s.ImportRows(context.Background(), set); err != nil {
		t.Fatalf("import: %v", err)
	}
}

// heldAndRows is what s holds of Alice's ("works at Acme", "works at Acme
// until 2024-01-01") and the texts of the live relation rows recall offers.
func heldAndRows(t *testing.T, s *Store) (held, rows []string) {
	t.Helper()
	ctx := context.Background()
	nodes, edges, err := s.GraphAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, n := range nodes {
		names[n.ID] = n.Name
	}
	held, rows = []string{}, []string{}
	for _, e := range edges {
		if !e.Held() {
			continue
		}
		h := e.Relation + " " + names[e.To]
		if !e.ValidTo.IsZero() {
			h += " until " + e.ValidTo.Format("2006-01-02")
		}
		held = append(held, h)
	}
	live, _, err := s.List(ctx, memory.ListFilter{Layers: []memory.Layer{memory.LayerKnowledge}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range live {
		rows = append(rows, m.Content)
	}
	slices.Sort(held)
	slices.Sort(rows)
	return held, rows
}

// Two HyAtlases each hold a job of Alice's with its live L5 row: Initech
// from 2023, Acme from 2024. Importing either into the other ends Initech
// where Acme began, and recall offers Acme alone as true now, whichever
// side the older job comes from (the rule of a pass that learns an older
// job late: its row is not offered as current).
func TestImportGraph_AnEndedJobsRowIsNotOfferedAsCurrent(t *testing.T) {
	job := func(t *testing.T, to, from string) *Store {
		s := openStore(t)
		insert(t, s, fact("f-"+to, "Alice works at "+to))
		rel := learnOn(t, s, to, "works at", true, date(from), date(from).AddDate(0, 1, 0), "f-"+to)
		insert(t, s, relationRow("r-"+to, "Alice works at "+to, rel.ID))
		return s
	}
	for _, c := range []struct{ name, into, from string }{
		{"the older job comes in", "Acme", "Initech"},
		{"the later job comes in", "Initech", "Acme"},
	} {
		t.Run(c.name, func(t *testing.T) {
			starts := map[string]string{"Acme": "2024-01-01", "Initech": "2023-01-01"}
			dst, src := job(t, c.into, starts[c.into]), job(t, c.from, starts[c.from])
			importInto(t, dst, exportOf(t, src))
			held, rows := heldAndRows(t, dst)
			if want := []string{"works at Acme", "works at Initech until 2024-01-01"}; !slices.Equal(held, want) {
				t.Errorf("held %q, want %q", held, want)
			}
			if want := []string{"Alice works at Acme"}; !slices.Equal(rows, want) {
				t.Errorf("live L5 rows %q, want %q: Initech ended when Acme began", rows, want)
			}
			if m := mustGet(t, dst, "r-Initech"); m.Live() || m.RetiredHow != memory.RetiredReplaced || m.RetireReason != memory.ReasonRelationEnded {
				t.Errorf("Initech's row: retired %q (%q), want replaced (%q)", m.RetiredHow, m.RetireReason, memory.ReasonRelationEnded)
			}
		})
	}
}

// An import never holds a relation that nothing live here backs: B took
// A's facts in an earlier import and retired one; A then learnt a relation
// on it (or on facts the export leaves out). Importing A's new export
// brings the relation's history, expired as its evidence is here (retired,
// or none at all), with its L5 row retired the same way, so neither the
// graph nor recall offers it, and a job it states ends no job held here.
// Restoring the fact holds it again, and retiring it again expires it, as
// for a relation learnt here.
func TestImportGraph_ARelationNothingLiveBacksIsNotHeld(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name       string
		to, rel    string
		exclusive  bool
		retired    bool // the fact is retired here before the import
		leftOut    bool // the export leaves the fact out
		wantHeld   []string
		wantRows   []string
		wantExpiry string // how the imported relation's record expired here
		wantReason string // why its row is retired
	}{
		{name: "its only fact is retired here", to: "Bob", rel: "knows", retired: true,
			wantHeld: []string{"works at Acme"}, wantRows: []string{"Alice works at Acme"},
			wantExpiry: memory.ExpiredEvidenceRetired, wantReason: reasonEvidenceRetired},
		{name: "a job whose only fact is retired here", to: "Globex", rel: "works at", exclusive: true, retired: true,
			wantHeld: []string{"works at Acme"}, wantRows: []string{"Alice works at Acme"},
			wantExpiry: memory.ExpiredEvidenceRetired, wantReason: reasonEvidenceRetired},
		{name: "its evidence is not in the export", to: "Bob", rel: "knows", leftOut: true,
			wantHeld: []string{"works at Acme"}, wantRows: []string{"Alice works at Acme"},
			wantExpiry: memory.ExpiredEvidenceDeleted, wantReason: reasonEvidenceDeleted},
		{name: "its fact is live here", to: "Bob", rel: "knows",
			wantHeld: []string{"knows Bob", "works at Acme"}, wantRows: []string{"Alice knows Bob", "Alice works at Acme"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := openStore(t), openStore(t)
			insert(t, a, fact("f", "Alice and "+c.to))
			insert(t, b, fact("f-acme", "Alice works at Acme"))
			acme := learnOn(t, b, "Acme", "works at", true, date("2024-01-01"), date("2024-02-01"), "f-acme")
			insert(t, b, relationRow("r-acme", "Alice works at Acme", acme.ID))
			if !c.leftOut {
				importInto(t, b, exportOf(t, a)) // B takes f
			}
			if c.retired {
				retire(t, b, "f")
			}
			rel := learnOn(t, a, c.to, c.rel, c.exclusive, date("2025-01-01"), date("2025-02-01"), "f")
			insert(t, a, relationRow("r", "Alice "+c.rel+" "+c.to, rel.ID))
			set := exportOf(t, a)
			if c.leftOut {
				set.Rows = slices.DeleteFunc(set.Rows, func(r memory.ExportRow) bool { return r.Memory.ID == "f" })
			}
			importInto(t, b, set)
			held, rows := heldAndRows(t, b)
			if !slices.Equal(held, c.wantHeld) || !slices.Equal(rows, c.wantRows) {
				t.Errorf("after the import: held %q, rows %q; want %q, %q", held, rows, c.wantHeld, c.wantRows)
			}
			if c.wantExpiry == "" {
				return
			}
			_, edges, err := b.GraphAll(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var how []string
			for _, e := range edges {
				if e.ID == rel.ID {
					how = append(how, e.ExpiredHow)
				}
			}
			if !slices.Equal(how, []string{c.wantExpiry}) {
				t.Errorf("the imported relation's records expired as %q, want %q", how, []string{c.wantExpiry})
			}
			if m := mustGet(t, b, "r"); m.Live() || m.RetiredHow != memory.RetiredDropped || m.RetireReason != c.wantReason {
				t.Errorf("its row: retired %q (%q), want dropped (%q)", m.RetiredHow, m.RetireReason, c.wantReason)
			}
			if !c.retired {
				return
			}
			if _, _, err := b.Restore(ctx, "f", time.Now()); err != nil {
				t.Fatal(err)
			}
			held, rows = heldAndRows(t, b)
			if !slices.Contains(held, c.rel+" "+c.to) || !slices.Contains(rows, "Alice "+c.rel+" "+c.to) {
				t.Errorf("after restoring f: held %q, rows %q; want the relation back", held, rows)
			}
			if _, _, err := b.Retire(ctx, "f", memory.Retirement{How: memory.RetiredDropped, Reason: "test", At: time.Now()}); err != nil {
				t.Fatal(err)
			}
			held, rows = heldAndRows(t, b)
			if slices.Contains(held, c.rel+" "+c.to) || slices.Contains(rows, "Alice "+c.rel+" "+c.to) {
				t.Errorf("after retiring f again: held %q, rows %q; want the relation gone", held, rows)
			}
		})
	}
}

func date(s string) time.Time {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return d
}
