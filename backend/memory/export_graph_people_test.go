package memory_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// A crafted (or mixed-up) export whose relation of one person names
// another person's entities or memories does not make them share: the
// relation's ends become its own person's entities of those names, and
// it rests only on its own person's memories.
func TestImport_ARelationKeepsToItsOwnPerson(t *testing.T) {
	ctx := context.Background()
	r, _ := newConsolidateRig(t, consolidateCfg())
	mem := func(id, user string) string {
		return `{"type":"memory","memory":{"id":"` + id + `","layer":"l3_fact","content":"` + id + ` says Alice works at Acme","owner":{"user_id":"` + user +
			`"},"strength":0.5,"created_at":"2026-01-01T00:00:00Z"}}`
	}
	owned := func(line, user string) string {
		return strings.Replace(line, `"user_id":"alice"`, `"user_id":"`+user+`"`, 1)
	}
	header := `{"type":"header","format":"hyatlas-export","version":3}`
	lines := []string{header, mem("fa", "alice"), mem("fb", "bob"), node("e1", "Alice"), node("e2", "Acme"),
		owned(relation("rb", "e1", "e2", `,"facts":["fb","fa"]`), "bob"),
		relation("ra", "e1", "e2", `,"facts":["fa","fb"]`)}
	lines = append(lines, fmt.Sprintf(`{"type":"end","memories":2,"files":0,"nodes":2,"relations":2,"links":0}`))
	if _, err := r.svc.Import(ctx, strings.NewReader(strings.Join(lines, "\n"))); err != nil {
		t.Fatal(err)
	}
	views := map[string]memory.GraphView{}
	for _, user := range []string{"alice", "bob"} {
		v, err := r.svc.GraphAsOf(ctx, memory.GraphQuery{UserID: user})
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Edges) != 1 || len(v.Nodes) != 2 {
			t.Fatalf("%s's graph: %d relations, %d entities; want 1 and 2", user, len(v.Edges), len(v.Nodes))
		}
		views[user] = v
	}
	for _, user := range []string{"alice", "bob"} {
		facts := views[user].Edges[0].Facts
		if want := []string{map[string]string{"alice": "fa", "bob": "fb"}[user]}; !slices.Equal(facts, want) {
			t.Errorf("%s's relation rests on %q, want %q", user, facts, want)
		}
	}
	for _, n := range views["bob"].Nodes {
		if slices.ContainsFunc(views["alice"].Nodes, func(m memory.GraphNode) bool { return m.ID == n.ID }) {
			t.Errorf("entity %s (%s) is both people's", n.ID, n.Name)
		}
	}
	// Alice's wipe leaves Bob's relation standing on his own entities,
	// and Bob's fact deleted does not touch Alice's relation.
	if _, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{UserID: "alice"}); err != nil {
		t.Fatal(err)
	}
	if v, err := r.svc.GraphAsOf(ctx, memory.GraphQuery{UserID: "bob"}); err != nil || len(v.Edges) != 1 || len(v.Nodes) != 2 {
		t.Errorf("bob's graph after alice's wipe: %+v %v", v, err)
	}
	h, err := r.svc.GraphHistory(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range h.Nodes {
		if n.Owner.UserID == "alice" {
			t.Errorf("alice's entity %s outlived her wipe", n.Name)
		}
	}
}
