package api_test

import (
	"context"
	"testing"

	"hyatlas/backend/memory"
)

// The Mind Palace feeds: the graph held now and memories linked by
// session, in one id space, so no edge dangles.
func TestMindPalaceFeeds(t *testing.T) {
	a := newAPI(t, rigOpts{})
	var ids []string
	for _, w := range []struct{ text, session string }{
		{"Alice works at Acme", "s1"}, {"Alice moved to Globex", "s1"}, {"Globex ships billing", "s1"}, {"a lone note", "s2"},
	} {
		ids = append(ids, a.post("/api/v1/add", map[string]any{"text": w.text, "user_id": "alice", "session_id": w.session}, 200)["memory_id"].(string))
	}
	if _, err := a.mem.LearnRelation(context.Background(), memory.RelationInput{Owner: memory.Owner{UserID: "alice"},
		From: "Alice", To: "Globex", Relation: "works at", Turns: ids[1:3]}); err != nil {
		t.Fatal(err)
	}

	edges := a.do(req{path: "/api/v1/edges?user_id=alice"})
	if edges.status != 200 {
		t.Fatalf("edges: %d %s", edges.status, edges.body)
	}
	e := edges.json(t)
	nodes := map[string]string{}
	for _, n := range e["nodes"].([]any) {
		n := n.(map[string]any)
		nodes[n["id"].(string)] = n["kind"].(string)
	}
	knowledge, co := e["knowledge"].([]any), e["co_session"].([]any)
	if len(knowledge) != 1 || len(co) != 2 || e["total_edges"].(float64) != 3 {
		t.Fatalf("edges: %s", edges.body)
	}
	for _, list := range [][]any{knowledge, co, e["semantic"].([]any)} {
		for _, l := range list {
			l := l.(map[string]any)
			if nodes[l["from"].(string)] == "" || nodes[l["to"].(string)] == "" {
				t.Errorf("edge with an end that is not a node: %v", l)
			}
		}
	}
	if k := knowledge[0].(map[string]any); nodes[k["from"].(string)] != "entity" || k["relation"] != "works at" {
		t.Errorf("knowledge edge: %v", k)
	}

	star := a.do(req{path: "/api/v1/learning/graph?user_id=alice&n=50"})
	if star.status != 200 {
		t.Fatalf("learning graph: %d %s", star.status, star.body)
	}
	g := star.json(t)
	starNodes := map[string]bool{}
	for _, n := range g["nodes"].([]any) {
		starNodes[n.(map[string]any)["id"].(string)] = true
	}
	kinds := map[string]int{}
	for _, ed := range g["edges"].([]any) {
		ed := ed.(map[string]any)
		kinds[ed["type"].(string)]++
		if !starNodes[ed["source"].(string)] || !starNodes[ed["target"].(string)] {
			t.Errorf("star edge dangles: %v", ed)
		}
	}
	stats := g["stats"].(map[string]any)
	if kinds["knowledge"] != 1 || kinds["co_session"] != 2 || stats["memory_count"].(float64) != 4 || stats["node_count"].(float64) != 6 {
		t.Fatalf("learning graph: %s", star.body)
	}

	// Another owner sees nothing of Alice's.
	if b := a.do(req{path: "/api/v1/edges?user_id=bob"}).json(t); len(b["nodes"].([]any)) != 0 {
		t.Errorf("bob sees %v", b["nodes"])
	}
	for _, bad := range []struct {
		path   string
		status int
	}{
		{"/api/v1/edges?n=-1", 422}, {"/api/v1/edges?k_semantic=99", 422}, {"/api/v1/edges?n=many", 400},
		{"/api/v1/learning/graph?k_semantic=x", 400}, {"/api/v1/learning/graph?n=100000", 422},
	} {
		if r := a.do(req{path: bad.path}); r.status != bad.status {
			t.Errorf("%s: %d %s, want %d", bad.path, r.status, r.body, bad.status)
		}
	}
}

// The history carries every record of a relation, ended ones too, so a
// timeline can show any moment without asking again.
func TestGraphHistory(t *testing.T) {
	a := newAPI(t, rigOpts{})
	id := a.post("/api/v1/add", map[string]any{"text": "Alice works at Acme, then Globex", "user_id": "alice"}, 200)["memory_id"].(string)
	ctx := context.Background()
	for _, to := range []string{"Acme", "Globex"} {
		if _, err := a.mem.LearnRelation(ctx, memory.RelationInput{Owner: memory.Owner{UserID: "alice"}, From: "Alice", To: to,
			Relation: "works at", Exclusive: true, Turns: []string{id}}); err != nil {
			t.Fatal(err)
		}
	}
	hr := a.do(req{path: "/api/v1/graph/history?user_id=alice"})
	if hr.status != 200 {
		t.Fatalf("history: %d %s", hr.status, hr.body)
	}
	h := hr.json(t)
	nodes, records := h["nodes"].([]any), h["records"].([]any)
	// Acme's first record (expired when Globex came), its closed copy, Globex.
	if len(nodes) != 3 || len(records) != 3 {
		t.Fatalf("history: %v", h)
	}
	ids := map[string]bool{}
	for _, n := range nodes {
		ids[n.(map[string]any)["id"].(string)] = true
	}
	for _, r := range records {
		r := r.(map[string]any)
		if !ids[r["from"].(string)] || !ids[r["to"].(string)] {
			t.Errorf("record with an unknown node: %v", r)
		}
	}
	if b := a.do(req{path: "/api/v1/graph/history?user_id=bob"}).json(t); len(b["records"].([]any)) != 0 {
		t.Errorf("bob: %v", b)
	}
}
