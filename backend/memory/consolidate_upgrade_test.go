package memory_test

// A store consolidated before consolidation ran per agent: what it kept
// carries over, and what it derived under one agent from facts that agent
// was not told is retired and written again from the agent's own.

import (
	"context"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// derived stores a consolidation row of alice's agent work.
func (r *rig) derived(t *testing.T, layer memory.Layer, category, text, topic string, sources ...string) memory.Memory {
	t.Helper()
	meta := map[string]string{"topic": topic}
	if category == "arc" {
		meta = map[string]string{"arc": "true"}
	}
	return r.put(t, memory.Memory{Layer: layer, Content: text, Owner: memory.Owner{UserID: "alice", AgentID: "work"},
		Category: category, Source: memory.SourceConsolidation, SourceIDs: sources, Metadata: meta})
}

// The first pass keeps the topics already called; it retires what agent
// work holds but rests on agent home's facts (a pattern, a relation row
// citing home's turn, the arc of them all), keeps work's own pattern and
// a row the user restored before, and calls again only the topic whose
// rows it retired, shown work's facts and own pattern, and no arc.
func TestConsolidation_AnUpgradeKeepsTheTopicsAlreadyCalled(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	ctx := context.Background()
	w1 := r.agentFact(t, "work", "Drinks green tea at work every morning")
	w2 := r.agentFact(t, "work", "Drinks green tea at work after lunch")
	h1 := r.agentFact(t, "home", "Drinks green tea at home every morning")
	w4 := r.agentFact(t, "work", "Reviews pull requests on Fridays")
	w5 := r.agentFact(t, "work", "Reviews pull requests before the release")
	old := memory.OwnerClusters{NextSeq: 2, ClusteredAt: time.Now(), Clusters: []memory.Cluster{
		{ID: "c1", Members: []string{w1.ID, w2.ID, h1.ID}, OKAt: time.Now()},
		{ID: "c2", Members: []string{w4.ID, w5.ID}, OKAt: time.Now()},
	}}
	if err := r.store.SaveClusters(ctx, "alice", old); err != nil {
		t.Fatal(err)
	}
	mixed := r.derived(t, memory.LayerSchema, "pattern", "Drinks green tea at home and at work", "c1", w1.ID, h1.ID)
	relation := r.derived(t, memory.LayerKnowledge, "relation", "Alice drinks green tea", "c1", w1.ID, h1.SourceIDs[0])
	own := r.derived(t, memory.LayerSchema, "pattern", "Drinks green tea at work all day", "c1", w1.ID, w2.ID)
	arc := r.derived(t, memory.LayerSummary, "arc", "Alice drinks tea at home and at work", "")
	kept := r.derived(t, memory.LayerSchema, "pattern", "Drinks green tea morning and night", "c1", w2.ID, h1.ID)
	if _, err := r.svc.Retire(ctx, kept.ID, memory.RetireInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Restore(ctx, kept.ID); err != nil {
		t.Fatal(err)
	}

	r.consolidate(t)
	if len(c.requests) != 1 {
		t.Fatalf("the first pass after the upgrade made %d calls, want 1 (the topic whose rows it retired)", len(c.requests))
	}
	var shown []string
	for _, f := range c.requests[0].Facts {
		shown = append(shown, f.ID)
	}
	if !slices.Equal(shown, []string{w1.ID, w2.ID}) {
		t.Errorf("the call showed facts %v, want agent work's of that topic %v", shown, []string{w1.ID, w2.ID})
	}
	var schemas []string
	for _, s := range c.requests[0].Schemas {
		schemas = append(schemas, s.ID)
	}
	slices.Sort(schemas)
	want := []string{own.ID, kept.ID}
	slices.Sort(want)
	if req := c.requests[0]; req.Arc != "" || !slices.Equal(schemas, want) {
		t.Errorf("the call was shown the arc %q and the patterns %v, want no arc and %v", req.Arc, schemas, want)
	}
	for _, x := range []struct {
		row  memory.Memory
		live bool
	}{{mixed, false}, {relation, false}, {arc, false}, {own, true}, {kept, true}} {
		m := r.get(t, x.row.ID)
		if m.Live() != x.live || (!x.live && (m.RetiredHow != memory.RetiredDropped || m.RetireReason != memory.ReasonOtherAgents)) {
			t.Errorf("agent work's %s row %q after the upgrade: live %v (want %v), retired %q %q",
				m.Layer, m.Content, m.Live(), x.live, m.RetiredHow, m.RetireReason)
		}
	}
	res, err := r.svc.Search(ctx, memory.SearchInput{UserIDs: []string{"alice"}, AgentID: "work", Query: "green tea at home", MinScore: new(0.0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Memory.ID == mixed.ID || h.Memory.ID == arc.ID || h.Memory.ID == relation.ID {
			t.Errorf("agent work recalls %q, built from agent home's facts too", h.Memory.Content)
		}
	}
	st, err := r.store.LoadClusters(ctx, "alice/work")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, cl := range st.Clusters {
		ids = append(ids, cl.ID)
	}
	if !slices.Equal(ids, []string{"c1", "c2"}) || !slices.Equal(st.Clusters[0].Members, []string{w1.ID, w2.ID}) {
		t.Fatalf("agent work's clusters after the upgrade: %+v", st.Clusters)
	}

	w3 := r.agentFact(t, "work", "Drinks green tea at work before meetings")
	r.consolidate(t)
	if len(c.requests) != 2 {
		t.Fatalf("%d calls after a fact joined agent work's topics, want 1", len(c.requests)-1)
	}
	var got []string
	for _, f := range c.requests[1].Facts {
		got = append(got, f.ID)
	}
	if !slices.Contains(got, w3.ID) || slices.Contains(got, h1.ID) {
		t.Errorf("the call for the topic %s joined showed %v", w3.ID, got)
	}
}

// A store whose saved topics do not hold an agent's facts (an import
// into a new instance, a changed alias group, an agent new since the
// upgrade) is no upgrade: the agent's own pattern and arc stay.
func TestConsolidation_AStoreWithoutOldTopicsRetiresNothing(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	w1 := r.agentFact(t, "work", "Drinks green tea at work every morning")
	w2 := r.agentFact(t, "work", "Drinks green tea at work after lunch")
	r.agentFact(t, "home", "Drinks green tea at home every morning")
	r.agentFact(t, "home", "Drinks green tea at home after dinner")
	own := r.derived(t, memory.LayerSchema, "pattern", "Drinks green tea at work all day", "c1", w1.ID, w2.ID)
	arc := r.derived(t, memory.LayerSummary, "arc", "Alice drinks tea at work", "")
	r.consolidate(t)
	if c.calls() == 0 {
		t.Fatal("the facts in no topic were not consolidated")
	}
	for _, m := range []memory.Memory{own, arc} {
		if got := r.get(t, m.ID); !got.Live() {
			t.Errorf("agent work's own %s row %q was retired: %s", got.Layer, got.Content, got.RetireReason)
		}
	}
}

// A relation row an upgrade retired (it rested on another agent's facts)
// does not keep the relation from a row when the agent's own facts state
// it again; one the user retired does.
func TestConsolidation_AnAgentsOwnFactsEarnARowAnUpgradeRetired(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		row          bool
	}{
		{"retired by an upgrade", memory.ReasonOtherAgents, true},
		{"retired by the user", "not true any more", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, c := newConsolidateRig(t, consolidateCfg())
			ctx := context.Background()
			c.set(func(req memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
				var ids []string
				for _, f := range req.Facts {
					ids = append(ids, f.ID)
				}
				return memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Alice", To: "Jasmine tea", Relation: "likes", Evidence: ids}}}, nil
			})
			r.agentFact(t, "work", "Alice likes jasmine tea")
			r.agentFact(t, "work", "Alice orders jasmine tea")
			r.consolidate(t)
			rows := r.live(t, memory.LayerKnowledge, "alice")
			if len(rows) != 1 {
				t.Fatalf("L5 rows after the first pass: %+v", rows)
			}
			if _, err := r.svc.Retire(ctx, rows[0].ID, memory.RetireInput{Reason: tc.reason}); err != nil {
				t.Fatal(err)
			}
			r.advance(time.Hour)
			r.agentFact(t, "work", "Alice brews jasmine tea")
			if rep := r.consolidate(t); len(rep.Errors) != 0 || c.calls() != 2 {
				t.Fatalf("%d calls, report %+v", c.calls(), rep)
			}
			live := r.live(t, memory.LayerKnowledge, "alice")
			if got := len(live) == 1 && live[0].Metadata["relation_id"] == rows[0].Metadata["relation_id"]; got != tc.row || len(live) > 1 {
				t.Errorf("live rows of the relation after the agent stated it again: %+v, want one: %v", live, tc.row)
			}
		})
	}
}

// A user id holding "/" was kept under a key that now escapes it: the
// first pass finds the topics there and calls none already called, the
// agent's topics come from them too, and the old key is emptied (it is
// now the key of user "team"'s agent "amy").
func TestConsolidation_AUserIDWithASlashKeepsItsTopics(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	ctx := context.Background()
	own := func(agent, text string) memory.Memory {
		o := memory.Owner{UserID: "team/amy", AgentID: agent}
		turn := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: text, Owner: o, Extraction: memory.ExtractDone})
		return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: text, Owner: o, Category: memory.LabelProjectState,
			SourceIDs: []string{turn.ID}})
	}
	a1, a2 := own("", "Amy drinks green tea every morning"), own("", "Amy drinks green tea after lunch")
	w1, w2 := own("work", "Amy drinks green tea at work"), own("work", "Amy drinks green tea before meetings")
	old := memory.OwnerClusters{NextSeq: 2, ClusteredAt: time.Now(), Clusters: []memory.Cluster{
		{ID: "c1", Members: []string{a1.ID, a2.ID}, OKAt: time.Now()},
		{ID: "c2", Members: []string{w1.ID, w2.ID}, OKAt: time.Now()},
	}}
	if err := r.store.SaveClusters(ctx, "team/amy", old); err != nil {
		t.Fatal(err)
	}
	r.consolidate(t)
	if n := c.calls(); n != 0 {
		t.Fatalf("the first pass made %d calls for topics called under the old key", n)
	}
	for key, want := range map[string][]string{"team%2Famy": {a1.ID, a2.ID}, "team%2Famy/work": {w1.ID, w2.ID}, "team/amy": nil} {
		st, err := r.store.LoadClusters(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil && (len(st.Clusters) != 0 || st.NextSeq != 0) || want != nil && (len(st.Clusters) != 1 || !slices.Equal(st.Clusters[0].Members, want)) {
			t.Errorf("clusters under %s: %+v, want %v", key, st, want)
		}
	}
}
