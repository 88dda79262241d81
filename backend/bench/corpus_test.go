package bench

import (
	"math"
	"strings"
	"testing"
)

func TestCorpus_DeterministicAndRealistic(t *testing.T) {
	a, b := newCorpus(1), newCorpus(1)
	for range 50 {
		if x, y := a.text(8, 40), b.text(8, 40); x != y {
			t.Fatalf("same seed, different texts: %q %q", x, y)
		}
	}
	// The commonest content word should be in a few percent of rows, not
	// most of them (the skipped ranks stand for stop words).
	c := newCorpus(3)
	top := c.words[0]
	n, with := 5000, 0
	for range n {
		if strings.Contains(" "+c.text(8, 40)+" ", " "+top+" ") {
			with++
		}
	}
	if share := float64(with) / float64(n); share < 0.005 || share > 0.10 {
		t.Errorf("the commonest word is in %.1f%% of rows", 100*share)
	}
}

func TestPercentile(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]float64{50: 5, 95: 10, 100: 10, 0: 1} {
		if got := percentile(v, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if !math.IsNaN(percentile(nil, 50)) {
		t.Error("percentile of nothing is not NaN")
	}
}
