package onnxproto

import (
	"math"
	"math/rand"
	"testing"
)

// bowReference is the Go reference for BagOfWords on one row.
func bowReference(table []float32, dims int, ids []int64) []float32 {
	sum := make([]float64, dims)
	for _, id := range ids {
		for j := range dims {
			sum[j] += float64(table[int(id)*dims+j])
		}
	}
	var sq float64
	for _, x := range sum {
		sq += x * x
	}
	norm := max(math.Sqrt(sq), normEpsilon)
	out := make([]float32, dims)
	for j, x := range sum {
		out[j] = float32(x / norm)
	}
	return out
}

func TestBagOfWords(t *testing.T) {
	const vocab, dims = 50, 7
	rng := rand.New(rand.NewSource(3))
	table := make([]float32, vocab*dims)
	for i := dims; i < len(table); i++ { // row 0 stays zero
		table[i] = float32(rng.NormFloat64())
	}
	model := BagOfWords(table, vocab, dims)
	cases := []struct {
		name string
		rows [][]int64
	}{
		{"one text", [][]int64{{3, 9, 27}}},
		{"repeated word counts twice", [][]int64{{5, 5, 8}}},
		{"ragged batch padded with 0", [][]int64{{1}, {2, 3, 4, 5, 6, 7}, {49, 48, 1}}},
		{"all masked row", [][]int64{{}, {10, 11}}},
		{"only the zero row", [][]int64{{0, 0}, {12}}},
		{"all rows masked", [][]int64{{}, {}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ids, mask, seq := pad(c.rows, 0)
			got, shape := runModel(t, model, "sentence_embedding", []string{"input_ids", "attention_mask"},
				len(c.rows), seq, ids, mask)
			if len(shape) != 2 || shape[0] != int64(len(c.rows)) || shape[1] != dims {
				t.Fatalf("shape %v, want [%d %d]", shape, len(c.rows), dims)
			}
			for i, r := range c.rows {
				want := bowReference(table, dims, r)
				for j := range dims {
					g := got[i*dims+j]
					if math.IsNaN(float64(g)) || math.Abs(float64(g-want[j])) > 1e-5 {
						t.Fatalf("row %d dim %d = %v, want %v", i, j, g, want[j])
					}
				}
			}
		})
	}
}

// Masked positions are ignored whatever their id.
func TestBagOfWordsIgnoresMaskedIDs(t *testing.T) {
	table := []float32{0, 0, 1, 0, 0, 1, 3, 4}
	model := BagOfWords(table, 4, 2)
	names := []string{"input_ids", "attention_mask"}
	a, _ := runModel(t, model, "sentence_embedding", names, 1, 3, []int64{1, 2, 0}, []int64{1, 1, 0})
	b, _ := runModel(t, model, "sentence_embedding", names, 1, 3, []int64{1, 2, 3}, []int64{1, 1, 0})
	s := float32(1 / math.Sqrt2)
	for j, want := range []float32{s, s} {
		if math.Abs(float64(a[j]-want)) > 1e-6 || a[j] != b[j] {
			t.Fatalf("got %v and %v, want [%v %v] for both", a, b, s, s)
		}
	}
}
