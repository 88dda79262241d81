package api_test

import (
	"encoding/json"
	"testing"
)

// An edit based on the text the form read (if_content) applies while the
// memory still has that text, and is refused (412, nothing changed) once
// someone else changed it: a form or an undo never writes over a newer
// text.
func TestEditIfContent(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	m := a.post("/api/v1/memories", map[string]any{"content": "Alice drinks green tea", "user_id": "u1"}, 201)
	id := m["id"].(string)
	patch := func(body map[string]any) (int, string) {
		b, _ := json.Marshal(body)
		r := a.do(req{method: "PATCH", path: "/api/v1/memories/" + id, body: string(b)})
		return r.status, string(r.body)
	}
	tests := []struct {
		name   string
		body   map[string]any
		status int
		text   string // the memory's text afterwards
	}{
		{"based on its text", map[string]any{"content": "Alice drinks black tea", "if_content": "Alice drinks green tea"}, 200, "Alice drinks black tea"},
		{"based on the text before", map[string]any{"content": "Alice drinks coffee", "if_content": "Alice drinks green tea"}, 412, "Alice drinks black tea"},
		{"the undo of the first", map[string]any{"content": "Alice drinks green tea", "if_content": "Alice drinks black tea"}, 200, "Alice drinks green tea"},
		{"with no condition", map[string]any{"content": "Alice drinks water"}, 200, "Alice drinks water"},
	}
	for _, tc := range tests {
		status, body := patch(tc.body)
		if status != tc.status {
			t.Fatalf("%s: %d %s, want %d", tc.name, status, body, tc.status)
		}
		r := a.do(req{path: "/api/v1/memories/" + id})
		var got struct {
			Memory  struct{ Content string } `json:"memory"`
			Content string
		}
		_ = json.Unmarshal(r.body, &got)
		if text := got.Memory.Content + got.Content; text != tc.text {
			t.Fatalf("%s: the text is %q, want %q (%s)", tc.name, text, tc.text, r.body)
		}
	}
}
