package bench

import (
	"math"
	"testing"
)

func TestScoreQuestion(t *testing.T) {
	sessions := map[string]string{
		"a": "s1", "b": "s1", "c": "s2", "d": "s3", "e": "s3", "x": "s4", "y": "s5",
	}
	// Each score array is at k = 1, 5, 10, 20.
	tests := []struct {
		name     string
		ranked   []string
		evidence []string
		turn     [4]float64
		all      [4]float64
		session  [4]float64
		empty    bool
	}{
		{"first hit is the only evidence", []string{"a", "x", "y"}, []string{"a"},
			[4]float64{1, 1, 1, 1}, [4]float64{1, 1, 1, 1}, [4]float64{1, 1, 1, 1}, false},
		{"no hit", nil, []string{"a"},
			[4]float64{}, [4]float64{}, [4]float64{}, true},
		{"evidence missed, its session found through another turn", []string{"b", "x"}, []string{"a"},
			[4]float64{}, [4]float64{}, [4]float64{1, 1, 1, 1}, false},
		{"two of three evidence turns, at ranks 2 and 7",
			[]string{"x", "a", "y", "y2", "y3", "y4", "c"}, []string{"a", "c", "d"},
			[4]float64{0, 1.0 / 3, 2.0 / 3, 2.0 / 3}, [4]float64{}, [4]float64{0, 2.0 / 3, 2.0 / 3, 2.0 / 3}, false},
		{"all found by rank 5, duplicates count once",
			[]string{"d", "d", "a", "x", "e"}, []string{"a", "e", "a"},
			[4]float64{0, 1, 1, 1}, [4]float64{0, 1, 1, 1}, [4]float64{0.5, 1, 1, 1}, false},
		{"hit at rank 20 counts only at 20; its session is the second distinct one",
			append(fill("x", 19), "c"), []string{"c"},
			[4]float64{0, 0, 0, 1}, [4]float64{0, 0, 0, 1}, [4]float64{0, 1, 1, 1}, false},
		{"no evidence scores 0", []string{"a"}, nil,
			[4]float64{}, [4]float64{}, [4]float64{}, false},
		{"evidence without a known session: session recall 0", []string{"z"}, []string{"z"},
			[4]float64{1, 1, 1, 1}, [4]float64{1, 1, 1, 1}, [4]float64{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scoreQuestion(tt.ranked, tt.evidence, sessions)
			if !near(got.Turn, tt.turn) || !near(got.All, tt.all) || !near(got.Session, tt.session) || got.Empty != tt.empty {
				t.Errorf("got turn %v all %v session %v empty %v; want %v %v %v %v",
					got.Turn, got.All, got.Session, got.Empty, tt.turn, tt.all, tt.session, tt.empty)
			}
		})
	}
}

func TestScoreQuestion_DoesNotChangeItsInput(t *testing.T) {
	ranked, evidence := []string{"b", "a"}, []string{"a"}
	_ = scoreQuestion(ranked, evidence, map[string]string{"a": "s1"})
	if ranked[0] != "b" || ranked[1] != "a" || evidence[0] != "a" {
		t.Errorf("input changed: %v %v", ranked, evidence)
	}
}

func TestTally_Means(t *testing.T) {
	var tl tally
	if r := tl.recall(); r.Questions != 0 || r.Turn[5] != 0 || len(r.Turn) != len(recallKs) {
		t.Errorf("empty tally = %+v", r)
	}
	tl.add(questionScore{Turn: [4]float64{1, 1, 1, 1}, All: [4]float64{1, 1, 1, 1}, Session: [4]float64{1, 1, 1, 1}})
	tl.add(questionScore{Turn: [4]float64{0, 0.5, 0.5, 1}, Session: [4]float64{0, 1, 1, 1}, Empty: false})
	tl.add(questionScore{Empty: true})
	r := tl.recall()
	want := map[int]float64{1: 1.0 / 3, 5: 1.5 / 3, 10: 1.5 / 3, 20: 2.0 / 3}
	for k, w := range want {
		if math.Abs(r.Turn[k]-w) > 1e-9 {
			t.Errorf("turn R@%d = %v, want %v", k, r.Turn[k], w)
		}
	}
	if r.Questions != 3 || r.Empty != 1 || math.Abs(r.All[5]-1.0/3) > 1e-9 || math.Abs(r.Session[5]-2.0/3) > 1e-9 {
		t.Errorf("recall = %+v", r)
	}
}

func TestLatencyOf(t *testing.T) {
	if l := latencyOf(nil); l != (Latency{}) {
		t.Errorf("no samples: %+v", l)
	}
	ms := []float64{5, 1, 4, 2, 3}
	l := latencyOf(ms)
	if l.Mean != 3 || l.P50 != 3 || l.P95 != 5 {
		t.Errorf("latency = %+v", l)
	}
	if ms[0] != 5 {
		t.Error("latencyOf sorted its input")
	}
}

func fill(id string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = id
	}
	return out
}

func near(a, b [4]float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}
