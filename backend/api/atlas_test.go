package api_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// The Atlas verbs over HTTP: add by hand, promote and demote, filters and
// sorts of the list, the prompt block; bad input changes nothing.
func TestAtlasVerbs(t *testing.T) {
	a := newAPI(t, rigOpts{})
	add := func(body map[string]any) string {
		t.Helper()
		return a.post("/api/v1/memories", body, 201)["id"].(string)
	}
	workers := add(map[string]any{"content": "Ships on Cloudflare Workers", "category": "preference", "strength": 0.92, "user_id": "u1"})
	tailwind := add(map[string]any{"content": "Prefers Tailwind tokens, never raw hex", "category": "style", "strength": 0.88, "user_id": "u1"})
	tuesday := add(map[string]any{"content": "Tuesday is no-meeting day", "user_id": "u1"})
	goal := add(map[string]any{"content": "Launch the Atlas by Friday", "layer": "l7_intention", "user_id": "u1"})
	add(map[string]any{"content": "Someone else's secret", "strength": 0.99, "user_id": "u2"})

	m := a.do(req{path: "/api/v1/memories/" + tuesday}).json(t)
	if m["layer"] != "l3_fact" || m["category"] != "fact" || m["strength"] != 0.5 || m["source"] != "manual" {
		t.Fatalf("a manual add: %v", m)
	}
	if g := a.do(req{path: "/api/v1/memories/" + goal}).json(t); g["category"] != "goal" {
		t.Fatalf("a manual goal: %v", g)
	}

	// Promote tuesday three steps past the threshold, demote tailwind below it.
	if r := a.post("/api/v1/memories/"+tuesday+"/promote", map[string]any{"steps": 3}, 200); r["strength"] != 0.8 {
		t.Fatalf("promote: %v", r)
	}
	if r := a.do(req{method: "POST", path: "/api/v1/memories/" + tailwind + "/demote"}); r.status != 200 || r.json(t)["strength"] != 0.78 {
		t.Fatalf("demote: %d %s", r.status, r.body)
	}

	list := func(query string) []string {
		t.Helper()
		r := a.do(req{path: "/api/v1/list?user_id=u1&" + query})
		if r.status != 200 {
			t.Fatalf("list?%s: %d %s", query, r.status, r.body)
		}
		var out []string
		for _, it := range r.json(t)["memories"].([]any) {
			out = append(out, it.(map[string]any)["memory_id"].(string))
		}
		return out
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"sort=strength", []string{workers, tuesday, tailwind, goal}},
		{"sort=strength&min_strength=0.79", []string{workers, tuesday}},
		{"sort=strength&max_strength=0.5", []string{goal}},
		{"category=style", []string{tailwind}},
		{"q=TAILWIND", []string{tailwind}},
		{"q=100%25", nil},
		{"sort=oldest&layer=l3_fact", []string{workers, tailwind, tuesday}},
	}
	for _, c := range cases {
		if got := list(c.query); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("list?%s = %v, want %v", c.query, got, c.want)
		}
	}

	// Paging by `next`: GET (query) and POST (body) walk the whole list.
	for _, method := range []string{"GET", "POST"} {
		var got []string
		after := ""
		for range 10 {
			var r resp
			if method == "GET" {
				r = a.do(req{path: "/api/v1/list?user_id=u1&sort=strength&limit=3&after=" + url.QueryEscape(after)})
			} else {
				body, _ := json.Marshal(map[string]any{"user_id": "u1", "sort": "strength", "limit": 3, "after": after})
				r = a.do(req{method: "POST", path: "/api/v1/list", body: string(body)})
			}
			page := r.json(t)
			for _, it := range page["memories"].([]any) {
				got = append(got, it.(map[string]any)["memory_id"].(string))
			}
			next, _ := page["next"].(string)
			if next == "" {
				break
			}
			after = next
		}
		if want := []string{workers, tuesday, tailwind, goal}; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s pages by next = %v, want %v", method, got, want)
		}
	}

	p := a.do(req{path: "/api/v1/prompt?user_id=u1"}).json(t)
	want := "## Persistent Memory\n<persistent-memory>\n" + memory.PromptDataNote +
		"\n- (preference) Ships on Cloudflare Workers\n- (fact) Tuesday is no-meeting day\n- (style) Prefers Tailwind tokens, never raw hex\n</persistent-memory>"
	if p["prompt"] != want || p["count"].(float64) != 3 || int(p["bytes"].(float64)) != len(want) || p["threshold"] != 0.75 {
		t.Fatalf("prompt: %v", p)
	}
	if p := a.do(req{path: "/api/v1/prompt?user_id=u1&limit=1"}).json(t); p["count"].(float64) != 1 {
		t.Errorf("prompt limit 1: %v", p)
	}
	if p := a.do(req{path: "/api/v1/prompt?user_id=nobody"}).json(t); p["prompt"] != "" || p["count"].(float64) != 0 {
		t.Errorf("empty prompt: %v", p)
	}

	raw := a.post("/api/v1/add", map[string]any{"text": "a raw turn", "user_id": "u1"}, 200)["memory_id"].(string)
	before := a.counts()
	bad := []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/api/v1/memories", `{"content": ""}`, 400},
		{"POST", "/api/v1/memories", `{"content": "x", "strength": 1.5}`, 422},
		{"POST", "/api/v1/memories", `{"content": "x", "layer": "l2_raw"}`, 422},
		{"POST", "/api/v1/memories", `{"content": "x", "layer": "l9"}`, 422},
		{"POST", "/api/v1/memories", `{"content": "x", "strength": "high"}`, 400},
		{"POST", "/api/v1/memories", `{"content": "x", "colour": "red"}`, 400},
		{"POST", "/api/v1/memories", `{"content": "x", "category": "` + strings.Repeat("c", 65) + `"}`, 422},
		{"POST", "/api/v1/memories/m-nope/promote", ``, 404},
		{"POST", "/api/v1/memories/" + raw + "/promote", ``, 422},
		{"POST", "/api/v1/memories/" + tuesday + "/promote", `{"steps": 0}`, 422},
		{"POST", "/api/v1/memories/" + tuesday + "/demote", `{"steps": 11}`, 422},
		{"POST", "/api/v1/memories/" + tuesday + "/demote", `{"steps": "two"}`, 400},
		{"GET", "/api/v1/list?min_strength=x", ``, 400},
		{"GET", "/api/v1/list?min_strength=2", ``, 422},
		{"GET", "/api/v1/list?min_strength=0.8&max_strength=0.2", ``, 422},
		{"GET", "/api/v1/list?sort=colour", ``, 422},
		{"GET", "/api/v1/list?after=not-a-page", ``, 422},
		{"GET", "/api/v1/list?after=strength.1.0.m1", ``, 422}, // another sort's
		{"GET", "/api/v1/list?after=date.1.0.m1&offset=3", ``, 422},
		{"POST", "/api/v1/list", `{"after": 5}`, 400},
		{"GET", "/api/v1/prompt?limit=0x", ``, 400},
		{"GET", "/api/v1/prompt?limit=500", ``, 422},
		{"GET", "/api/v1/export?format=pdf", ``, 422},
		{"GET", "/api/v1/export?vectors=maybe", ``, 400},
		{"POST", "/api/v1/import", ``, 400},
		{"POST", "/api/v1/import", `{"type":"header","format":"other"}`, 422},
	}
	for _, b := range bad {
		r := a.do(req{method: b.method, path: b.path, body: b.body})
		if r.status != b.status {
			t.Errorf("%s %s %s: %d %s, want %d", b.method, b.path, b.body, r.status, r.body, b.status)
		}
	}
	if after := a.counts(); after != before {
		t.Errorf("bad requests changed the store:\n%s\n%s", before, after)
	}
}

func TestTimelineEndpoint(t *testing.T) {
	a := newAPI(t, rigOpts{})
	a.post("/api/v1/add", map[string]any{"text": "today's note"}, 200)
	r := a.do(req{path: "/api/v1/stats/timeline?days=7"})
	days := r.json(t)["days"].([]any)
	last := days[len(days)-1].(map[string]any)
	if r.status != 200 || len(days) != 7 || last["added"].(map[string]any)["l2_raw"].(float64) != 1 {
		t.Fatalf("timeline: %d %s", r.status, r.body)
	}
	for _, bad := range []string{"days=0x", "days=999"} {
		if r := a.do(req{path: "/api/v1/stats/timeline?" + bad}); r.status < 400 {
			t.Errorf("%s: %d", bad, r.status)
		}
	}
}
