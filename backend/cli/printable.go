package cli

import (
	"strings"
	"unicode"
)

// printable makes a text an agent or a model wrote safe to show on a
// terminal: a control character (an escape sequence could retitle the
// terminal, clear the screen or fake output) becomes its visible picture
// (ESC is ␛), and a bidirectional override, which could reorder what is
// shown, becomes U+FFFD. Line breaks and tabs stay when keepLines is set.
func printable(s string, keepLines bool) string {
	if strings.IndexFunc(s, func(r rune) bool { return unsafeRune(r, keepLines) }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !unsafeRune(r, keepLines):
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r) // ␀ .. ␟
		case r == 0x7f:
			b.WriteRune('␡')
		default:
			b.WriteRune(unicode.ReplacementChar)
		}
	}
	return b.String()
}

func unsafeRune(r rune, keepLines bool) bool {
	if keepLines && (r == '\n' || r == '\t') {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
}
