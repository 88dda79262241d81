package memory_test

// Consolidation runs per agent: what it derives from one agent's facts
// (topics, schemas, the arc) is that agent's, so recall never hands one
// agent what another agent was told.

import (
	"context"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// agentFact stores an L3 fact of alice written through agent, from a turn
// of that agent.
func (r *rig) agentFact(t *testing.T, agent, text string) memory.Memory {
	t.Helper()
	o := memory.Owner{UserID: "alice", AgentID: agent}
	turn := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: text, Owner: o, Extraction: memory.ExtractDone})
	return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: text, Owner: o, Category: memory.LabelProjectState,
		SourceIDs: []string{turn.ID}})
}

// schemaOfEveryCall answers each call with one schema citing all its facts.
func schemaOfEveryCall(req memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
	var ids []string
	for _, f := range req.Facts {
		ids = append(ids, f.ID)
	}
	return memory.ConsolidatePlan{Schemas: []memory.PlannedSchema{{Text: "Drinks green tea at work and at home", Evidence: ids}}}, nil
}

func TestConsolidation_EachAgentsTopicsAndSchemasAreItsOwn(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	facts := map[string][]string{} // agent -> its fact ids
	for _, x := range []struct{ agent, text string }{
		{"work", "Drinks green tea at work every morning"},
		{"work", "Drinks green tea at work after lunch"},
		{"home", "Drinks green tea at home every morning"},
		{"home", "Drinks green tea at home after dinner"},
		{"", "Drinks green tea at home on Sundays"},
		{"", "Drinks green tea at work on Mondays"},
	} {
		facts[x.agent] = append(facts[x.agent], r.agentFact(t, x.agent, x.text).ID)
	}
	c.set(schemaOfEveryCall)
	rep := r.consolidate(t)
	if rep.OwnersRun != 3 {
		t.Errorf("owners run: %d, want 3 (agents work and home, and alice herself): %+v", rep.OwnersRun, rep)
	}
	for _, req := range c.requests {
		var agents []string
		for _, f := range req.Facts {
			for agent, ids := range facts {
				if slices.Contains(ids, f.ID) && !slices.Contains(agents, agent) {
					agents = append(agents, agent)
				}
			}
		}
		if len(agents) != 1 {
			t.Errorf("one consolidation call holds the facts of agents %q", agents)
		}
	}
	for agent, ids := range facts {
		res, err := r.svc.List(context.Background(), memory.ListInput{UserID: "alice", AgentID: agent, Layer: string(memory.LayerSchema)})
		if err != nil {
			t.Fatal(err)
		}
		own := 0
		for _, m := range res.Memories {
			if m.Owner.AgentID != agent {
				continue
			}
			own++
			for _, id := range m.SourceIDs {
				if !slices.Contains(ids, id) {
					t.Errorf("agent %q's schema %q rests on fact %s of another agent", agent, m.Content, id)
				}
			}
		}
		if own != 1 {
			t.Errorf("agent %q has %d schemas of its own, want 1 (a like schema of another agent is no repeat)", agent, own)
		}
	}
	// The agent work recalls its own pattern, never the one home's facts gave.
	res, err := r.svc.Search(context.Background(), memory.SearchInput{UserIDs: []string{"alice"}, AgentID: "work", Query: "green tea at home", MinScore: new(0.0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Memory.Owner.AgentID == "home" || (h.Memory.Source == memory.SourceConsolidation && h.Memory.Owner.AgentID != "work") {
			t.Errorf("agent work recalls %s row %q of agent %q", h.Memory.Layer, h.Memory.Content, h.Memory.Owner.AgentID)
		}
	}
	if len(res.Hits) == 0 {
		t.Errorf("agent work recalls nothing for %q", "green tea at home")
	}
}

// The graph is the person's: a job one agent's facts show ends the job
// another agent's facts showed, and that agent's row for it is retired,
// so its recall stops offering the old job as current.
func TestConsolidation_AJobOneAgentLearnsEndsAnotherAgentsRow(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	acme := []string{r.agentFact(t, "work", "Alice works at Acme").ID, r.agentFact(t, "work", "Alice is an Acme engineer").ID}
	worksAt := func(req memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		to := "Globex"
		var ids []string
		for _, f := range req.Facts {
			ids = append(ids, f.ID)
			if slices.Contains(acme, f.ID) {
				to = "Acme"
			}
		}
		return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Alice", To: to, Relation: "works at", Exclusive: true, Evidence: ids}}}, nil
	}
	c.set(worksAt)
	r.consolidate(t)
	old := r.live(t, memory.LayerKnowledge, "alice")
	if len(old) != 1 || old[0].Owner.AgentID != "work" {
		t.Fatalf("L5 rows after agent work's pass: %+v", old)
	}
	r.advance(24 * time.Hour)
	r.agentFact(t, "home", "Alice works at Globex")
	r.agentFact(t, "home", "Alice joined Globex")
	if rep := r.consolidate(t); rep.Edges != 1 || len(rep.Errors) != 0 {
		t.Fatalf("report %+v", rep)
	}
	rows := r.live(t, memory.LayerKnowledge, "alice")
	if len(rows) != 1 || rows[0].Content != "Alice works at Globex" || rows[0].Owner.AgentID != "home" {
		t.Fatalf("live L5 rows: %+v", rows)
	}
	if m := r.get(t, old[0].ID); m.RetiredHow != memory.RetiredReplaced || m.RetiredBy != rows[0].ID {
		t.Fatalf("agent work's row of the ended job: %+v", m)
	}
}

// Within an alias group, a topic's rows are written under the user id of
// its newest fact, which moves between the group's ids: the relation the
// topic states again is the one held (it gains evidence), not a second
// record with a second row.
func TestConsolidation_AnAliasGroupStatesAHeldRelationAgain(t *testing.T) {
	cfg := consolidateCfg()
	cfg.Aliases = aliases(t, "alice,al")
	r, c := newConsolidateRig(t, cfg)
	c.set(func(req memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		var ids []string
		for _, f := range req.Facts {
			ids = append(ids, f.ID)
		}
		return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Zebra", To: "Rust", Relation: "uses", Evidence: ids}}}, nil
	})
	r.fact(t, "Project Zebra uses Rust", "al", r.turn(t, "zebra is rust", "al"), time.Time{})
	r.fact(t, "Project Zebra is written in Rust", "al", r.turn(t, "rust for zebra", "al"), time.Time{})
	if rep := r.consolidate(t); rep.Edges != 1 {
		t.Fatalf("first pass: %+v", rep)
	}
	r.fact(t, "Project Zebra keeps Rust for its core", "alice", r.turn(t, "core in rust", "alice"), time.Time{})
	rep := r.consolidate(t)
	if c.calls() != 2 || rep.Edges != 0 {
		t.Errorf("second pass: %d calls, %d relations learnt, want the held one stated again: %+v", c.calls(), rep.Edges, rep)
	}
	if rows := r.live(t, memory.LayerKnowledge, "alice"); len(rows) != 0 {
		t.Errorf("alice's relation rows: %+v", rows)
	}
	if rows := r.live(t, memory.LayerKnowledge, "al"); len(rows) != 1 {
		t.Errorf("the group's relation rows: %d, want 1", len(rows))
	}
}
