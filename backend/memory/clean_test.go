package memory_test

import (
	"testing"

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
			if got := memory.CleanText(tc.in); got != tc.want {
				t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
