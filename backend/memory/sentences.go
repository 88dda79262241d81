package memory

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Long texts are also indexed by each of their sentences: a question
// about one detail of a long fact or page matches that sentence far
// better than the average of the whole text. The sentence vectors are
// stored with the row's vector and map back to the row (its vector score
// is the best of the whole and its sentences).
const (
	// longTextRunes is the length from which a text is split.
	longTextRunes = 160
	// minSentenceWords: shorter pieces ("Yes.", "Thanks!") are not indexed.
	minSentenceWords = 3
	// maxSentenceParts caps the vectors one row adds to the index.
	maxSentenceParts = 8
)

// sentencesOf returns the sentences a long text is indexed by: nil when
// the text is short or has fewer than two sentences worth indexing. A
// sentence ends at '.', '!' or '?' followed by a space and a capital
// letter, digit or quote, or at a line break; "e.g. this" and "v1.2" are
// not split. At most maxSentenceParts are kept, the first ones.
func sentencesOf(text string) []string {
	if utf8.RuneCountInString(text) < longTextRunes {
		return nil
	}
	var out []string
	keep := func(s string) {
		s = strings.TrimSpace(s)
		if len(strings.Fields(s)) >= minSentenceWords && len(out) < maxSentenceParts {
			out = append(out, s)
		}
	}
	start := 0
	for i, r := range text {
		switch {
		case r == '\n':
			keep(text[start:i])
			start = i + 1
		case r == '.' || r == '!' || r == '?':
			if sentenceEndsAt(text, i) {
				keep(text[start : i+1])
				start = i + 1
			}
		}
	}
	keep(text[start:])
	if len(out) < 2 {
		return nil
	}
	return out
}

// sentenceEndsAt reports whether the punctuation at byte i ends a
// sentence: it is followed by white space and then an upper-case letter,
// a digit or an opening quote.
func sentenceEndsAt(text string, i int) bool {
	rest := text[i+1:]
	trimmed := strings.TrimLeftFunc(rest, unicode.IsSpace)
	if len(trimmed) == len(rest) || trimmed == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(trimmed)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || r == '"' || r == '\''
}

// embedDocuments embeds texts for storage in one batch: each text's
// vector and, for long texts, the vectors of its sentences (Vector.Parts).
// Every returned vector is checked: one of the wrong length or not finite
// fails the call.
func embedDocuments(ctx context.Context, e Embedder, texts []string) ([]Vector, error) {
	info := e.Info()
	batch := append([]string(nil), texts...)
	parts := make([][2]int, len(texts)) // each text's sentences: batch[from:to]
	for i, t := range texts {
		s := sentencesOf(t)
		parts[i] = [2]int{len(batch), len(batch) + len(s)}
		batch = append(batch, s...)
	}
	vecs, err := e.Embed(ctx, batch, PurposeDocument)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(batch) {
		return nil, fmt.Errorf("embed: %s returned %d vectors for %d texts", info.ID, len(vecs), len(batch))
	}
	for _, v := range vecs {
		if len(v) != info.Dims || !usable(v) {
			return nil, fmt.Errorf("embed: %s returned a malformed vector", info.ID)
		}
	}
	out := make([]Vector, len(texts))
	for i := range texts {
		out[i] = Vector{Embedder: info.ID, Values: vecs[i]}
		if p := parts[i]; p[1] > p[0] {
			out[i].Parts = vecs[p[0]:p[1]]
		}
	}
	return out, nil
}

// embedDocument is embedDocuments for one text.
func embedDocument(ctx context.Context, e Embedder, text string) (Vector, error) {
	v, err := embedDocuments(ctx, e, []string{text})
	if err != nil {
		return Vector{}, err
	}
	return v[0], nil
}

// indexEntry is what the index holds for a row and its vector.
func indexEntry(id string, layer Layer, o Owner, v Vector) IndexEntry {
	return IndexEntry{ID: id, Layer: layer, Owner: o, Values: v.Values, Parts: v.Parts}
}
