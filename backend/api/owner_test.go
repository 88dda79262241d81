package api_test

// Owner isolation over the HTTP API: one owner's data never reaches
// another owner's answers.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func (a *apiRig) addAs(user, agent, text string) string {
	a.t.Helper()
	return a.post("/api/v1/add", map[string]any{"text": text, "user_id": user, "agent_id": agent, "session_id": "s1"}, 200)["memory_id"].(string)
}

// TestOwner_ReadsAndWritesStayWithTheirOwner checks the plain reads and writes
// for two unaliased users (and one alias pair): search (every reader, a
// dated query, entity pages), list, prompt, forget, delete_all, the tools,
// export and the graph. Each failure names what leaked.
func TestOwner_ReadsAndWritesStayWithTheirOwner(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true, aliases: "carol,caz"})
	ctx := context.Background()
	aliceRaw := a.addAs("alice", "hermes", "Alice's secret launch code is zebra falcon 4471")
	bobRaw := a.addAs("bob", "hermes", "Bob likes the zebra falcon poster")
	aliceFact := a.post("/api/v1/memories", map[string]any{"content": "zebra falcon is Alice's favourite band", "user_id": "alice",
		"agent_id": "hermes", "strength": 0.95, "category": "preference"}, 201)["memory_id"]
	if aliceFact == nil {
		aliceFact = a.post("/api/v1/list", map[string]any{"user_id": "alice", "layer": "l3_fact"}, 200)["memories"].([]any)[0].(map[string]any)["memory_id"]
	}
	carolRaw := a.addAs("caz", "", "Carol's zebra falcon diary")
	_ = bobRaw
	// An entity page and a relation for alice, named in bob's query.
	if _, err := a.mem.LearnRelation(ctx, memory.RelationInput{Owner: memory.Owner{UserID: "alice", AgentID: "hermes"}, From: "Alice",
		To: "Zebra Falcon", ToType: "organization", Relation: "founded", Turns: []string{aliceRaw}, At: time.Now()}); err != nil {
		t.Fatal(err)
	}

	leak := func(what string, body []byte, ids ...string) {
		t.Helper()
		s := string(body)
		for _, id := range ids {
			if strings.Contains(s, id) {
				t.Errorf("%s: bob's answer holds alice's %s", what, id)
			}
		}
		if strings.Contains(s, "launch code") || strings.Contains(s, "favourite band") {
			t.Errorf("%s: bob's answer holds alice's text: %.300s", what, s)
		}
	}
	for _, reader := range []string{"hybrid", "vector", "keyword"} {
		for _, q := range []string{"zebra falcon", "what did I say about zebra falcon today", "Zebra Falcon founded", "launch code"} {
			r := a.do(req{method: "POST", path: "/api/v1/search", body: fmt.Sprintf(`{"query": %q, "user_id": "bob", "reader": %q, "limit": 50, "min_score": 0}`, q, reader)})
			leak("search "+reader+" "+q, r.body, aliceRaw)
			r = a.do(req{method: "POST", path: "/api/v1/search", body: fmt.Sprintf(`{"query": %q, "user_ids": ["bob"], "reader": %q, "limit": 50, "min_score": 0}`, q, reader)})
			leak("search user_ids "+reader+" "+q, r.body, aliceRaw)
		}
	}
	// carol's alias sees caz's rows; bob does not.
	r := a.do(req{method: "POST", path: "/api/v1/search", body: `{"query": "zebra falcon diary", "user_id": "carol", "min_score": 0}`})
	if !strings.Contains(string(r.body), carolRaw) {
		t.Errorf("alias carol does not see caz's row: %s", r.body)
	}
	r = a.do(req{method: "POST", path: "/api/v1/search", body: `{"query": "zebra falcon diary", "user_id": "bob", "min_score": 0}`})
	if strings.Contains(string(r.body), carolRaw) {
		t.Errorf("bob sees caz's row")
	}
	leak("list", a.do(req{path: "/api/v1/list?user_id=bob&limit=1000&include_superseded=true"}).body, aliceRaw)
	leak("list q", a.do(req{path: "/api/v1/list?user_id=bob&q=zebra"}).body, aliceRaw)
	leak("prompt", a.do(req{path: "/api/v1/prompt?user_id=bob"}).body, aliceRaw)
	leak("tools memory_search", a.do(req{method: "POST", path: "/api/v1/tools/memory_search?user_id=bob&agent_id=hermes", body: `{"query": "zebra falcon launch code"}`}).body, aliceRaw)
	leak("export", a.do(req{path: "/api/v1/export?user_id=bob"}).body, aliceRaw)
	leak("export markdown", a.do(req{path: "/api/v1/export?user_id=bob&format=markdown"}).body, aliceRaw)
	for _, p := range []string{"/api/v1/graph-as-of?user_id=bob", "/api/v1/graph/history?user_id=bob", "/api/v1/edges?user_id=bob",
		"/api/v1/learning/graph?user_id=bob", fmt.Sprintf("/api/v1/graph/changes?user_id=bob&from=%d", time.Now().Add(-time.Hour).Unix())} {
		b := a.do(req{path: p}).body
		leak(p, b, aliceRaw)
		if strings.Contains(strings.ToLower(string(b)), "zebra falcon\"") {
			t.Errorf("%s: bob sees alice's entity: %.300s", p, b)
		}
	}
	// Asked by bob, alice's entity is no node of his: no neighbours, no
	// node found (the public contract answers a node not in the graph so).
	if r := a.do(req{path: "/api/v1/graph?user_id=bob&node=Zebra%20Falcon"}); r.status != 200 ||
		strings.Contains(string(r.body), `"center"`) || !strings.Contains(string(r.body), `"neighbors":[]`) {
		t.Errorf("graph node of alice by name as bob: %d %.300s", r.status, r.body)
	}

	// Writes as bob must not touch alice.
	aliceRows := func() string {
		b, _ := json.Marshal(a.do(req{path: "/api/v1/list?user_id=alice&limit=1000&include_superseded=true"}).json(t)["memories"])
		return string(b)
	}
	before := aliceRows()
	a.post("/api/v1/forget", map[string]any{"text": "Alice's secret launch code is zebra falcon 4471", "user_id": "bob"}, 200)
	a.post("/api/v1/forget", map[string]any{"text": "zebra falcon", "contains": true, "user_id": "bob"}, 200)
	if r := a.do(req{method: "POST", path: "/api/v1/tools/memory_delete?user_id=bob&agent_id=hermes", body: fmt.Sprintf(`{"id": %q}`, aliceRaw)}); r.status != 404 {
		t.Errorf("memory_delete of alice's row as bob: %d %s", r.status, r.body)
	}
	a.do(req{method: "POST", path: "/api/v1/delete_all", body: fmt.Sprintf(`{"user_id": "bob", "id": %q}`, aliceRaw)})
	a.do(req{method: "POST", path: "/api/v1/delete_all?user_id=bob"})
	a.do(req{method: "POST", path: "/api/v1/delete_all?user_id=bob&layer=l3_fact"})
	if after := aliceRows(); before != after {
		t.Errorf("bob's forget/delete changed alice's rows:\n%s\n->\n%s", before, after)
	}
	if r := a.do(req{path: "/api/v1/graph?user_id=alice&node=Zebra%20Falcon"}); r.status != 200 {
		t.Errorf("alice's graph gone after bob's delete_all: %d %s", r.status, r.body)
	}
}

// TestOwner_AUsersExportCarriesOnlyTheirAgentsFiles: an export with
// user_id=bob carries the workspace files of the agents bob used, never
// those of an agent only alice used (its USER.md is alice's profile).
func TestOwner_AUsersExportCarriesOnlyTheirAgentsFiles(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true, aliases: ""})
	a.addAs("alice", "alices-agent", "hello from alice")
	a.addAs("bob", "bobs-agent", "hello from bob")
	a.post("/api/v1/tools/memory_note?user_id=alice&agent_id=alices-agent", map[string]any{"content": "Alice: diabetic, lives at 12 Rue Verte", "file": "USER.md"}, 200)
	body := a.do(req{path: "/api/v1/export?user_id=bob"}).body
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l["type"] == "workspace" && l["agent"] == "alices-agent" {
			t.Errorf("export?user_id=bob carries alice's agent's %v: %q", l["file"], l["content"])
		}
	}
	md := string(a.do(req{path: "/api/v1/export?user_id=bob&format=markdown"}).body)
	if strings.Contains(md, "diabetic") {
		t.Errorf("markdown export?user_id=bob carries alice's agent's USER.md")
	}
	// Memories written with no agent: the default workspace's files go along.
	a.addAs("amy", "", "Amy plans a trip to Lisbon")
	if _, err := a.mem.AppendWorkspace(context.Background(), "", "MEMORY.md", "amy prefers window seats"); err != nil {
		t.Fatal(err)
	}
	if body := string(a.do(req{path: "/api/v1/export?user_id=amy"}).body); !strings.Contains(body, "window seats") {
		t.Errorf("export?user_id=amy lacks the default workspace's notes")
	}
}

// TestOwner_AnImpossibleOwnerIDIsRefused: a read naming an owner id no row
// can hold (a control character, longer than 256 bytes) is a mistake the
// caller hears about (422), not a scope that quietly finds nothing; an
// export says so before it writes a byte.
func TestOwner_AnImpossibleOwnerIDIsRefused(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	a.addAs("alice", "hermes", "Alice keeps bees on the roof")
	long := strings.Repeat("u", 300)
	for _, bad := range []struct{ field, value, query string }{
		{"user_id", "al\u0007ice", "user_id=al%07ice"},
		{"user_id", long, "user_id=" + long},
		{"agent_id", "her\u0000mes", "agent_id=her%00mes"},
		{"agent_id", long, "agent_id=" + long},
	} {
		body := func(extra string) string {
			b, _ := json.Marshal(map[string]any{bad.field: bad.value})
			if extra == "" {
				return string(b)
			}
			return strings.TrimSuffix(string(b), "}") + "," + extra + "}"
		}
		for _, c := range []req{
			{method: "POST", path: "/api/v1/search", body: body(`"query":"bees"`)},
			{method: "POST", path: "/api/v1/list", body: body("")},
			{path: "/api/v1/list?" + bad.query},
			{path: "/api/v1/prompt?" + bad.query},
			{path: "/api/v1/export?" + bad.query},
			{path: "/api/v1/export?format=markdown&" + bad.query},
			{method: "POST", path: "/api/v1/forget", body: body(`"text":"bees"`)},
			{path: "/api/v1/graph-as-of?" + bad.query},
			{path: "/api/v1/graph/changes?from=0&" + bad.query},
			{path: "/api/v1/graph/history?" + bad.query},
			{path: "/api/v1/graph?node=Alice&" + bad.query},
			{path: "/api/v1/edges?" + bad.query},
			{method: "POST", path: "/api/v1/tools/memory_search?" + bad.query, body: `{"query":"bees"}`},
		} {
			r := a.do(c)
			if r.status != 422 || !strings.Contains(string(r.body), bad.field) {
				t.Errorf("%s %.80s with a bad %s: status %d, %.200s; want 422 naming the field", c.method, c.path, bad.field, r.status, r.body)
			}
		}
	}
	if n := len(a.post("/api/v1/list", map[string]any{"user_id": "alice"}, 200)["memories"].([]any)); n != 1 {
		t.Errorf("a good owner id lists %d memories, want 1", n)
	}
}
