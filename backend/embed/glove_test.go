package embed

import (
	"context"
	"math"
	"testing"

	"hyatlas/backend/memory"
)

func loadGloVe(t testing.TB) *GloVe {
	t.Helper()
	g, err := NewGloVe(SessionOptions{IntraOp: 1})
	if err != nil {
		t.Fatalf("the built-in GloVe model (run `make deps`): %v", err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func embedAll(t testing.TB, e memory.Embedder, texts ...string) [][]float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), texts, memory.PurposeDocument)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestGloVe_ParaphraseRanksAboveUnrelated is the model's semantic sanity.
func TestGloVe_ParaphraseRanksAboveUnrelated(t *testing.T) {
	g := loadGloVe(t)
	if info := g.Info(); !info.Semantic || info.Dims != 100 {
		t.Errorf("info = %+v", info)
	}
	tests := []struct{ text, paraphrase, unrelated string }{
		{"The kitten slept on the rug", "The cat rested on the carpet", "The desk was in the study"},
		{"I need to renew my passport before the trip", "My travel documents expire soon", "The soup needs more salt"},
		{"Foxtrot stores its data in Postgres", "The project's database is PostgreSQL", "We hiked up the mountain at dawn"},
	}
	for _, tt := range tests {
		v := embedAll(t, g, tt.text, tt.paraphrase, tt.unrelated)
		if p, u := cos(v[0], v[1]), cos(v[0], v[2]); p <= u {
			t.Errorf("%q: paraphrase %.3f <= unrelated %.3f", tt.text, p, u)
		}
	}
}

func TestGloVe_VectorsAreUnitAndBatchInvariant(t *testing.T) {
	g := loadGloVe(t)
	texts := []string{"short text", "a somewhat longer text about cooking pasta with friends on a summer evening", "x"}
	batch := embedAll(t, g, texts...)
	for i, text := range texts {
		alone := embedAll(t, g, text)[0]
		var n float64
		for j := range alone {
			n += float64(alone[j]) * float64(alone[j])
			if math.Abs(float64(alone[j]-batch[i][j])) > 1e-5 {
				t.Fatalf("%q differs alone and in a padded batch", text)
			}
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("%q: norm² %.5f", text, n)
		}
	}
}

// TestGloVe_NoKnownWord: a text with no known word neither yields NaN nor
// matches everything; the same text matches itself.
func TestGloVe_NoKnownWord(t *testing.T) {
	g := loadGloVe(t)
	v := embedAll(t, g, "zxqv qwrtz", "zxqv qwrtz", "", "!!! ???", "the cat sat on the mat", "stock markets fell sharply", "the the")
	for i, x := range v {
		var n float64
		for _, f := range x {
			if math.IsNaN(float64(f)) {
				t.Fatalf("text %d has NaN", i)
			}
			n += float64(f) * float64(f)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("text %d: norm² %.4f", i, n)
		}
	}
	if c := cos(v[0], v[1]); c < 0.999 {
		t.Errorf("the same unknown text gives different vectors: %.3f", c)
	}
	for _, j := range []int{4, 5} {
		if c := cos(v[0], v[j]); math.Abs(c) > 0.4 {
			t.Errorf("an unknown text is close to a real one: %.3f", c)
		}
	}
	if c := cos(v[2], v[3]); c > 0.999 {
		t.Errorf("two different unknown texts share a vector")
	}
}

func TestGloVe_Tokens(t *testing.T) {
	g := loadGloVe(t)
	if ids := g.Tokens("The CAT, the cat!"); len(ids) != 4 || ids[1] != ids[3] || ids[0] != ids[2] {
		t.Errorf("ids = %v", ids)
	}
	if ids := g.Tokens("qqqzzz xyzzyx"); len(ids) != 0 {
		t.Errorf("unknown words gave %v", ids)
	}
}
