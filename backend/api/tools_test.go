package api_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// The workspace files over HTTP: read, replace, and a stale If-Match
// refused with 412 and nothing changed.
func TestWorkspaceEndpoints(t *testing.T) {
	a := newAPI(t, rigOpts{})
	r := a.do(req{path: "/api/v1/workspace/meepa/SOUL.md"})
	empty := r.json(t)
	if r.status != 200 || empty["exists"] != false || empty["content"] != "" || r.header.Get("ETag") == "" {
		t.Fatalf("unwritten: %d %s", r.status, r.body)
	}
	put := func(body string, headers map[string]string) resp {
		return a.do(req{method: "PUT", path: "/api/v1/workspace/meepa/soul.md", body: body, headers: headers})
	}
	r = put(`{"content": "You are Meepa."}`, nil)
	v1 := r.header.Get("ETag")
	if r.status != 200 || v1 == "" || v1 == empty["etag"] {
		t.Fatalf("put: %d %s", r.status, r.body)
	}
	if r = put(`{"content": "You are Meepa, terse."}`, map[string]string{"If-Match": v1}); r.status != 200 {
		t.Fatalf("put with the current etag: %d %s", r.status, r.body)
	}
	if r = put(`{"content": "a stale edit"}`, map[string]string{"If-Match": v1}); r.status != 412 || !strings.Contains(string(r.body), "changed since") {
		t.Fatalf("stale put: %d %s", r.status, r.body)
	}
	if got := a.do(req{path: "/api/v1/workspace/meepa/SOUL.md"}).json(t)["content"]; got != "You are Meepa, terse." {
		t.Fatalf("after a refused write: %q", got)
	}
	for _, bad := range []struct {
		method, path, body string
		status             int
	}{
		{"GET", "/api/v1/workspace/meepa/NOTES.md", "", 422},
		{"GET", "/api/v1/workspace/..%2Fetc/SOUL.md", "", 422},
		{"GET", "/api/v1/workspace/-x/SOUL.md", "", 422},
		{"PUT", "/api/v1/workspace/meepa/SOUL.md", `{}`, 400},
		{"PUT", "/api/v1/workspace/meepa/SOUL.md", `{"content": 7}`, 400},
		{"PUT", "/api/v1/workspace/meepa/SOUL.md", `{"content": "` + strings.Repeat("x", 300<<10) + `"}`, 422},
	} {
		if r := a.do(req{method: bad.method, path: bad.path, body: bad.body}); r.status != bad.status {
			t.Errorf("%s %s: %d %s, want %d", bad.method, bad.path, r.status, r.body[:min(len(r.body), 200)], bad.status)
		}
	}
}

// Every tool has a strict schema, works with good arguments and refuses
// bad ones with a clear error that names it.
func TestTools(t *testing.T) {
	a := newAPI(t, rigOpts{})
	var list struct {
		Tools []struct {
			Name, Description string
			Parameters        map[string]any
		}
	}
	if err := json.Unmarshal(a.do(req{path: "/api/v1/tools"}).body, &list); err != nil || len(list.Tools) != 7 {
		t.Fatalf("tools: %v %+v", err, list)
	}
	for _, tool := range list.Tools {
		p := tool.Parameters
		props, _ := p["properties"].(map[string]any)
		if tool.Description == "" || p["type"] != "object" || p["additionalProperties"] != false || props == nil {
			t.Errorf("%s: schema %v", tool.Name, p)
		}
		for _, r := range p["required"].([]any) {
			if props[r.(string)] == nil {
				t.Errorf("%s: required %q is not a property", tool.Name, r)
			}
		}
		for name, prop := range props {
			pm := prop.(map[string]any)
			if pm["type"] == nil || pm["description"] == nil {
				t.Errorf("%s.%s: no type or description: %v", tool.Name, name, pm)
			}
		}
	}
	call := func(name, args string, want int) map[string]any {
		t.Helper()
		r := a.do(req{method: "POST", path: "/api/v1/tools/" + name + "?user_id=alice&agent_id=meepa", body: args})
		if r.status != want {
			t.Fatalf("%s %s: %d %s, want %d", name, args, r.status, r.body, want)
		}
		m := r.json(t)
		if want != 200 && !strings.HasPrefix(m["error"].(string), name+": ") && name != "nope" {
			t.Errorf("%s: the error does not name the tool: %v", name, m["error"])
		}
		if want == 200 {
			return m["result"].(map[string]any)
		}
		return m
	}
	id := call("memory_store", `{"content": "Alice prefers answers under 200 words", "source": "user"}`, 200)["id"].(string)
	hits := call("memory_search", `{"query": "how long should answers be", "limit": 3}`, 200)["results"].([]any)
	if len(hits) == 0 || hits[0].(map[string]any)["id"] != id || hits[0].(map[string]any)["source"] != "tool:memory_store" {
		t.Fatalf("search: %v", hits)
	}
	// Another user's agent, or a caller naming no user, cannot reach it.
	for _, path := range []string{"/api/v1/tools/memory_delete?user_id=bob", "/api/v1/tools/memory_delete"} {
		if r := a.do(req{method: "POST", path: path, body: `{"id": "` + id + `"}`}); r.status != 404 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
	}
	if r := a.do(req{method: "POST", path: "/api/v1/tools/memory_search?user_id=bob", body: `{"query": "answers under 200 words"}`}); strings.Contains(string(r.body), id) {
		t.Fatalf("bob's search finds alice's memory: %s", r.body)
	}
	// Another agent of alice's neither finds it nor deletes it (as
	// /search with agent_id); the person's own memories (no agent) are
	// every agent's.
	if r := a.do(req{method: "POST", path: "/api/v1/tools/memory_search?user_id=alice&agent_id=other", body: `{"query": "answers under 200 words"}`}); r.status != 200 || strings.Contains(string(r.body), id) {
		t.Fatalf("another agent's search: %d %s", r.status, r.body)
	}
	if r := a.do(req{method: "POST", path: "/api/v1/tools/memory_delete?user_id=alice&agent_id=other", body: `{"id": "` + id + `"}`}); r.status != 404 {
		t.Fatalf("another agent's delete: %d %s", r.status, r.body)
	}
	own := a.post("/api/v1/memories", map[string]any{"content": "Alice keeps bees on the roof", "user_id": "alice"}, 201)["id"].(string)
	if hits := call("memory_search", `{"query": "bees on the roof"}`, 200)["results"].([]any); len(hits) == 0 || hits[0].(map[string]any)["id"] != own {
		t.Fatalf("the person's own memory, searched by an agent: %v", hits)
	}
	call("memory_note", `{"content": "## Decision\nBun for tooling.", "file": "MEMORY.md"}`, 200)
	if got := call("memory_read", `{"file": "MEMORY.md"}`, 200)["content"]; got != "## Decision\nBun for tooling.\n" {
		t.Fatalf("read: %q", got)
	}
	soul := call("soul_read", ``, 200)
	etag := call("soul_edit", `{"content": "You are Meepa.", "etag": `+jsonString(soul["etag"].(string))+`}`, 200)["etag"].(string)
	if got := call("soul_read", `{}`, 200); got["content"] != "You are Meepa." || got["etag"] != etag {
		t.Fatalf("soul: %v", got)
	}
	if r := call("memory_delete", `{"id": "`+id+`"}`, 200); r["restorable"] != true {
		t.Fatalf("delete: %v", r)
	}
	if hits := call("memory_search", `{"query": "how long should answers be"}`, 200)["results"].([]any); len(hits) != 0 {
		t.Fatalf("a deleted memory is still found: %v", hits)
	}
	// never_true: the user says it was a mistake; it is retired as wrong.
	wrong := call("memory_store", `{"content": "Alice works at Globex"}`, 200)["id"].(string)
	call("memory_delete", `{"id": "`+wrong+`", "never_true": true}`, 200)
	if got := a.do(req{method: "GET", path: "/api/v1/memories/" + wrong}).json(t); got["retired_how"] != "wrong" && got["superseded_how"] != "wrong" {
		t.Errorf("memory_delete with never_true: %v, want it retired as wrong", got)
	}
	before := a.counts()
	for _, bad := range []struct {
		name, args string
		status     int
	}{
		{"memory_store", `{}`, 400},
		{"memory_store", `{"content": 5}`, 400},
		{"memory_store", `{"content": "x", "colour": "red"}`, 400},
		{"memory_store", `[1, 2]`, 400},
		{"memory_store", `{"CONTENT": "x"}`, 400}, // the schema's names, as spelt
		{"memory_search", `{"query": "x", "limit": 50}`, 422},
		{"memory_delete", `{"id": "m-nope"}`, 404},
		{"memory_delete", `{"id": "m-nope", "never_true": "yes"}`, 400},
		{"memory_note", `{"content": "x", "file": "SOUL.md"}`, 422},
		{"memory_note", `{"content": "", "file": "USER.md"}`, 400},
		{"memory_read", `{}`, 422},
		{"soul_edit", `{"content": "stale", "etag": "\"0000\""}`, 412},
		{"soul_edit", `{"content": " "}`, 400},
		{"nope", `{}`, 404},
	} {
		call(bad.name, bad.args, bad.status)
	}
	if after := a.counts(); after != before {
		t.Errorf("bad tool calls changed the store")
	}
	r := a.do(req{method: "POST", path: "/api/v1/tools/memory_store?user_id=alice", body: `{"content": 5}`})
	if msg, _ := r.json(t)["error"].(string); !strings.Contains(msg, `"content" must be a string, not a number`) {
		t.Errorf("a number for the content: %q, want it named in JSON terms", msg)
	}
	if got := call("soul_read", `{}`, 200)["content"]; got != "You are Meepa." {
		t.Errorf("a refused soul_edit changed SOUL.md: %q", got)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A second launch asks the running instance to show its window: a headless
// one says it has none.
func TestShowWindow(t *testing.T) {
	a := newAPI(t, rigOpts{})
	if r := a.do(req{method: "POST", path: "/api/v1/window/show"}); r.status != 409 {
		t.Fatalf("headless: %d %s", r.status, r.body)
	}
	shown := 0
	a.api.SetWindow(func() { shown++ })
	if r := a.do(req{method: "POST", path: "/api/v1/window/show"}); r.status != 200 || shown != 1 {
		t.Fatalf("with a window: %d %s, shown %d", r.status, r.body, shown)
	}
	a.api.SetWindow(nil)
	if r := a.do(req{method: "POST", path: "/api/v1/window/show"}); r.status != 409 {
		t.Fatalf("after the window closed: %d", r.status)
	}
}
