package extract

import (
	"strings"
	"testing"
	"unicode/utf8"

	"hyatlas/backend/memory"
)

func TestCleanText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "Hello there.", "Hello there."},
		{"trimmed", "  \n hi \n ", "hi"},
		{"block", "before\n<memory-context>\n- fact one\n- fact two\n</memory-context>\nafter", "before\n\nafter"},
		{"attributes and case", `<Relevant-Memories source="hyatlas" n=3>
x</RELEVANT-MEMORIES >I moved to Lyon.`, "I moved to Lyon."},
		{"both kinds", "<memory-context>a</memory-context>one <relevant-memories>b</relevant-memories>two", "one two"},
		{"unclosed to the end", "keep this <memory-context data-x='1'>\nrecall\nmore recall", "keep this"},
		{"nested same name", "a <memory-context>x <memory-context>y</memory-context> z</memory-context> b", "a  b"},
		{"nested other name", "a <memory-context>x <relevant-memories>y</relevant-memories> z</memory-context> b", "a  b"},
		{"inner never closed", "a <memory-context>x <relevant-memories>y</memory-context> b", "a  b"},
		{"stray closing tag", "a </memory-context> b", "a  b"},
		{"lookalike tags kept", "the <memory-contextual> and <relevant-memory> tags", "the <memory-contextual> and <relevant-memory> tags"},
		{"two blocks", "<memory-context>a</memory-context>x<memory-context>b</memory-context>y", "xy"},
		{"three blank lines collapse", "a\n\n\n\nb\n \n\t\n\n\nc", "a\n\nb\n\nc"},
		{"two blank lines stay", "a\n\n\nb", "a\n\n\nb"},
		{"crlf", "a\r\n\r\n\r\n\r\n\r\nb", "a\n\nb"},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"only recall", "<memory-context>x</memory-context>", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CleanText(tc.in); got != tc.want {
				t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

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
			got := CleanText(tc.in)
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
