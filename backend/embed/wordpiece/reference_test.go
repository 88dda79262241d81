package wordpiece

import (
	"slices"
	"testing"
)

// Cases from HuggingFace's own tests (tests/models/bert/
// test_tokenization_bert.py), with the vocabularies those tests build.

func TestHFFullTokenizer(t *testing.T) {
	v := loadVocab(t, []string{"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]",
		"want", "##want", "##ed", "wa", "un", "runn", "##ing", ",", "low", "lowest"})
	// test_full_tokenizer: tokens and convert_tokens_to_ids.
	text := "UNwant\u00E9d,running"
	if got, want := v.Tokenize(text), []string{"un", "##want", "##ed", ",", "runn", "##ing"}; !slices.Equal(got, want) {
		t.Errorf("Tokenize = %q, want %q", got, want)
	}
	if got, want := v.Encode(text, 0), []int64{1, 9, 6, 7, 12, 10, 11, 2}; !slices.Equal(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
}

func TestHFWordpieceAndCleanText(t *testing.T) {
	// test_wordpiece_tokenizer's vocabulary; [PAD] added at the end because
	// Load requires it (the other ids are unchanged).
	v := loadVocab(t, []string{"[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn", "##ing", "[PAD]"})
	for _, c := range []struct {
		text string
		want []string
	}{
		{"", []string{}},
		{"unwanted running", []string{"un", "##want", "##ed", "runn", "##ing"}},
		{"unwantedX running", []string{"[UNK]", "runn", "##ing"}},
		// test_clean_text: "\xad" (soft hyphen, Cf) is removed entirely.
		{"Test", []string{"[UNK]"}},
		{"\u00ad", []string{}},
		{"test", []string{"[UNK]"}},
	} {
		if got := v.Tokenize(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// refCase is a text and the pieces the reference produces for it.
type refCase struct {
	text string
	want []string
	// real: the expected pieces are also those of the real bert-base-uncased
	// vocab.txt (published outputs). The others are BasicTokenizer behaviour
	// derived from the reference code; with the real vocabulary WordPiece
	// may split their words differently.
	real bool
}

var refCases = []refCase{
	// Published outputs with bert-base-uncased.
	// HF docs (BertModel example): ids 101 7592 1010 2026 3899 2003 10140 102.
	{"Hello, my dog is cute", []string{"hello", ",", "my", "dog", "is", "cute"}, true},
	// google-research/bert tokenization.py docstring.
	{"unaffable", []string{"un", "##aff", "##able"}, true},
	// google-research/bert README.
	{"John Johanson's house", []string{"john", "johan", "##son", "'", "s", "house"}, true},
	// HF test_offsets_with_special_characters (do_lower_case=True): special
	// tokens written in the text are matched before normalization.
	{"A, naïve [MASK] AllenNLP sentence.", []string{"a", ",", "naive", "[MASK]", "allen", "##nl", "##p", "sentence", "."}, true},

	// HF BasicTokenizer tests (test_basic_tokenizer_lower,
	// ..._lower_strip_accents_default, test_chinese,
	// ..._splits_on_punctuation): the vocab below contains every word, so
	// WordPiece keeps the words whole (longest match first).
	{" \tHeLLo!how  \n Are yoU?  ", []string{"hello", "!", "how", "are", "you", "?"}, false},
	{"H\u00E9llo", []string{"hello"}, false},
	{" \tHäLLo!how  \n Are yoU?  ", []string{"hallo", "!", "how", "are", "you", "?"}, false},
	{"ah\u535A\u63A8zz", []string{"ah", "\u535A", "\u63A8", "zz"}, false},
	{"a\n'll !!to?'d of, can't.", []string{"a", "'", "ll", "!", "!", "to", "?", "'", "d", "of", ",", "can", "'", "t", "."}, false},

	// Derived by reasoning from the reference code (see each comment).
	// lower() then NFD then drop Mn: "é" -> "e" + U+0301 -> "e".
	{"Café naïve", []string{"cafe", "naive"}, false},
	// Hangul syllables are not CJK ideographs and NFD splits them into
	// conjoining jamo (Lo, kept): the known bert-uncased Korean behaviour.
	{"\uD55C\uAD6D", []string{"\u1112", "##\u1161", "##\u11AB", "##\u1100", "##\u116E", "##\u11A8"}, false},
	// U+F900 is in the CJK ranges (spaced out), and NFD maps it to U+8C48.
	{"a\uF900b", []string{"a", "\u8C48", "b"}, false},
	// Canonical (NFD), not compatibility, decomposition: the ligature ﬁ and
	// fullwidth letters stay as they are (lower-cased).
	{"ﬁ ＡＢ", []string{"[UNK]", "ａｂ"}, false},
	// Lower-casing is per character in both references (the slow one
	// lower-cases the text one character at a time before BasicTokenizer),
	// so capital sigma never becomes final ς. ß is not case-folded.
	{"ΟΔΟΣ Straße", []string{"οδοσ", "straße"}, false},
	// Kelvin sign lower-cases to "k"; İ lower-cases to "i̇" and loses the dot.
	{"\u212A İ", []string{"k", "i"}, false},
	// U+2028 is kept by _clean_text but str.split() splits on it; \v is Cc
	// and removed; U+3000 is Zs. A lone combining mark vanishes.
	{"x\u2028y x\vy x\u3000y \u0301", []string{"x", "y", "xy", "x", "y"}, false},
	// Lower-case special-token text is ordinary text; U+00AD joins nothing.
	{"[sep] co\u00ADop", []string{"[", "sep", "]", "coop"}, false},
}

// refFixture holds every expected piece plus traps that a wrong
// implementation would pick (accented, precomposed, compatibility-folded
// or final-sigma forms, merged words, shorter prefixes).
func refFixture() []string {
	toks := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
		"café", "naïve", "\uD55C", "\uAD6D", "fi", "abc", "ab", "οδος", "strasse", "hällo",
		"##n", "##l", "##a", "cafe\u0301", "\uF900", "K", "İ", "i\u0307", "co\u00adop", "xy", "[sep]"}
	seen := map[string]bool{}
	for _, tok := range toks {
		seen[tok] = true
	}
	for _, c := range refCases {
		for _, w := range c.want {
			if !seen[w] {
				seen[w] = true
				toks = append(toks, w)
			}
		}
	}
	return toks
}

func TestReferenceCases(t *testing.T) {
	v := loadVocab(t, refFixture())
	for _, c := range refCases {
		if got := v.Tokenize(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
