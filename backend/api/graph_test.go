package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// The graph endpoints: as-of on both axes, changes between two times, a
// node's neighbours, the counts in status, and clear errors for bad input.
func TestGraphEndpoints(t *testing.T) {
	a := newAPI(t, rigOpts{})
	ctx := context.Background()
	acme := a.post("/api/v1/add", map[string]any{"text": "Alice works at Acme", "user_id": "alice"}, 200)["memory_id"].(string)
	globex := a.post("/api/v1/add", map[string]any{"text": "Alice works at Globex", "user_id": "alice"}, 200)["memory_id"].(string)
	learned := []time.Time{time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)}
	for i, to := range []string{"Acme", "Globex"} {
		from := []time.Time{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}[i]
		if _, err := a.mem.LearnRelation(ctx, memory.RelationInput{Owner: memory.Owner{UserID: "alice"}, From: "Alice",
			To: to, ToType: "organization", Relation: "works at", Exclusive: true, ValidFrom: from,
			Turns: []string{[]string{acme, globex}[i]}, At: learned[i]}); err != nil {
			t.Fatal(err)
		}
	}
	asOf := func(query string) map[string]any {
		t.Helper()
		r := a.do(req{path: "/api/v1/graph-as-of?" + query})
		if r.status != 200 {
			t.Fatalf("graph-as-of?%s: %d %s", query, r.status, r.body)
		}
		return r.json(t)
	}
	unix := func(y int, m time.Month, d int) int64 { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() }
	cases := []struct {
		query     string
		relations int
		to        string // the label the first relation points at
	}{
		{fmt.Sprintf("ts=%d", unix(2024, 1, 15)), 0, ""},
		{fmt.Sprintf("ts=%d&user_id=alice", unix(2024, 6, 1)), 1, "Acme"},
		{fmt.Sprintf("ts=%d&axis=valid", unix(2024, 6, 1)), 1, "Acme"},
		{fmt.Sprintf("ts=%d&axis=valid&user_id=all", unix(2025, 6, 1)), 1, "Globex"},
		{fmt.Sprintf("ts=%d&user_id=bob", unix(2025, 6, 1)), 0, ""},
		{"", 2, ""}, // now, recorded: Acme (ended) and Globex
	}
	for _, tc := range cases {
		v := asOf(tc.query)
		rels, nodes := v["relations"].([]any), v["nodes"].([]any)
		if len(rels) != tc.relations {
			t.Fatalf("%s: %d relations, want %d: %v", tc.query, len(rels), tc.relations, v)
		}
		labels := map[string]string{}
		for _, n := range nodes {
			n := n.(map[string]any)
			labels[n["id"].(string)] = n["label"].(string)
		}
		for _, r := range rels {
			r := r.(map[string]any)
			if labels[r["from"].(string)] == "" || labels[r["to"].(string)] == "" {
				t.Fatalf("%s: relation %v dangles", tc.query, r)
			}
		}
		if tc.to != "" && labels[rels[0].(map[string]any)["to"].(string)] != tc.to {
			t.Fatalf("%s: relation points at %v, want %s", tc.query, rels[0], tc.to)
		}
	}
	if v := asOf("n=1"); len(v["nodes"].([]any)) != 1 || len(v["relations"].([]any)) != 0 || v["total"].(float64) != 2 {
		t.Fatalf("n=1: %v", v)
	}

	ch := a.do(req{path: fmt.Sprintf("/api/v1/graph/changes?from=%d&to=%d", unix(2025, 3, 31), unix(2025, 4, 2))})
	if ch.status != 200 {
		t.Fatalf("changes: %d %s", ch.status, ch.body)
	}
	d := ch.json(t)
	if len(d["appeared"].([]any)) != 2 || len(d["ended"].([]any)) != 1 { // Globex and Acme's closed record; Acme's open one
		t.Fatalf("changes on 2025-04-01: %v", d)
	}

	g := a.do(req{path: "/api/v1/graph?node=alice&user_id=alice"}).json(t)
	if g["node"] != "alice" || g["center"].(map[string]any)["label"] != "Alice" || len(g["neighbors"].([]any)) != 2 || g["edge_count"].(float64) != 2 {
		t.Fatalf("graph node: %v", g)
	}
	post := a.post("/api/v1/graph", map[string]any{"node": "Globex"}, 200)
	if nb := post["neighbors"].([]any); len(nb) != 1 || nb[0].(map[string]any)["incoming"] != true {
		t.Fatalf("graph POST: %v", post)
	}
	// As in the public contract: no node, or one not in the graph, is no
	// error: the counts, and no neighbours.
	for _, path := range []string{"/api/v1/graph", "/api/v1/graph?node=nobody"} {
		g := a.do(req{path: path}).json(t)
		if nb, ok := g["neighbors"].([]any); !ok || len(nb) != 0 || g["node_count"].(float64) != 3 || g["center"] != nil {
			t.Fatalf("%s: %v", path, g)
		}
	}
	st := a.do(req{path: "/api/v1/status"}).json(t)
	if st["graph_nodes"].(float64) != 3 || st["graph_edges"].(float64) != 2 {
		t.Fatalf("status graph counts: %v %v", st["graph_nodes"], st["graph_edges"])
	}

	bad := []struct {
		method, path string
		status       int
	}{
		{"GET", "/api/v1/graph-as-of?ts=yesterday", http.StatusBadRequest},
		{"GET", "/api/v1/graph-as-of?ts=-5", http.StatusUnprocessableEntity},
		{"GET", "/api/v1/graph/changes?from=abc", http.StatusBadRequest},
		{"GET", "/api/v1/graph-as-of?ts=-5", http.StatusUnprocessableEntity},
		{"GET", "/api/v1/graph-as-of?axis=sideways", http.StatusUnprocessableEntity},
		{"GET", "/api/v1/graph-as-of?n=0x10", http.StatusBadRequest},
		{"GET", "/api/v1/graph-as-of?n=100000", http.StatusUnprocessableEntity},
		{"GET", "/api/v1/graph/changes", http.StatusBadRequest},
		{"GET", "/api/v1/graph/changes?from=10&to=5", http.StatusUnprocessableEntity},
		{"GET", "/api/v1/graph-as-of?ts=-0.5", http.StatusUnprocessableEntity}, // read as 0 before
		{"GET", "/api/v1/graph/changes?from=-0.5&to=1", http.StatusUnprocessableEntity},
		{"GET", "/api/v1/graph-as-of?ts=%2B5", http.StatusBadRequest},
		{"POST", "/api/v1/graph-as-of", http.StatusMethodNotAllowed},
	}
	for _, b := range bad {
		if r := a.do(req{method: b.method, path: b.path}); r.status != b.status {
			t.Errorf("%s %s: %d, want %d: %s", b.method, b.path, r.status, b.status, r.body)
		}
	}
}

// TestGraphAsOf_AtARecordsReportedTime: times are reported in whole
// seconds but kept to the millisecond; asking for the graph at the time a
// relation reports as its recorded_at shows it (the second is read to its
// end), and a fraction reads to the millisecond.
func TestGraphAsOf_AtARecordsReportedTime(t *testing.T) {
	a := newAPI(t, rigOpts{})
	ctx := context.Background()
	id := a.post("/api/v1/add", map[string]any{"text": "Alice works at Acme", "user_id": "alice"}, 200)["memory_id"].(string)
	at := time.Date(2025, 4, 1, 12, 0, 0, 640_000_000, time.UTC) // .640 s
	if _, err := a.mem.LearnRelation(ctx, memory.RelationInput{Owner: memory.Owner{UserID: "alice"}, From: "Alice",
		To: "Acme", Relation: "works at", Turns: []string{id}, At: at}); err != nil {
		t.Fatal(err)
	}
	all := a.do(req{path: "/api/v1/graph-as-of"}).json(t)["relations"].([]any)
	reported := int64(all[0].(map[string]any)["recorded_at"].(float64))
	for _, c := range []struct {
		ts   string
		want int
	}{
		{fmt.Sprint(reported), 1},
		{fmt.Sprint(reported - 1), 0},
		{fmt.Sprintf("%d.500", reported), 0},
		{fmt.Sprintf("%d.640", reported), 1},
	} {
		r := a.do(req{path: "/api/v1/graph-as-of?ts=" + c.ts})
		if got := len(r.json(t)["relations"].([]any)); r.status != 200 || got != c.want {
			t.Errorf("ts=%s: %d relations (HTTP %d), want %d", c.ts, got, r.status, c.want)
		}
	}
	ch := a.do(req{path: fmt.Sprintf("/api/v1/graph/changes?from=%d&to=%d", reported-1, reported)}).json(t)
	if len(ch["appeared"].([]any)) != 1 {
		t.Errorf("changes up to the reported second: %v", ch)
	}
	for _, bad := range []string{"1.", "1.-5", "1.5e3", "x.5"} {
		if r := a.do(req{path: "/api/v1/graph-as-of?ts=" + bad}); r.status != http.StatusBadRequest {
			t.Errorf("ts=%s: %d, want 400", bad, r.status)
		}
	}
}

// A timeline that steps with /graph/changes, each step from the last
// reply's "to" (its default: now), sees every record exactly once. The
// reply used to say "to" in whole seconds while the step ran to the
// millisecond, so a record learnt later in that second fell between two
// steps (and a step again within the second was a 422).
func TestGraphChanges_SteppingFromEachReplyMissesNothing(t *testing.T) {
	a := newAPI(t, rigOpts{})
	ctx := context.Background()
	id := a.post("/api/v1/add", map[string]any{"text": "Alice works at Acme", "user_id": "alice"}, 200)["memory_id"].(string)
	for time.Now().Nanosecond() >= 300e6 { // start early in a second, so the learning below falls in it
		time.Sleep(10 * time.Millisecond)
	}
	seen := 0
	step := func(from int64) int64 {
		r := a.do(req{path: fmt.Sprintf("/api/v1/graph/changes?from=%d&user_id=alice", from)})
		if r.status != 200 {
			t.Fatalf("from=%d: %d %s", from, r.status, r.body)
		}
		body := r.json(t)
		seen += len(body["appeared"].([]any))
		return int64(body["to"].(float64))
	}
	to := step(0)
	if _, err := a.mem.LearnRelation(ctx, memory.RelationInput{Owner: memory.Owner{UserID: "alice"}, From: "Alice", To: "Acme",
		Relation: "works at", Turns: []string{id}}); err != nil {
		t.Fatal(err)
	}
	to = step(to) // within the same second, most likely: nothing yet, no refusal
	deadline := time.Now().Add(3 * time.Second)
	for seen == 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		to = step(to)
	}
	to = step(to)
	if seen != 1 {
		t.Errorf("the relation appeared in %d steps, want exactly 1", seen)
	}
}
