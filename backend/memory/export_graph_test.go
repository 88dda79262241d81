package memory_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// graphHistory is the graph as it stood on both axes at a few moments.
func graphHistory(t *testing.T, r *rig) []string {
	t.Helper()
	var out []string
	for _, at := range []string{"2020-06-01", "2021-06-01", "2022-06-01", "2023-06-01", "2024-06-01", "2030-01-01"} {
		for _, axis := range []memory.GraphAxis{memory.AxisRecorded, memory.AxisValid} {
			got := edgesAt(t, r, axis, at)
			slices.Sort(got)
			out = append(out, string(axis)+" "+at+": "+strings.Join(got, "; "))
		}
	}
	return out
}

// TestExport_TheGraphRoundTrips: an export carries the knowledge graph
// with its history (every belief record, expired ones too) and evidence,
// the links between facts, and when each row last faded: the imported
// copy shows the graph as it stood at any moment on both axes exactly as
// the original does, and a row that faded yesterday does not fade again
// at once. Importing twice adds nothing; a relation learnt in both places
// is not held twice.
func TestExport_TheGraphRoundTrips(t *testing.T) {
	ctx := context.Background()
	a := graphRig(t)
	o := memory.Owner{UserID: "alice"}
	fact := func(r *rig, s string) string {
		return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: s, Owner: o}).ID
	}
	acme := fact(a, "Alice works at Acme")
	a.setClock(day("2020-02-01"))
	learnJob(t, a, o, "Acme", "2020-01-01", "2020-02-01", acme)
	globex := fact(a, "Alice moved to Globex")
	globexRel := learnJob(t, a, o, "Globex", "2022-01-01", "2022-02-01", globex)
	globexRow := a.put(t, memory.Memory{Layer: memory.LayerKnowledge, Content: "Alice works at Globex", Owner: o,
		Category: "relation", Metadata: map[string]string{memory.MetaRelation: globexRel.ID}})
	back := fact(a, "Alice went back to Acme")
	learnJob(t, a, o, "Acme", "2024-01-01", "2024-02-01", back) // a second stint: a relation of its own
	bob := fact(a, "Alice knows Bob from school")
	if _, err := a.svc.LearnRelation(ctx, memory.RelationInput{Owner: o, From: "Alice", To: "Bob", Relation: "knows",
		Facts: []string{bob}, At: day("2022-03-01")}); err != nil {
		t.Fatal(err)
	}
	a.setClock(day("2023-01-01"))
	if _, err := a.svc.Retire(ctx, bob, memory.RetireInput{Reason: "not true"}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rep, err := a.svc.Export(ctx, &buf, memory.ExportInput{Vectors: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Nodes != 4 || rep.Relations < 4 {
		t.Fatalf("export report %+v: want 4 entities and every record", rep)
	}
	export := buf.Bytes()

	c := graphRig(t)
	ir, err := c.svc.Import(ctx, bytes.NewReader(export))
	if err != nil {
		t.Fatal(err)
	}
	if ir.Graph.Nodes != 4 || ir.Graph.Relations != 4 {
		t.Errorf("import report %+v, want 4 entities and 4 relations", ir.Graph)
	}
	if want, got := graphHistory(t, a), graphHistory(t, c); !slices.Equal(want, got) {
		t.Errorf("the imported graph differs:\nwant %q\ngot  %q", want, got)
	}
	again, err := c.svc.Import(ctx, bytes.NewReader(export))
	if err != nil || again.Graph != (memory.GraphImportReport{}) {
		t.Errorf("a second import added %+v (%v)", again.Graph, err)
	}
	// A restore in the copy works on the imported evidence.
	if _, err := c.svc.Restore(ctx, bob); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := c.svc.GraphCounts(ctx); n != 4 { // Acme (ended, still believed), Globex (ended), Acme again, Bob
		t.Errorf("restoring the imported fact behind Alice knows Bob: %d held, want 4", n)
	}

	// B learnt that Alice works at Globex itself: the import joins the two
	// (Globex gains the imported evidence) instead of holding it twice.
	b := graphRig(t)
	own := fact(b, "Alice is at Globex now")
	mine, err := b.svc.LearnRelation(ctx, memory.RelationInput{Owner: o, From: "alice", To: "GLOBEX", Relation: "works at",
		Exclusive: true, Facts: []string{own}, At: day("2022-02-01")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.Import(ctx, bytes.NewReader(export)); err != nil {
		t.Fatal(err)
	}
	v, err := b.svc.GraphAsOf(ctx, memory.GraphQuery{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, n := range v.Nodes {
		names[n.ID] = strings.ToLower(n.Name)
	}
	works := 0
	for _, e := range v.Edges {
		if e.Relation == "works at" && names[e.To] == "globex" {
			works++
			if e.ID == mine.ID && !slices.Contains(e.Facts, globex) {
				t.Errorf("B's own relation did not gain the imported evidence: %v", e.Facts)
			}
		}
	}
	if works != 1 {
		t.Errorf("B holds Alice works at Globex %d times after the import, want once", works)
	}
	if got := b.get(t, globexRow.ID).Metadata[memory.MetaRelation]; got != mine.ID {
		t.Errorf("the imported L5 row states relation %q, want B's own %q", got, mine.ID)
	}
}

// TestImport_KeepsTheLastFade: a row that faded a day ago does not fade
// again right after it is imported (the fade is counted from the last
// one, which the export carries).
func TestImport_KeepsTheLastFade(t *testing.T) {
	ctx := context.Background()
	cfg := memory.Config{Strength: memory.DefaultStrengthConfig()}
	a := newRig(t, cfg)
	f := a.put(t, memory.Memory{Layer: memory.LayerFact, Content: "likes lowercase commits"})
	a.advance(14*24*time.Hour + time.Hour)
	if n, err := a.svc.DecayStrength(ctx); err != nil || n != 1 {
		t.Fatalf("fade on A: %d %v", n, err)
	}
	a.advance(24 * time.Hour)
	var buf bytes.Buffer
	if _, err := a.svc.Export(ctx, &buf, memory.ExportInput{Vectors: true}); err != nil {
		t.Fatal(err)
	}
	b := newRig(t, cfg)
	b.advance(15*24*time.Hour + time.Hour)
	if _, err := b.svc.Import(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	nA, _ := a.svc.DecayStrength(ctx)
	nB, _ := b.svc.DecayStrength(ctx)
	if nA != 0 || nB != 0 || b.get(t, f.ID).Strength != a.get(t, f.ID).Strength {
		t.Errorf("a day after a fade: the original faded %d, the imported copy %d (strength %.2f, want %.2f)",
			nA, nB, b.get(t, f.ID).Strength, a.get(t, f.ID).Strength)
	}
}
