package embed

import (
	"context"
	"math"
	"strings"
	"testing"

	"hyatlas/backend/embed/onnxproto"
	"hyatlas/backend/memory"
)

// testVocab is a small BERT vocabulary for BERT-shaped test models.
var testVocab = strings.Join([]string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
	"the", "cat", "sat", "on", "mat", "dog", "ran", "home", "a", "to", "park", "represent",
	"this", "sentence", "for", "searching", "relevant", "passages", ":", ",", ".", "un", "##want", "##ed",
	"runs", "fast", "slow", "and", "or"}, "\n") + "\n"

func tinyBGE(t testing.TB, dims int, withTypes bool) *BGE {
	t.Helper()
	n := strings.Count(testVocab, "\n")
	b, err := newBGE(onnxproto.TinyBERT(n, dims, 7, withTypes), []byte(testVocab), "tiny-bert", SessionOptions{IntraOp: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestBGE_PaddingInvariance(t *testing.T) {
	for _, withTypes := range []bool{true, false} {
		b := tinyBGE(t, 16, withTypes)
		if b.Info().Dims != 16 || !b.s.has("attention_mask") || b.s.has("token_type_ids") != withTypes {
			t.Fatalf("info %+v, inputs %v", b.Info(), b.s.inputs)
		}
		texts := []string{"the cat sat", "the dog ran home to the park and the cat sat on the mat", "unwanted"}
		batch := embedAll(t, b, texts...)
		for i, text := range texts {
			alone := embedAll(t, b, text)[0]
			for j := range alone {
				if math.Abs(float64(alone[j]-batch[i][j])) > 1e-5 {
					t.Fatalf("types=%v %q: alone and padded in a batch differ at %d: %v vs %v",
						withTypes, text, j, alone[j], batch[i][j])
				}
			}
		}
		if c := cos(batch[0], batch[1]); c > 0.9999 {
			t.Errorf("different texts give one vector")
		}
	}
}

func TestBGE_QueriesCarryThePrefix(t *testing.T) {
	b := tinyBGE(t, 16, true)
	doc := embedAll(t, b, "the cat sat")[0]
	q, err := b.Embed(context.Background(), []string{"the cat sat"}, memory.PurposeQuery)
	if err != nil {
		t.Fatal(err)
	}
	if cos(doc, q[0]) > 0.9999 {
		t.Error("a query embeds like a document: the instruction prefix is missing")
	}
	manual := embedAll(t, b, bgeQueryPrefix+"the cat sat")[0]
	if cos(manual, q[0]) < 0.9999 {
		t.Error("the query is not the prefixed text")
	}
}

func TestBGE_LongTextIsTruncatedTo512Tokens(t *testing.T) {
	b := tinyBGE(t, 16, true)
	long := strings.Repeat("the cat sat on the mat ", 200) // 1,200 words
	longer := long + strings.Repeat("dog ", 100)
	v := embedAll(t, b, long, longer)
	if cos(v[0], v[1]) < 0.9999 {
		t.Error("words past 512 tokens changed the vector")
	}
	ids := b.vocab.Encode(longer, bgeMaxTokens)
	if len(ids) != bgeMaxTokens {
		t.Errorf("%d tokens, want %d", len(ids), bgeMaxTokens)
	}
}
