package memory_test

// The graph is one person's: their agents (and the user ids of their
// alias group) share its entities, so what one agent learns ends what
// another learnt, and a view of every agent shows one node per name.
// Different people never share a node.

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"hyatlas/backend/memory"
)

func personRig(t *testing.T) *rig {
	t.Helper()
	al, err := memory.ParseAliases("amy,bea")
	if err != nil {
		t.Fatal(err)
	}
	return newRig(t, memory.Config{Aliases: al}, func(d *memory.Deps) { d.GraphStore = d.Store.(memory.GraphStore) })
}

// learnStated stores the fact text for owner o and learns from it that
// Alice works at to (see learnJob).
func learnStated(t *testing.T, r *rig, o memory.Owner, to, from, at, text string) memory.GraphEdge {
	t.Helper()
	return learnJob(t, r, o, to, from, at, r.put(t, memory.Memory{Layer: memory.LayerFact, Content: text, Owner: o}).ID)
}

// viewOf is the view of one user (all agents when agent is "") held on
// the valid axis at day at, as edgesAt describes it, with its node names.
func viewOf(t *testing.T, r *rig, user, agent, at string) (edges, nodes []string) {
	t.Helper()
	v, err := r.svc.GraphAsOf(context.Background(), memory.GraphQuery{UserID: user, AgentID: agent, At: day(at), Axis: memory.AxisValid})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, n := range v.Nodes {
		names[n.ID] = n.Name
		nodes = append(nodes, n.Name)
	}
	edges = []string{}
	for _, e := range v.Edges {
		if names[e.From] == "" || names[e.To] == "" {
			t.Fatalf("edge %s dangles", e.ID)
		}
		edges = append(edges, names[e.From]+" "+e.Relation+" "+names[e.To]+" ["+ymd(e.ValidFrom)+", "+ymd(e.ValidTo)+")")
	}
	slices.Sort(edges)
	slices.Sort(nodes)
	return edges, nodes
}

// A job learnt through one agent (or alias) ends the job learnt through
// another, and the view of all of them shows Alice once.
func TestGraph_APersonsAgentsAndAliasesShareTheirEntities(t *testing.T) {
	cases := []struct {
		name         string
		first, later memory.Owner
		view         string // the user whose view shows both
	}{
		{"two agents of one user", memory.Owner{UserID: "amy", AgentID: "hermes"}, memory.Owner{UserID: "amy", AgentID: "coder"}, "amy"},
		{"two user ids of one alias group", memory.Owner{UserID: "amy"}, memory.Owner{UserID: "bea", AgentID: "coder"}, "bea"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := personRig(t)
			acme := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Acme", Owner: c.first}).ID
			globex := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice moved to Globex", Owner: c.later}).ID
			learnJob(t, r, c.first, "Acme", "2024-01-01", "2024-02-01", acme)
			learnJob(t, r, c.later, "Globex", "2025-03-01", "2025-04-01", globex)

			edges, nodes := viewOf(t, r, c.view, "", "2025-06-01")
			want := []string{"Alice works at Acme [2024-01-01, 2025-03-01)", "Alice works at Globex [2025-03-01, ?)"}
			if edges, _ := viewOf(t, r, c.view, "", "2024-06-01"); !slices.Equal(edges, want[:1]) {
				t.Errorf("in 2024: %v, want %v", edges, want[:1])
			}
			if len(edges) != 1 || edges[0] != want[1] {
				t.Errorf("in 2025: %v, want only %s", edges, want[1])
			}
			if !slices.Equal(nodes, []string{"Acme", "Alice", "Globex"}) {
				t.Errorf("nodes %v, want Alice once", nodes)
			}
			// The later owner's own view has the node it shares.
			mine, _ := viewOf(t, r, c.later.UserID, c.later.AgentID, "2025-06-01")
			if !slices.Equal(mine, want[1:]) {
				t.Errorf("%s's own view: %v", c.later, mine)
			}
			around, err := r.svc.GraphNeighbours(context.Background(), c.later.UserID, c.later.AgentID, "alice")
			if err != nil {
				t.Fatalf("the node the later owner shares is not found in its scope: %v", err)
			}
			if len(around.Neighbours) != 1 || around.Neighbours[0].Node.Name != "Globex" {
				t.Errorf("neighbours in %s's scope: %+v", c.later, around.Neighbours)
			}
		})
	}
}

// Two people who both know an Alice do not share her.
func TestGraph_DifferentPeopleNeverShareAnEntity(t *testing.T) {
	r := personRig(t)
	amy, cy := memory.Owner{UserID: "amy"}, memory.Owner{UserID: "cy"}
	learnStated(t, r, amy, "Acme", "2024-01-01", "2024-02-01", "Alice works at Acme")
	learnStated(t, r, cy, "Globex", "2025-03-01", "2025-04-01", "Alice works at Globex")
	if edges, _ := viewOf(t, r, "amy", "", "2025-06-01"); !slices.Equal(edges, []string{"Alice works at Acme [2024-01-01, ?)"}) {
		t.Errorf("amy's Alice: %v", edges)
	}
	if _, nodes := viewOf(t, r, "", "", "2025-06-01"); !slices.Equal(nodes, []string{"Acme", "Alice", "Alice", "Globex"}) {
		t.Errorf("every owner's nodes: %v, want one Alice each", nodes)
	}
}

// A fact restored through one agent holds its relation again against
// what another agent's relations hold by then.
func TestGraph_ARestoredRelationMeetsAnotherAgentsRelations(t *testing.T) {
	r := personRig(t)
	ctx := context.Background()
	hermes, coder := memory.Owner{UserID: "amy", AgentID: "hermes"}, memory.Owner{UserID: "amy", AgentID: "coder"}
	globex := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice moved to Globex", Owner: coder}).ID
	learnJob(t, r, coder, "Globex", "2025-03-01", "2025-04-01", globex)
	r.setClock(day("2025-05-01"))
	if _, err := r.svc.Retire(ctx, globex, memory.RetireInput{Reason: "not sure"}); err != nil {
		t.Fatal(err)
	}
	learnStated(t, r, hermes, "Initech", "2026-01-01", "2026-02-01", "Alice joined Initech")
	r.setClock(day("2026-03-01"))
	if _, err := r.svc.Restore(ctx, globex); err != nil {
		t.Fatal(err)
	}
	want := []string{"Alice works at Globex [2025-03-01, 2026-01-01)", "Alice works at Initech [2026-01-01, ?)"}
	if edges, _ := viewOf(t, r, "amy", "", "2026-03-02"); !slices.Equal(edges, want[1:]) {
		t.Errorf("now: %v, want %v", edges, want[1:])
	}
	v, err := r.svc.GraphAsOf(ctx, memory.GraphQuery{UserID: "amy", Axis: memory.AxisValid, At: day("2025-06-01")})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Edges) != 1 || !v.Edges[0].ValidTo.Equal(day("2026-01-01")) {
		t.Errorf("Globex held again: %+v, want it to end where Initech began", v.Edges)
	}
}

// Deleting everything of one agent keeps the entities another agent's
// relations still use (they pass to that agent), and takes the ones only
// it used.
func TestGraph_DeletingOneAgentKeepsTheEntitiesAnotherUses(t *testing.T) {
	r := personRig(t)
	ctx := context.Background()
	hermes, coder := memory.Owner{UserID: "amy", AgentID: "hermes"}, memory.Owner{UserID: "amy", AgentID: "coder"}
	learnStated(t, r, hermes, "Acme", "2024-01-01", "2024-02-01", "Alice works at Acme")
	learnStated(t, r, coder, "Globex", "2025-03-01", "2025-04-01", "Alice moved to Globex")
	if _, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{UserID: "amy", AgentID: "hermes"}); err != nil {
		t.Fatalf("delete the hermes agent's memories: %v", err)
	}
	edges, nodes := viewOf(t, r, "amy", "", "2025-06-01")
	if !slices.Equal(edges, []string{"Alice works at Globex [2025-03-01, ?)"}) {
		t.Errorf("relations left: %v", edges)
	}
	if !slices.Equal(nodes, []string{"Alice", "Globex"}) {
		t.Errorf("nodes left: %v, want Acme gone and Alice kept", nodes)
	}
	// Alice is now the coder agent's: deleting it leaves no name behind.
	if _, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{UserID: "amy", AgentID: "coder"}); err != nil {
		t.Fatal(err)
	}
	if n, e, err := r.svc.GraphCounts(ctx); err != nil || n != 0 || e != 0 {
		t.Errorf("after deleting both agents: %d nodes, %d relations (%v)", n, e, err)
	}
}

// An import under another user id of an alias group joins the relation
// the group holds here (the same agent, the same ends) instead of holding
// it twice, as learning it again here would.
func TestGraph_AnImportUnderAnAliasJoinsTheHeldRelation(t *testing.T) {
	ctx := context.Background()
	knows := func(r *rig, user, text string) {
		t.Helper()
		o := memory.Owner{UserID: user}
		f := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: text, Owner: o}).ID
		if _, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: o, From: "Alice", To: "Bob", Relation: "knows", Facts: []string{f}}); err != nil {
			t.Fatal(err)
		}
	}
	a, c := personRig(t), personRig(t)
	knows(a, "amy", "Alice knows Bob from school")
	knows(c, "bea", "Alice and Bob are old friends")
	var buf bytes.Buffer
	if _, err := a.svc.Export(ctx, &buf, memory.ExportInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.svc.Import(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	v, err := c.svc.GraphAsOf(ctx, memory.GraphQuery{UserID: "amy"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Edges) != 1 || len(v.Edges[0].Facts) != 2 {
		t.Errorf("held after importing amy's relation where bea holds it: %+v, want one resting on both facts", v.Edges)
	}
}
