package extract

import (
	"strings"
	"testing"
	"unicode/utf8"

	"hyatlas/backend/memory"
)

func TestCleanTextTruncates(t *testing.T) {
	max := memory.MaxExtractBytes
	for _, tc := range []struct {
		name    string
		in      string
		wantLen int
	}{
		{"exactly the limit", strings.Repeat("a", max), max},
		{"2-byte rune across the limit", strings.Repeat("a", max-1) + "é" + "tail", max - 1},
		{"3-byte rune across the limit", strings.Repeat("a", max-2) + "€" + "tail", max - 2},
		{"4-byte rune ending at the limit", strings.Repeat("a", max-4) + "😀" + "tail", max},
		{"4-byte rune across the limit", strings.Repeat("a", max-3) + "😀", max - 3},
		{"keeps the start", "START" + strings.Repeat("x", 2*max) + "END", max},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := memory.CleanText(tc.in)
			if len(got) != tc.wantLen || !utf8.ValidString(got) || !strings.HasPrefix(tc.in, got) {
				t.Errorf("len %d (want %d), valid %v, prefix %v", len(got), tc.wantLen, utf8.ValidString(got), strings.HasPrefix(tc.in, got))
			}
		})
	}
}

func TestCleanReply(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  A summary.  ", "A summary."},
		{"<think>\nplan it\n</think>\n\nThe summary.", "The summary."},
		{"<THINK>x</THINK>The summary.", "The summary."},
		{"reasoning without an opening tag</think>The summary.", "The summary."},
		{"<think>never ends", ""},
		{"```\nThe summary.\n```", "The summary."},
		{"```text\nThe summary.\n```", "The summary."},
		{"<think>x</think>\n```markdown\nLine one.\nLine two.\n```", "Line one.\nLine two."},
		{"```", ""},
	} {
		if got := cleanReply(tc.in); got != tc.want {
			t.Errorf("cleanReply(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
