package extract

import (
	"strings"
)

// cleanReply strips what models wrap a plain-text reply in: a reasoning
// block (<think>…</think>, or everything up to a lone </think>) and code
// fences.
func cleanReply(s string) string {
	if i := strings.LastIndex(strings.ToLower(s), "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	} else if strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "<think>") {
		return "" // reasoning that never ended: no answer
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.ContainsAny(s[:nl], " \t") {
			s = s[nl+1:] // a language tag
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	return strings.TrimSpace(s)
}
