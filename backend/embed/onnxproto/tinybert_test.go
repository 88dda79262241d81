package onnxproto

import (
	"math"
	"testing"
)

const (
	tbVocab = 100
	tbDims  = 16
)

// tinyRun runs a TinyBERT model on ragged rows padded with padID (token
// types: 1 from position 2 on, padID at padding) and returns the output
// and its shape.
func tinyRun(t *testing.T, model []byte, types bool, rows [][]int64, padID int64) ([]float32, []int64, int) {
	t.Helper()
	ids, mask, seq := pad(rows, padID)
	names := []string{"input_ids", "attention_mask"}
	inputs := [][]int64{ids, mask}
	if types {
		tt := make([]int64, len(ids))
		for i := range tt {
			switch {
			case mask[i] == 0:
				tt[i] = padID % 2
			case i%seq >= 2:
				tt[i] = 1
			}
		}
		names, inputs = append(names, "token_type_ids"), append(inputs, tt)
	}
	out, shape := runModel(t, model, "last_hidden_state", names, len(rows), seq, inputs...)
	return out, shape, seq
}

// vec is the hidden state of row i, position p.
func vec(out []float32, seq, i, p int) []float32 {
	off := (i*seq + p) * tbDims
	return out[off : off+tbDims]
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func TestTinyBERT(t *testing.T) {
	text := []int64{5, 6, 7}
	long := []int64{8, 9, 10, 11, 12, 13, 14}
	for _, types := range []bool{false, true} {
		t.Run(map[bool]string{false: "no token types", true: "token types"}[types], func(t *testing.T) {
			model := TinyBERT(tbVocab, tbDims, 42, types)
			alone, shape, seq := tinyRun(t, model, types, [][]int64{text}, 0)
			if len(shape) != 3 || shape[0] != 1 || shape[1] != 3 || shape[2] != tbDims {
				t.Fatalf("shape %v, want [1 3 %d]", shape, tbDims)
			}
			for _, x := range alone {
				if math.IsNaN(float64(x)) || x == 0 {
					t.Fatalf("degenerate output %v", alone)
				}
			}

			again, _, _ := tinyRun(t, TinyBERT(tbVocab, tbDims, 42, types), types, [][]int64{text}, 0)
			if d := maxDiff(alone, again); d != 0 {
				t.Errorf("same seed, outputs differ by %g", d)
			}
			other, _, _ := tinyRun(t, TinyBERT(tbVocab, tbDims, 43, types), types, [][]int64{text}, 0)
			if d := maxDiff(alone, other); d < 1e-3 {
				t.Errorf("different seeds, outputs differ by only %g", d)
			}

			batch, shape, bseq := tinyRun(t, model, types, [][]int64{long, text}, 0)
			if len(shape) != 3 || shape[0] != 2 || shape[1] != int64(len(long)) || shape[2] != tbDims {
				t.Fatalf("batch shape %v, want [2 %d %d]", shape, len(long), tbDims)
			}
			for p := range text { // CLS and every other unmasked position
				if d := maxDiff(vec(alone, seq, 0, p), vec(batch, bseq, 1, p)); d > 1e-5 {
					t.Errorf("position %d: alone vs padded in a batch differ by %g", p, d)
				}
			}

			// Another padding id (and type) changes nothing unmasked.
			repadded, _, _ := tinyRun(t, model, types, [][]int64{long, text}, 57)
			for p := range text {
				if d := maxDiff(vec(batch, bseq, 1, p), vec(repadded, bseq, 1, p)); d > 1e-5 {
					t.Errorf("position %d changed by %g when a masked id changed", p, d)
				}
			}

			// Another unmasked token changes the CLS output.
			changed, _, _ := tinyRun(t, model, types, [][]int64{{5, 6, 99}}, 0)
			if d := maxDiff(vec(alone, seq, 0, 0), vec(changed, seq, 0, 0)); d < 1e-3 {
				t.Errorf("CLS moved only %g when token 2 changed", d)
			}
		})
	}
}
