package wordpiece

import (
	"fmt"
	"strings"
	"testing"
)

// sentence60 has 60 words.
const sentence60 = "The quick brown fox jumps over the lazy dog while the researchers, " +
	"working late at the university laboratory, carefully measured how temperature " +
	"changes affected the growth of bacterial colonies in petri dishes; their " +
	"preliminary results suggest that even small fluctuations can dramatically " +
	"alter reproduction rates, which could have important implications for food " +
	"safety regulations worldwide and in café hygiene standards."

// benchVocab is BERT-sized (30522 tokens): the words of sentence60, some
// of them only as pieces, and filler tokens.
func benchVocab(b *testing.B) *Vocab {
	toks := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ",", ";", ".", "'"}
	split := map[string][]string{
		"researchers": {"research", "##ers"}, "laboratory": {"lab", "##ora", "##tory"},
		"fluctuations": {"fl", "##uct", "##uation", "##s"}, "preliminary": {"pre", "##lim", "##inary"},
		"bacterial": {"bacteria", "##l"}, "colonies": {"colon", "##ies"}, "implications": {"implication", "##s"},
	}
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			toks = append(toks, t)
		}
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(sentence60), func(r rune) bool {
		return r == ' ' || r == ',' || r == ';' || r == '.'
	}) {
		if w == "café" {
			w = "cafe"
		}
		if ps, ok := split[w]; ok {
			for _, p := range ps {
				add(p)
			}
			continue
		}
		add(w)
	}
	for i := 0; len(toks) < 30522; i++ {
		add(fmt.Sprintf("tok%d", i))
		add(fmt.Sprintf("##p%d", i))
	}
	v, err := Load(strings.NewReader(strings.Join(toks, "\n")))
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func BenchmarkEncode60Words(b *testing.B) {
	v := benchVocab(b)
	if n := len(strings.Fields(sentence60)); n != 60 {
		b.Fatalf("%d words", n)
	}
	n := len(v.Encode(sentence60, 512))
	b.SetBytes(int64(len(sentence60)))
	b.ReportAllocs()
	for b.Loop() {
		v.Encode(sentence60, 512)
	}
	b.ReportMetric(float64(n), "tokens/op")
}

func BenchmarkEncode512Tokens(b *testing.B) {
	v := benchVocab(b)
	text := strings.Repeat(sentence60+" ", 8) // 480 words, > 600 pieces
	if n := len(v.Encode(text, 0)); n < 600 {
		b.Fatalf("only %d tokens", n)
	}
	if n := len(v.Encode(text, 512)); n != 512 {
		b.Fatalf("%d tokens", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		v.Encode(text, 512)
	}
}

func BenchmarkEncodeBatch32x60Words(b *testing.B) {
	v := benchVocab(b)
	texts := make([]string, 32)
	for i := range texts {
		texts[i] = sentence60
	}
	b.ReportAllocs()
	for b.Loop() {
		v.EncodeBatch(texts, 512)
	}
}
