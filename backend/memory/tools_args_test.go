package memory_test

import (
	"context"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// TestToolArgumentsRefusedInJSONTerms: arguments of the wrong shape are
// refused (400) with a message in the schema's terms, never the decoder's
// Go types, and a fraction where the schema asks for an integer is not
// "a number, not a number".
func TestToolArgumentsRefusedInJSONTerms(t *testing.T) {
	r := newRig(t, memory.Config{})
	cases := []struct {
		tool, args, want string
	}{
		{"memory_store", `[1, 2]`, "the arguments must be a JSON object, not an array"},
		{"memory_store", `"Alice likes tea"`, "the arguments must be a JSON object, not a string"},
		{"soul_read", `42`, "the arguments must be a JSON object, not a number"},
		{"memory_delete", `true`, "the arguments must be a JSON object, not a boolean"},
		{"memory_search", `{"query": "tea", "limit": 2.5}`, `"limit" must be an integer, not 2.5`},
		{"memory_search", `{"query": "tea", "limit": 1e400}`, `"limit" must be an integer, not 1e400`},
		{"memory_search", `{"query": "tea", "limit": "5"}`, `"limit" must be an integer, not a string`},
		{"memory_store", `{"content": 5}`, `"content" must be a string, not a number`},
		{"memory_delete", `{"id": "x", "never_true": "yes"}`, `"never_true" must be a boolean, not a string`},
		{"memory_store", `{"content": ["a"]}`, `"content" must be a string, not an array`},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			_, err := r.svc.CallTool(context.Background(), c.tool, []byte(c.args), memory.ToolCaller{UserID: "alice"})
			msg := memory.ErrorMessage(err)
			if memory.ErrorCode(err) != memory.EBADREQUEST || !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, c.tool+": ") {
				t.Fatalf("%v, want 400 %q", err, c.want)
			}
			if strings.Contains(msg, "Go ") || strings.Contains(msg, "struct") || strings.Contains(msg, "unmarshal") {
				t.Fatalf("the decoder's words in %q", msg)
			}
		})
	}
}
