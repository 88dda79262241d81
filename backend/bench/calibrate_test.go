package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"hyatlas/backend/embed"
)

func TestPercentilesOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []float64
		want Percentiles
	}{
		{"empty", nil, Percentiles{}},
		{"one", []float64{0.5}, Percentiles{N: 1, P10: 0.5, P25: 0.5, P50: 0.5, P75: 0.5, P90: 0.5, Max: 0.5}},
		{"unsorted eleven", []float64{10, 0, 9, 1, 8, 2, 7, 3, 6, 4, 5},
			Percentiles{N: 11, P10: 1, P25: 2, P50: 5, P75: 7, P90: 9, Max: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentilesOf(tc.in); got != tc.want {
				t.Errorf("percentilesOf(%v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

// TestCalibrateFloor_Tiny measures the hand-made file with an embedder the
// caller passes in: every evidence turn and ten off-topic questions are
// measured, and the cosines are cosines.
func TestCalibrateFloor_Tiny(t *testing.T) {
	h, err := embed.NewHash(embed.DefaultHashDims)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := CalibrateFloor(context.Background(), RecallOptions{Data: tinyLoCoMo(t), Embedder: h})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedder != h.Info().ID || rep.Evidence.N != 6 || rep.OffTopicBest.N != 10 ||
		rep.OnTopicMargin.N != 2 || rep.OffTopicMargin.N != 10 {
		t.Fatalf("report %+v", rep)
	}
	for _, p := range []Percentiles{rep.Evidence, rep.OffTopicBest} {
		if p.P10 > p.P50 || p.P50 > p.Max || p.P10 < -1 || p.Max > 1.0001 {
			t.Errorf("not cosine percentiles: %+v", p)
		}
	}
	var out bytes.Buffer
	PrintFloor(&out, rep)
	if !strings.Contains(out.String(), "| question to each evidence turn | 6 |") {
		t.Errorf("table:\n%s", out.String())
	}
	if r, err := EvaluateRecall(context.Background(), RecallOptions{Data: tinyLoCoMo(t), Embedder: h}); err != nil || r.Embedder != h.Info().ID {
		t.Errorf("EvaluateRecall with an embedder of the caller's: %s, %v", r.Embedder, err)
	}
}
