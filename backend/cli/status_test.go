package cli

import (
	"strings"
	"testing"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
)

// status shows a re-embedding under way (an import without vectors, a
// model switch) as the README says, and why one stopped; nothing when
// there is none.
func TestPrintStatusShowsTheReembedding(t *testing.T) {
	cases := []struct {
		name string
		r    memory.ReembedProgress
		want string
	}{
		{"under way", memory.ReembedProgress{Running: true, Done: 704, Total: 18000}, "704 of 18000 memories have their vector"},
		{"stopped", memory.ReembedProgress{Error: "the model \x1b[31mfailed"}, "stopped: the model ␛[31mfailed"},
		{"none", memory.ReembedProgress{}, ""},
	}
	for _, c := range cases {
		var b strings.Builder
		if err := printStatus(&b, "http://127.0.0.1:19528", api.StatusJSON{Reembed: c.r}); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		if c.want == "" && strings.Contains(got, "re-embedding") || c.want != "" && !strings.Contains(got, "re-embedding ") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
