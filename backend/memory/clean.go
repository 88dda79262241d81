package memory

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// recallTag matches an opening or closing tag of an injected recall block,
// with any attributes, in any case.
var recallTag = regexp.MustCompile(`(?i)<(/?)(memory-context|relevant-memories)\b[^>]*>`)

var manyBlankLines = regexp.MustCompile(`\n(?:[ \t]*\n){3,}`)

// CleanText prepares a write's text for extraction: it removes whole
// injected recall blocks (<memory-context>…</memory-context> and
// <relevant-memories …>…</relevant-memories>, nested ones included; an
// unclosed opening tag runs to the end; a stray closing tag goes), collapses
// three or more blank lines into one, trims, and keeps at most
// MaxExtractBytes bytes from the start, cut on a rune boundary.
func CleanText(text string) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = stripRecall(text)
	text = manyBlankLines.ReplaceAllString(text, "\n\n")
	text = strings.TrimSpace(text)
	return CutText(text, MaxExtractBytes)
}

func stripRecall(text string) string {
	tags := recallTag.FindAllStringSubmatchIndex(text, -1)
	if tags == nil {
		return text
	}
	var b strings.Builder
	var open []string // names of the blocks we are inside, innermost last
	last := 0         // start of the text still to copy
	for _, m := range tags {
		closing := m[3] > m[2]
		name := strings.ToLower(text[m[4]:m[5]])
		if !closing {
			if len(open) == 0 {
				b.WriteString(text[last:m[0]])
			}
			open = append(open, name)
			continue
		}
		i := len(open) - 1
		for i >= 0 && open[i] != name {
			i--
		}
		switch {
		case i >= 0: // closes this block and any unclosed one inside it
			open = open[:i]
			if len(open) == 0 {
				last = m[1]
			}
		case len(open) == 0: // a stray closing tag outside any block
			b.WriteString(text[last:m[0]])
			last = m[1]
		}
	}
	if len(open) == 0 {
		b.WriteString(text[last:])
	}
	return b.String()
}

// CutText keeps at most n bytes of s, never splitting a rune.
func CutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && n-cut < utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
