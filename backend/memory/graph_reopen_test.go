package memory_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// job is one exclusive "works at" relation to learn: the company, its
// start, and the texts of its two facts.
type job struct {
	to, from string
	texts    [2]string
}

var (
	acme    = job{"Acme", "2024-01-01", [2]string{"Alice works at Acme", "Alice joined Acme in January 2024"}}
	globex  = job{"Globex", "2025-03-01", [2]string{"Alice works at Globex", "Alice started at Globex in March 2025"}}
	initech = job{"Initech", "2025-09-01", [2]string{"Alice works at Initech", "Alice moved to Initech in September 2025"}}
	// hooli arrives after Globex but began before it: it ends itself there.
	hooli = job{"Hooli", "2024-06-01", [2]string{"Alice works at Hooli", "Alice joined Hooli in June 2024"}}
	// acmeAgain is a return to Acme after Globex: a relation of its own.
	acmeAgain = job{"Acme", "2025-09-01", [2]string{"Alice is back at Acme", "Alice returned to Acme in September 2025"}}
)

// jobRig learns the jobs, a consolidation pass each, in order, and
// returns each one's facts by company.
func jobRig(t *testing.T, jobs ...job) (*rig, map[string][]memory.Memory) {
	t.Helper()
	r, c := newConsolidateRig(t, consolidateCfg())
	facts := map[string][]memory.Memory{}
	for _, j := range jobs {
		var ids []string
		for _, text := range j.texts {
			f := r.fact(t, text, "alice", r.turn(t, text+" (turn)", "alice"), date(j.from))
			facts[j.to], ids = append(facts[j.to], f), append(ids, f.ID)
		}
		c.set(reply(memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Alice", FromType: "person", To: j.to,
			ToType: "organization", Relation: "works at", Exclusive: true, ValidFrom: date(j.from), Evidence: ids}}}))
		if rep := r.consolidate(t); rep.Edges != 1 {
			t.Fatalf("learning %s: %+v", j.to, rep)
		}
		r.advance(time.Hour)
	}
	return r, facts
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
				if _, err := r.svc.Retire(ctx, f.ID, memory.RetireInput{How: how, Reason: "about Globex"}); err != nil {
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
		jobs              []job
		withdraw          func(*testing.T, *rig, []memory.Memory)
		wantHeld, wantRow []string
	}{
		{"never true (wrong)", []job{acme, globex}, retire("wrong"), []string{"Acme"}, []string{"Alice works at Acme"}},
		// Forgotten, retired in the Atlas (dropped), deleted or replaced:
		// Globex may have been true; Acme stays ended.
		{"forgotten", []job{acme, globex}, retire("forgotten"), []string{"Acme until 2025-03-01"}, nil},
		{"dropped", []job{acme, globex}, retire(""), []string{"Acme until 2025-03-01"}, nil},
		{"deleted", []job{acme, globex}, deleted, []string{"Acme until 2025-03-01"}, nil},
		{"replaced", []job{acme, globex}, retire("replaced"), []string{"Acme until 2025-03-01"}, nil},
		// Initech, begun after Globex, still ends Acme: at its own start.
		{"a later job ends it still", []job{acme, globex, initech}, retire("wrong"),
			[]string{"Acme until 2025-09-01", "Initech"}, []string{"Alice works at Initech"}},
		// Hooli arrived late and ended itself where Globex began; without
		// Globex it holds still, and Acme ends where Hooli began. Learnt
		// as ended, Hooli never had a relation row: it gets one now.
		{"a late job it bounded", []job{acme, globex, hooli}, retire("wrong"),
			[]string{"Acme until 2024-06-01", "Hooli"}, []string{"Alice works at Hooli"}},
		// Back at Acme from September: the first stint runs on to the
		// return, with no gap where Globex was.
		{"a return to the same place", []job{acme, globex, acmeAgain}, retire("wrong"),
			[]string{"Acme", "Acme until 2025-09-01"}, []string{"Alice works at Acme"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, facts := jobRig(t, c.jobs...)
			c.withdraw(t, r, facts["Globex"])
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

// Hooli (from June 2024) ended Acme and was bounded by Globex (from March
// 2025). Taken back one after the other, in either order, Acme is held
// again with no end.
func TestGraph_TwoWithdrawnJobsInEitherOrder(t *testing.T) {
	ctx := context.Background()
	for _, order := range [][]string{{"Hooli", "Globex"}, {"Globex", "Hooli"}} {
		r, facts := jobRig(t, acme, globex, hooli)
		for _, company := range order {
			for _, f := range facts[company] {
				if _, err := r.svc.Retire(ctx, f.ID, memory.RetireInput{How: "wrong"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		held, rows := jobs(t, r)
		if !slices.Equal(held, []string{"Acme"}) || !slices.Equal(rows, []string{"Alice works at Acme"}) {
			t.Errorf("after taking back %v: held %q, rows %q; want Acme alone", order, held, rows)
		}
	}
}

// Acme's facts were forgotten before Globex was taken back as never
// true: Acme is not held then, but restoring a fact of it holds it with
// no end, and its row comes back.
func TestGraph_ARelationNotHeldWhenItsEnderIsWithdrawnHoldsWithoutTheEndOnceRestored(t *testing.T) {
	ctx := context.Background()
	r, facts := jobRig(t, acme, globex)
	for _, step := range []struct {
		company, how string
	}{{"Acme", "forgotten"}, {"Globex", "wrong"}} {
		for _, f := range facts[step.company] {
			if _, err := r.svc.Retire(ctx, f.ID, memory.RetireInput{How: step.how}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if held, _ := jobs(t, r); len(held) != 0 {
		t.Fatalf("held with every fact retired: %q", held)
	}
	r.advance(time.Hour)
	if _, err := r.svc.Restore(ctx, facts["Acme"][0].ID); err != nil {
		t.Fatal(err)
	}
	held, rows := jobs(t, r)
	if !slices.Equal(held, []string{"Acme"}) || !slices.Equal(rows, []string{"Alice works at Acme"}) {
		t.Errorf("after restoring Acme: held %q, rows %q; want Acme with no end, and its row", held, rows)
	}
	// Its history (a record recorded and expired at once among them)
	// exports and imports.
	var buf bytes.Buffer
	if _, err := r.svc.Export(ctx, &buf, memory.ExportInput{}); err != nil {
		t.Fatal(err)
	}
	copyRig, _ := newConsolidateRig(t, consolidateCfg())
	if _, err := copyRig.svc.Import(ctx, &buf); err != nil {
		t.Fatalf("import of the history: %v", err)
	}
	copyRig.advance(4 * time.Hour) // the copy's clock: past the records' times
	if held, rows := jobs(t, copyRig); !slices.Equal(held, []string{"Acme"}) || !slices.Equal(rows, []string{"Alice works at Acme"}) {
		t.Errorf("the copy holds %q, rows %q", held, rows)
	}
}

// Acme is not held when Globex is taken back; what happens next decides
// how Acme holds once restored, as if it had been held all along.
func TestGraph_ARelationNotHeldFollowsItsEnder(t *testing.T) {
	ctx := context.Background()
	type step struct {
		company, how string // how "restore": restore the company's first fact
	}
	cases := []struct {
		name              string
		jobs              []job
		steps             []step
		wantHeld, wantRow []string
	}{
		// Globex was true after all, then forgotten: Acme ended at its start.
		{"its ender restored", []job{acme, globex},
			[]step{{"Acme", "forgotten"}, {"Globex", "wrong"}, {"Globex", "restore"}, {"Globex", "forgotten"}, {"Acme", "restore"}},
			[]string{"Acme until 2025-03-01"}, nil},
		// Hooli, learnt late (no row), not held when Globex was taken
		// back: restored, it holds with no end, and gets its row.
		{"a late job restored", []job{acme, globex, hooli},
			[]step{{"Hooli", "forgotten"}, {"Globex", "wrong"}, {"Hooli", "restore"}},
			[]string{"Acme until 2024-06-01", "Hooli"}, []string{"Alice works at Hooli"}},
		// Back at Acme from September: the first stint runs on to it.
		{"a return to the same place", []job{acme, globex, acmeAgain},
			[]step{{"Acme", "forgotten"}, {"Globex", "wrong"}, {"Acme", "restore"}},
			[]string{"Acme", "Acme until 2025-09-01"}, []string{"Alice works at Acme"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, facts := jobRig(t, c.jobs...)
			for _, st := range c.steps {
				r.advance(time.Minute)
				if st.how == "restore" {
					if _, err := r.svc.Restore(ctx, facts[st.company][0].ID); err != nil {
						t.Fatal(err)
					}
					continue
				}
				for _, f := range facts[st.company] {
					if f.Content == acmeAgain.texts[0] || f.Content == acmeAgain.texts[1] {
						continue // the company's first stint only
					}
					if _, err := r.svc.Retire(ctx, f.ID, memory.RetireInput{How: st.how}); err != nil && memory.ErrorCode(err) != memory.ECONFLICT {
						t.Fatal(err)
					}
				}
			}
			held, rows := jobs(t, r)
			if !slices.Equal(held, c.wantHeld) || !slices.Equal(rows, c.wantRow) {
				t.Errorf("held %q, rows %q; want %q, %q", held, rows, c.wantHeld, c.wantRow)
			}
		})
	}
}

func TestGraph_RestoringTheWithdrawnRelationEndsTheReopenedOneAgain(t *testing.T) {
	ctx := context.Background()
	r, facts := jobRig(t, acme, globex)
	for _, f := range facts["Globex"] {
		if _, err := r.svc.Retire(ctx, f.ID, memory.RetireInput{How: "wrong"}); err != nil {
			t.Fatal(err)
		}
	}
	r.advance(time.Hour)
	if _, err := r.svc.Restore(ctx, facts["Globex"][0].ID); err != nil {
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

// The row a late relation gets when it is held again is a relation row
// like a pass writes: dated from the relation's start, resting on its
// facts and turns, naming the relation, and written once (restoring
// Globex and taking it back again brings the same row back).
func TestGraph_AReopenedLateRelationGetsItsRowOnce(t *testing.T) {
	ctx := context.Background()
	r, facts := jobRig(t, acme, globex, hooli)
	withdraw := func() {
		for _, f := range facts["Globex"] {
			if _, err := r.svc.Retire(ctx, f.ID, memory.RetireInput{How: "wrong"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	withdraw()
	rows := r.live(t, memory.LayerKnowledge, "alice")
	if len(rows) != 1 {
		t.Fatalf("relation rows: %+v", rows)
	}
	row := rows[0]
	v, err := r.svc.GraphAsOf(ctx, memory.GraphQuery{UserID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	var hooliRel string
	for _, e := range v.Edges {
		if e.ValidTo.IsZero() {
			hooliRel = e.ID
		}
	}
	if row.Content != "Alice works at Hooli" || row.Metadata[memory.MetaRelation] != hooliRel || hooliRel == "" ||
		!row.EventAt.Equal(date(hooli.from)) || row.Source != memory.SourceConsolidation {
		t.Errorf("the row: %q relation %q (want %q) event %v source %q", row.Content, row.Metadata[memory.MetaRelation], hooliRel, row.EventAt, row.Source)
	}
	for _, f := range facts["Hooli"] {
		if !slices.Contains(row.SourceIDs, f.ID) {
			t.Errorf("the row's sources %q lack Hooli's fact %s", row.SourceIDs, f.ID)
		}
	}
	// Globex true after all (Hooli ends again, its row retires), then
	// taken back once more: the same row comes back, no second one.
	r.advance(time.Hour)
	if _, err := r.svc.Restore(ctx, facts["Globex"][0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Retire(ctx, facts["Globex"][0].ID, memory.RetireInput{How: "wrong"}); err != nil {
		t.Fatal(err)
	}
	held, got := jobs(t, r)
	if !slices.Equal(got, []string{"Alice works at Hooli"}) || !slices.Equal(held, []string{"Acme until 2024-06-01", "Hooli"}) {
		t.Errorf("after Globex restored and taken back: held %q, rows %q", held, got)
	}
	all, _, err := r.store.List(ctx, memory.ListFilter{Layers: []memory.Layer{memory.LayerKnowledge},
		Scope: memory.Scope{UserIDs: []string{"alice"}}, IncludeRetired: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range all {
		if m.Content == "Alice works at Hooli" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d Hooli rows, live or retired; want 1", n)
	}
}
