package api_test

import (
	"strings"
	"testing"
)

// TestToolBodiesRefusedNamingTheTool: a body that is not JSON at all (cut
// short, two objects, not UTF-8) is refused like bad arguments are: 400,
// the message starting with the tool's name, nothing stored; an unknown
// tool is 404 whatever its body.
func TestToolBodiesRefusedNamingTheTool(t *testing.T) {
	a := newAPI(t, rigOpts{})
	cases := []struct {
		tool, body string
		status     int
		prefix     string
	}{
		{"memory_store", `{"content": "Alice likes tea"`, 400, "memory_store: "},
		{"memory_store", `{"content": "a"} {"content": "b"}`, 400, "memory_store: "},
		{"memory_note", "{\"content\": \"caf\xe9\", \"file\": \"USER.md\"}", 400, "memory_note: "},
		{"soul_edit", `{"content": }`, 400, "soul_edit: "},
		{"nope", `{"content": `, 404, "no tool \"nope\""},
		{"nope", `{}`, 404, "no tool \"nope\""},
	}
	before := a.counts()
	for _, c := range cases {
		r := a.do(req{method: "POST", path: "/api/v1/tools/" + c.tool + "?user_id=alice&agent_id=meepa", body: c.body})
		msg, _ := r.json(t)["error"].(string)
		if r.status != c.status || !strings.HasPrefix(msg, c.prefix) {
			t.Errorf("%s %q: %d %q, want %d starting %q", c.tool, c.body, r.status, msg, c.status, c.prefix)
		}
	}
	if a.counts() != before {
		t.Error("a refused call stored something")
	}
	if r := a.do(req{path: "/api/v1/workspace/meepa/USER.md"}); r.json(t)["exists"] != false {
		t.Errorf("a refused note was written: %s", r.body)
	}
}
