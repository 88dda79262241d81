package memory

import (
	"strings"
	"time"
	"unicode"
)

// KeywordTerms splits a query into the terms of the keyword leg: lower-case
// runs of letters and digits (so HYATLAS_SYNC_EXTRACT gives hyatlas, sync,
// extract), at least two runes long, without English stop words, each once,
// in first-seen order. Stemming is the store's job (FTS5 porter).
func KeywordTerms(q string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, t := range strings.FieldsFunc(strings.ToLower(q), notWordRune) {
		if len([]rune(t)) < 2 || stopWords[t] || seen[t] {
			continue
		}
		seen[t] = true
		terms = append(terms, t)
	}
	return terms
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// ValidTime reports whether t can be kept and shown: unset, or in UTC
// within the years 1 to 9999 (the range JSON and RFC 3339 can write). A
// date a model or an import gives outside it is refused or dropped.
func ValidTime(t time.Time) bool {
	if t.IsZero() {
		return true
	}
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

// NormalizeText lower-cases s and collapses whitespace, for comparing texts
// (de-duplication, forget by text).
func NormalizeText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
		because been before being below between both but by can could did do does doing down during
		each few for from further had has have having he her here hers herself him himself his how i
		if in into is it its itself just me more most my myself no nor not now of off on once only or
		other our ours ourselves out over own same she should so some such than that the their theirs
		them themselves then there these they this those through to too under until up very was we
		were what when where which while who whom why will with would you your yours yourself
		yourselves ok okay yes yeah thanks thank please`) {
		m[w] = true
	}
	return m
}()
