package memory_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// gatedEmbedder runs gate before embedding documents: a test holds a pass
// there, between learning its relations and writing their rows.
type gatedEmbedder struct {
	memory.Embedder
	gate func(texts []string)
}

func (g gatedEmbedder) Embed(ctx context.Context, texts []string, purpose memory.EmbedPurpose) ([][]float32, error) {
	if purpose == memory.PurposeDocument {
		g.gate(texts)
	}
	return g.Embedder.Embed(ctx, texts, purpose)
}

// waitFor polls cond for up to ten seconds and says whether it held.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// worksAt is an exclusive "works at" relation a reply proposes.
func worksAt(to, from string, ids ...string) memory.PlannedEdge {
	return memory.PlannedEdge{From: "Alice", FromType: "person", To: to, ToType: "organization", Relation: "works at",
		Exclusive: true, ValidFrom: date(from), Evidence: ids}
}

// One pass that learns two jobs, Acme (2020) and Globex (2024), ends Acme
// in the graph and offers Globex alone as true now, however the two come:
// in one reply (in either order) or from two topics of one pass whose
// calls run in parallel, the Acme topic writing its row after the Globex
// topic ended Acme. Acme's row, when there is one, is retired as replaced
// because the relation ended, as a later pass would have retired it: taking
// Globex back as never true brings Acme back to recall.
// Rule (README, The knowledge graph): "when a later relation ends it, that
// row is retired as replaced (reversibly), so recall offers what is true
// now while the graph keeps the history".
func TestConsolidate_TwoJobsOfOnePassOfferTheLaterOneAlone(t *testing.T) {
	ctx := context.Background()
	// oneReply learns both jobs from one reply, in the order given.
	oneReply := func(globexFirst bool) func(*testing.T) (*rig, []memory.Memory) {
		return func(t *testing.T) (*rig, []memory.Memory) {
			r, c := newConsolidateRig(t, consolidateCfg())
			a1 := r.fact(t, "Alice is employed by Acme", "alice", r.turn(t, "acme", "alice"), date("2020-01-01"))
			a2 := r.fact(t, "Alice is an Acme engineer", "alice", r.turn(t, "acme again", "alice"), date("2020-01-02"))
			g1 := r.fact(t, "Alice is employed by Globex", "alice", r.turn(t, "globex", "alice"), date("2024-01-01"))
			g2 := r.fact(t, "Alice joined Globex", "alice", r.turn(t, "globex again", "alice"), date("2024-01-02"))
			edges := []memory.PlannedEdge{worksAt("Acme", "2020-01-01", a1.ID, a2.ID), worksAt("Globex", "2024-01-01", g1.ID, g2.ID)}
			if globexFirst {
				slices.Reverse(edges)
			}
			c.set(reply(memory.ConsolidatePlan{Edges: edges}))
			if rep := r.consolidate(t); rep.Edges != 2 || len(rep.Errors) > 0 {
				t.Fatalf("pass: %+v", rep)
			}
			return r, []memory.Memory{g1, g2}
		}
	}
	// twoTopics learns each job from its own topic, in parallel: the Acme
	// topic learns Acme, then waits before its row is written until the
	// Globex topic has learnt Globex and written its row.
	twoTopics := func(t *testing.T) (*rig, []memory.Memory) {
		cfg := consolidateCfg()
		cfg.Consolidate.Batch = 2 // a topic each
		var r *rig
		var held atomic.Bool
		gate := func(texts []string) {
			if !slices.Contains(texts, "Alice works at Acme") {
				return
			}
			if !waitFor(func() bool {
				rows, _, err := r.store.List(ctx, memory.ListFilter{Layers: []memory.Layer{memory.LayerKnowledge},
					Scope: memory.Scope{UserIDs: []string{"alice"}}, Limit: 10})
				return err == nil && slices.ContainsFunc(rows, func(m memory.Memory) bool { return m.Content == "Alice works at Globex" })
			}) {
				t.Error("the Globex topic never wrote its row")
			}
			held.Store(true)
		}
		r, c := newConsolidateRig(t, cfg, func(d *memory.Deps) { d.Embedder = gatedEmbedder{d.Embedder, gate} })
		a1 := r.fact(t, "Alice is employed by Acme", "alice", r.turn(t, "acme", "alice"), date("2020-01-01"))
		a2 := r.fact(t, "Alice is an Acme engineer", "alice", r.turn(t, "acme again", "alice"), date("2020-01-02"))
		g1 := r.fact(t, "Alice is employed by Globex", "alice", r.turn(t, "globex", "alice"), date("2024-01-01"))
		g2 := r.fact(t, "Alice joined Globex", "alice", r.turn(t, "globex again", "alice"), date("2024-01-02"))
		c.set(func(req memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
			ids := map[string]bool{}
			for _, f := range req.Facts {
				ids[f.ID] = true
			}
			switch {
			case ids[a1.ID] && ids[a2.ID] && !ids[g1.ID]:
				return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{worksAt("Acme", "2020-01-01", a1.ID, a2.ID)}}, nil
			case ids[g1.ID] && ids[g2.ID] && !ids[a1.ID]:
				// Globex is learnt once Acme is held.
				if !waitFor(func() bool { _, n, err := r.svc.GraphCounts(ctx); return err == nil && n > 0 }) {
					t.Error("the Acme topic never learnt Acme")
				}
				return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{worksAt("Globex", "2024-01-01", g1.ID, g2.ID)}}, nil
			}
			t.Errorf("a topic of facts %v: want one topic per job", req.Facts)
			return memory.ConsolidatePlan{}, nil
		})
		if rep := r.consolidate(t); rep.ClustersRun != 2 || rep.Edges != 2 || len(rep.Errors) > 0 {
			t.Fatalf("pass: %+v", rep)
		}
		if !held.Load() {
			t.Fatal("the Acme topic's row was not held back: the case did not run")
		}
		return r, []memory.Memory{g1, g2}
	}
	cases := []struct {
		name string
		run  func(*testing.T) (*rig, []memory.Memory)
	}{
		{"one reply, the older job first", oneReply(false)},
		{"one reply, the newer job first", oneReply(true)},
		{"two topics of one pass in parallel", twoTopics},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, globex := c.run(t)
			held, rows := jobs(t, r)
			if want := []string{"Acme until 2024-01-01", "Globex"}; !slices.Equal(held, want) {
				t.Errorf("held %q, want %q", held, want)
			}
			if want := []string{"Alice works at Globex"}; !slices.Equal(rows, want) {
				t.Errorf("live L5 rows %q, want %q: the graph ended Acme in 2024", rows, want)
			}
			all, _, err := r.store.List(ctx, memory.ListFilter{Layers: []memory.Layer{memory.LayerKnowledge},
				Scope: memory.Scope{UserIDs: []string{"alice"}}, IncludeRetired: true, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range all {
				if strings.Contains(m.Content, "Acme") && (m.RetiredHow != memory.RetiredReplaced || m.RetireReason != memory.ReasonRelationEnded) {
					t.Errorf("Acme's row: retired %q (%q), want replaced (%q)", m.RetiredHow, m.RetireReason, memory.ReasonRelationEnded)
				}
			}
			for _, f := range globex {
				if _, err := r.svc.Retire(ctx, f.ID, memory.RetireInput{How: "wrong", Reason: "not Globex"}); err != nil {
					t.Fatal(err)
				}
			}
			if held, rows := jobs(t, r); !slices.Equal(held, []string{"Acme"}) || !slices.Equal(rows, []string{"Alice works at Acme"}) {
				t.Errorf("after taking Globex back: held %q, rows %q; want Acme alone", held, rows)
			}
		})
	}
}
