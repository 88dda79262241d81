package cli

import "testing"

func TestPrintable(t *testing.T) {
	tests := []struct {
		name, in  string
		keepLines bool
		want      string
	}{
		{"plain text", "tea at 8", false, "tea at 8"},
		{"a title escape", "x\x1b]0;pwned\x07 y", false, "x␛]0;pwned␇ y"},
		{"a colour escape", "\x1b[31mred", true, "␛[31mred"},
		{"NUL and DEL", "a\x00b\x7f", false, "a␀b␡"},
		{"a C1 control", "a\u009bb", false, "a\ufffdb"},
		{"a right-to-left override", "abc\u202Edef", false, "abc\ufffddef"},
		{"lines kept", "one\n\ttwo", true, "one\n\ttwo"},
		{"lines shown", "one\ntwo", false, "one␊two"},
		{"Chinese and emoji", "喝茶 ☕", false, "喝茶 ☕"},
	}
	for _, tt := range tests {
		if got := printable(tt.in, tt.keepLines); got != tt.want {
			t.Errorf("%s: printable(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}
