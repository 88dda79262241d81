package api_test

import (
	"testing"

	"hyatlas/backend/memory"
)

// The public HyAtlas wire contract: a client written for it must work
// against this server unchanged.

func TestCompat_Status(t *testing.T) {
	a := newAPI(t, rigOpts{})
	st := a.do(req{path: "/api/v1/status"}).json(t)
	for _, k := range []string{"status", "version", "vdb", "embed", "llm", "llm_model", "llm_base", "mode",
		"mode_detail", "uses_llm", "extract_sync", "write_pipeline", "writes", "searches", "layers",
		"graph_nodes", "graph_edges", "unextracted", "consolidations",
		"embedder", "reembed", "data_dir", "uptime"} {
		if _, ok := st[k]; !ok {
			t.Errorf("status lacks %q", k)
		}
	}
	layers := st["layers"].(map[string]any)
	for _, l := range memory.Layers {
		if _, ok := layers[string(l)]; !ok {
			t.Errorf("status layers lacks %s", l)
		}
	}
	if st["llm"] != "unconfigured" || st["embedder"].(map[string]any)["semantic"] != false {
		t.Errorf("llm %v, embedder %v", st["llm"], st["embedder"])
	}
	if st["storage"] != "ok" || st["write_pipeline"] != "ok" {
		t.Errorf("storage %v, write pipeline %v on a healthy disk", st["storage"], st["write_pipeline"])
	}
	m := a.do(req{path: "/api/v1/metrics"}).json(t)
	if _, ok := m["total"]; !ok || len(m["layers"].(map[string]any)) != 8 {
		t.Errorf("metrics = %v", m)
	}
}

func TestCompat_AddSearchListRoundTrip(t *testing.T) {
	a := newAPI(t, rigOpts{})
	add := a.post("/api/v1/add", map[string]any{"data": "USER: Foxtrot uses Postgres 16\n\nASSISTANT: noted",
		"user_id": "u1", "agent_id": "hermes", "session_id": "s1", "metadata": map[string]string{"write_origin": "memory_tool"}}, 200)
	id, _ := add["memory_id"].(string)
	if add["success"] != true || id == "" || add["extraction_status"] != "unconfigured" {
		t.Fatalf("add = %v", add)
	}
	res := a.post("/api/v1/search", map[string]any{"query": "Foxtrot Postgres", "user_id": "u1", "limit": 5}, 200)
	chans := res["memories"].(map[string]any)
	for _, c := range []string{"pages", "profile", "proactive", "experiences", "normal"} {
		if _, ok := chans[c].([]any); !ok {
			t.Errorf("channel %s missing or not a list: %v", c, chans[c])
		}
	}
	normal := chans["normal"].([]any)
	if len(normal) != 1 {
		t.Fatalf("normal = %v", normal)
	}
	hit := normal[0].(map[string]any)
	for _, k := range []string{"memory_id", "content", "score", "layer", "gmt_created", "user_id", "agent_id", "why"} {
		if _, ok := hit[k]; !ok {
			t.Errorf("hit lacks %q: %v", k, hit)
		}
	}
	if hit["memory_id"] != id || hit["layer"] != "l2_raw" || len(res["order"].([]any)) != 5 {
		t.Errorf("hit %v order %v", hit, res["order"])
	}
	// user_ids (array) is honoured; another owner sees nothing.
	if r := a.post("/api/v1/search", map[string]any{"query": "Foxtrot", "user_ids": []string{"u2"}}, 200); len(r["ranked"].([]any)) != 0 {
		t.Errorf("another owner's search found %v", r["ranked"])
	}

	a.post("/api/v1/memories/"+id+"/retire", map[string]any{"reason": "wrong project", "how": "dropped"}, 200)
	l := a.post("/api/v1/list", map[string]any{"user_id": "u1"}, 200)
	if l["total"].(float64) != 0 {
		t.Errorf("retired row listed without include_superseded: %v", l)
	}
	l = a.do(req{path: "/api/v1/list?user_id=u1&include_superseded=true"}).json(t)
	rows := l["memories"].([]any)
	if len(rows) != 1 {
		t.Fatalf("list = %v", l)
	}
	row := rows[0].(map[string]any)
	if row["invalid_at"] == nil || row["superseded_how"] != "dropped" || row["drop_reason"] != "wrong project" ||
		row["ts"] == nil || row["gmt_created"] == nil || row["session_id"] != "s1" {
		t.Errorf("retired row = %v", row)
	}
	// Dropped by no other row: superseded_by is there, empty (the public
	// contract's "empty = dropped"); a retirement without a reason still
	// carries drop_reason.
	if by, ok := row["superseded_by"]; !ok || by != "" {
		t.Errorf("a dropped row's superseded_by: %v (present %v), want \"\"", by, ok)
	}
	other := a.post("/api/v1/memories", map[string]any{"content": "a row retired with no reason", "user_id": "u1"}, 201)["memory_id"].(string)
	a.do(req{method: "POST", path: "/api/v1/memories/" + other + "/retire"})
	found := false
	for _, it := range a.do(req{path: "/api/v1/list?user_id=u1&include_superseded=true"}).json(t)["memories"].([]any) {
		if m := it.(map[string]any); m["memory_id"] == other {
			found = true
			if r, ok := m["drop_reason"]; !ok || r != "" {
				t.Errorf("drop_reason of a row retired with no reason: %v (present %v), want \"\"", r, ok)
			}
		}
	}
	if !found {
		t.Error("the row retired with no reason is not listed")
	}
	for _, k := range []string{"total", "offset", "limit", "memories", "layers", "graph_nodes", "graph_edges"} {
		if _, ok := l[k]; !ok {
			t.Errorf("list lacks %q", k)
		}
	}
}

func TestCompat_ListIncludeRawBeforePaging(t *testing.T) {
	a := newAPI(t, rigOpts{})
	for range 3 {
		a.post("/api/v1/add", map[string]any{"text": "raw row", "user_id": "u1"}, 200)
	}
	l := a.post("/api/v1/list", map[string]any{"user_id": "u1", "include_raw": false}, 200)
	if l["total"].(float64) != 0 || len(l["memories"].([]any)) != 0 {
		t.Errorf("include_raw=false: %v", l)
	}
	l = a.do(req{path: "/api/v1/list?user_id=u1&limit=2&offset=1"}).json(t)
	if l["total"].(float64) != 3 || len(l["memories"].([]any)) != 2 || l["limit"].(float64) != 2 {
		t.Errorf("paging: %v", l)
	}
	// POST body wins over the query string.
	l = a.do(req{method: "POST", path: "/api/v1/list?limit=1", body: `{"limit":3,"include_raw":"true"}`}).json(t)
	if len(l["memories"].([]any)) != 3 {
		t.Errorf("body did not win: %v", l)
	}
}

func TestCompat_DeleteAllScoping(t *testing.T) {
	a := newAPI(t, rigOpts{admin: true})
	for _, u := range []string{"u1", "u1", "u2"} {
		a.post("/api/v1/add", map[string]any{"text": "row of " + u, "user_id": u}, 200)
	}
	r := a.do(req{method: "DELETE", path: "/api/v1/delete_all?user_id=u1"}).json(t)
	if r["deleted_count"].(float64) != 2 || r["error"] != "" {
		t.Errorf("scoped by query: %v", r)
	}
	r = a.post("/api/v1/delete_all", map[string]any{"confirm": "wipe-all"}, 200)
	if r["deleted_count"].(float64) != 1 {
		t.Errorf("wipe-all: %v", r)
	}
}

func TestMemoryEndpoints(t *testing.T) {
	a := newAPI(t, rigOpts{})
	id := a.post("/api/v1/add", map[string]any{"text": "my bike is red", "user_id": "u1"}, 200)["memory_id"].(string)
	got := a.do(req{path: "/api/v1/memories/" + id}).json(t)
	if got["id"] != id || got["content"] != "my bike is red" || got["history"] == nil {
		t.Errorf("get = %v", got)
	}
	p := a.do(req{method: "PATCH", path: "/api/v1/memories/" + id, body: `{"content":"my bike is blue","category":"fact"}`})
	if p.status != 200 || p.json(t)["content"] != "my bike is blue" {
		t.Fatalf("patch: %d %s", p.status, p.body)
	}
	got = a.do(req{path: "/api/v1/memories/" + id}).json(t)
	hist := got["history"].([]any)
	if len(hist) != 1 || hist[0].(map[string]any)["old_content"] != "my bike is red" {
		t.Errorf("history = %v", hist)
	}
	f := a.post("/api/v1/forget", map[string]any{"text": "My bike is BLUE", "user_id": "u1"}, 200)
	if f["forgotten"].(float64) != 1 {
		t.Errorf("forget = %v", f)
	}
	a.post("/api/v1/memories/"+id+"/restore", nil, 200)
	if r := a.do(req{method: "DELETE", path: "/api/v1/memories/" + id}); r.status != 200 {
		t.Errorf("delete: %d", r.status)
	}
	if r := a.do(req{path: "/api/v1/memories/" + id}); r.status != 404 {
		t.Errorf("get after delete: %d", r.status)
	}
	if r := a.do(req{method: "POST", path: "/api/v1/flush"}); r.status != 200 {
		t.Errorf("flush: %d", r.status)
	}
	if r := a.do(req{path: "/readyz", noAuth: true}); r.status != 200 {
		t.Errorf("readyz: %d %s", r.status, r.body)
	}
}

// TestCompat_APostedListBodyReplacesTheQuerysOwner: on POST /list the
// body's layer, user_id and agent_id replace the query string's, even when
// the body leaves them out (the public contract); with no body, the query
// string's stand.
func TestCompat_APostedListBodyReplacesTheQuerysOwner(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	a.addAs("alice", "", "Alice keeps bees")
	a.addAs("bob", "", "Bob keeps goats")
	total := func(q req) float64 { return a.do(q).json(t)["total"].(float64) }
	if n := total(req{method: "POST", path: "/api/v1/list?user_id=alice", body: `{}`}); n != 2 {
		t.Errorf("a body without user_id over ?user_id=alice: %v rows, want 2 (every user)", n)
	}
	if n := total(req{method: "POST", path: "/api/v1/list?user_id=alice", body: `{"user_id":"bob"}`}); n != 1 {
		t.Errorf("a body's user_id: %v rows, want bob's 1", n)
	}
	if n := total(req{method: "POST", path: "/api/v1/list?user_id=alice"}); n != 1 {
		t.Errorf("no body: %v rows, want alice's 1", n)
	}
}

// A near duplicate's why names the better hit it repeats and the factor
// its score was demoted by.
func TestSearch_WhyOfANearDuplicateGoesOut(t *testing.T) {
	a := newAPI(t, rigOpts{})
	first := a.post("/api/v1/add", map[string]any{"text": "Foxtrot uses Postgres 16 for the billing database", "user_id": "u1"}, 200)
	a.post("/api/v1/add", map[string]any{"text": "Foxtrot uses Postgres 16 for the billing database now", "user_id": "u1"}, 200)
	res := a.post("/api/v1/search", map[string]any{"query": "Foxtrot Postgres billing database", "user_id": "u1", "min_score": 0}, 200)
	hits := res["memories"].(map[string]any)["normal"].([]any)
	if len(hits) != 2 {
		t.Fatalf("hits = %v", hits)
	}
	if why := hits[0].(map[string]any)["why"].(map[string]any); why["duplicate_of"] != nil || why["demotion"] != nil {
		t.Errorf("the better hit's why: %v", why)
	}
	if why := hits[1].(map[string]any)["why"].(map[string]any); why["duplicate_of"] != hits[0].(map[string]any)["memory_id"] ||
		why["demotion"] != 0.5 || first["memory_id"] != hits[0].(map[string]any)["memory_id"] {
		t.Errorf("the near duplicate's why: %v", why)
	}
}
