package memory_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// jobRig learns, in three passes, that Alice worked at Acme from January
// 2024 and at Globex from March 2025 (which ends Acme), and with initech
// at Initech from September 2025 (which ends Globex). It returns the
// Globex facts.
func jobRig(t *testing.T, initech bool) (*rig, *scriptedConsolidator, []memory.Memory) {
	t.Helper()
	r, c := newConsolidateRig(t, consolidateCfg())
	job := func(to, from string, texts ...string) []memory.Memory {
		var facts []memory.Memory
		var ids []string
		for _, text := range texts {
			f := r.fact(t, text, "alice", r.turn(t, text+" (turn)", "alice"), date(from))
			facts, ids = append(facts, f), append(ids, f.ID)
		}
		c.set(reply(memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Alice", FromType: "person", To: to,
			ToType: "organization", Relation: "works at", Exclusive: true, ValidFrom: date(from), Evidence: ids}}}))
		if rep := r.consolidate(t); rep.Edges != 1 {
			t.Fatalf("learning %s: %+v", to, rep)
		}
		r.advance(time.Hour)
		return facts
	}
	job("Acme", "2024-01-01", "Alice works at Acme", "Alice joined Acme in January 2024")
	globex := job("Globex", "2025-03-01", "Alice works at Globex", "Alice started at Globex in March 2025")
	if initech {
		job("Initech", "2025-09-01", "Alice works at Initech", "Alice moved to Initech in September 2025")
	}
	return r, c, globex
}

// jobs is what Alice's graph holds now, as "Acme" or "Acme until
// 2025-03-01", and the relation rows recall offers.
func jobs(t *testing.T, r *rig) (held, rows []string) {
	t.Helper()
	names := map[string]string{}
	v, err := r.svc.GraphAsOf(context.Background(), memory.GraphQuery{UserID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range v.Nodes {
		names[n.ID] = n.Name
	}
	for _, e := range v.Edges {
		s := names[e.To]
		if !e.ValidTo.IsZero() {
			s += " until " + e.ValidTo.Format("2006-01-02")
		}
		held = append(held, s)
	}
	for _, m := range r.live(t, memory.LayerKnowledge, "alice") {
		rows = append(rows, m.Content)
	}
	slices.Sort(held)
	slices.Sort(rows)
	return held, rows
}

func TestGraph_WithdrawingARelationReopensTheOneItEnded(t *testing.T) {
	ctx := context.Background()
	retire := func(how string) func(*testing.T, *rig, []memory.Memory) {
		return func(t *testing.T, r *rig, facts []memory.Memory) {
			for _, f := range facts {
				if _, err := r.svc.Retire(ctx, f.ID, memory.RetireInput{How: how, Reason: "that was wrong"}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	deleted := func(t *testing.T, r *rig, facts []memory.Memory) {
		for _, f := range facts {
			if err := r.svc.Delete(ctx, f.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name              string
		initech           bool
		withdraw          func(*testing.T, *rig, []memory.Memory)
		wantHeld, wantRow []string
	}{
		{"forgotten", false, retire("forgotten"), []string{"Acme"}, []string{"Alice works at Acme"}},
		{"retired in the Atlas (dropped)", false, retire(""), []string{"Acme"}, []string{"Alice works at Acme"}},
		{"deleted", false, deleted, []string{"Acme"}, []string{"Alice works at Acme"}},
		// Replaced: Globex was true and changed since; Acme stays ended.
		{"replaced", false, retire("replaced"), []string{"Acme until 2025-03-01"}, nil},
		// Initech, begun after Globex, still ends Acme: at its own start.
		{"a later job ends it still", true, retire("forgotten"),
			[]string{"Acme until 2025-09-01", "Initech"}, []string{"Alice works at Initech"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _, globex := jobRig(t, c.initech)
			c.withdraw(t, r, globex)
			held, rows := jobs(t, r)
			if !slices.Equal(held, c.wantHeld) || !slices.Equal(rows, c.wantRow) {
				t.Errorf("after withdrawing Globex: held %q, rows %q; want %q, %q", held, rows, c.wantHeld, c.wantRow)
			}
			// Recall offers a row that came back (the index has it again).
			res, err := r.svc.Search(ctx, memory.SearchInput{Query: "where does Alice work", UserIDs: []string{"alice"}, Layer: string(memory.LayerKnowledge)})
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, h := range res.Hits {
				found = append(found, h.Memory.Content)
			}
			slices.Sort(found)
			if !slices.Equal(found, c.wantRow) {
				t.Errorf("recall of the relation rows: %q, want %q", found, c.wantRow)
			}
		})
	}
}

func TestGraph_RestoringTheWithdrawnRelationEndsTheReopenedOneAgain(t *testing.T) {
	ctx := context.Background()
	r, _, globex := jobRig(t, false)
	for _, f := range globex {
		if _, err := r.svc.Retire(ctx, f.ID, memory.RetireInput{How: "forgotten"}); err != nil {
			t.Fatal(err)
		}
	}
	r.advance(time.Hour)
	if _, err := r.svc.Restore(ctx, globex[0].ID); err != nil {
		t.Fatal(err)
	}
	held, rows := jobs(t, r)
	if want := []string{"Acme until 2025-03-01", "Globex"}; !slices.Equal(held, want) ||
		!slices.Equal(rows, []string{"Alice works at Globex"}) {
		t.Errorf("after restoring Globex: held %q, rows %q; want %q and the Globex row", held, rows, want)
	}
	// The belief history keeps every step: ended, reopened, ended again.
	h, err := r.svc.GraphHistory(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	var hows []string
	for _, rec := range h.Records {
		if rec.ExpiredHow != "" {
			hows = append(hows, rec.ExpiredHow)
		}
	}
	slices.Sort(hows)
	if want := []string{"ended", "ended", "evidence_retired", "reopened"}; !slices.Equal(hows, want) {
		t.Errorf("expired records: %q, want %q", hows, want)
	}
}
