package bench

import "sort"

// recallKs are the cut-offs every recall measure is reported at.
var recallKs = []int{1, 5, 10, 20}

// questionScore is how well one ranked answer covers one question's
// evidence, at each cut-off of recallKs (same index).
type questionScore struct {
	// Turn is the share of the evidence turns among the first k hits.
	Turn [4]float64
	// All is 1 when every evidence turn is among the first k hits, else 0.
	All [4]float64
	// Session is the share of the evidence's sessions among the first k
	// distinct sessions of the ranking (walking down the hits until k
	// sessions are seen): the measure of the project's BM25 floor.
	Session [4]float64
	// Empty: the answer had no hit at all.
	Empty bool
}

// scoreQuestion scores a ranked list of memory ids (best first) against a
// question's evidence memory ids. sessionOf maps a memory id to its
// session; a hit it does not know belongs to no session. Duplicate ids in
// either list count once (a duplicate hit still takes its rank). With no
// evidence every measure is 0: callers skip such questions. It is pure:
// the same input always gives the same score.
func scoreQuestion(ranked, evidence []string, sessionOf map[string]string) questionScore {
	s := questionScore{Empty: len(ranked) == 0}
	want := map[string]bool{}
	wantSessions := map[string]bool{}
	for _, id := range evidence {
		want[id] = true
		if sess, ok := sessionOf[id]; ok {
			wantSessions[sess] = true
		}
	}
	if len(want) == 0 {
		return s
	}
	rank := map[string]int{} // id -> best 1-based rank
	for i, id := range ranked {
		if _, seen := rank[id]; !seen {
			rank[id] = i + 1
		}
	}
	for ki, k := range recallKs {
		found := 0
		for id := range want {
			if r, ok := rank[id]; ok && r <= k {
				found++
			}
		}
		s.Turn[ki] = float64(found) / float64(len(want))
		if found == len(want) {
			s.All[ki] = 1
		}
		if len(wantSessions) == 0 {
			continue
		}
		seen, got := map[string]bool{}, 0
		for _, id := range ranked {
			sess, ok := sessionOf[id]
			if !ok || seen[sess] {
				continue
			}
			if len(seen) == k {
				break
			}
			seen[sess] = true
			if wantSessions[sess] {
				got++
			}
		}
		s.Session[ki] = float64(got) / float64(len(wantSessions))
	}
	return s
}

// tally sums the scores of a set of questions.
type tally struct {
	n, empty            int
	turn, all, sessions [4]float64
}

func (t *tally) add(s questionScore) {
	t.n++
	if s.Empty {
		t.empty++
	}
	for i := range recallKs {
		t.turn[i] += s.Turn[i]
		t.all[i] += s.All[i]
		t.sessions[i] += s.Session[i]
	}
}

// Recall is the mean of each measure over a set of questions, keyed by k.
type Recall struct {
	Questions int             `json:"questions"`
	Turn      map[int]float64 `json:"turn_recall"`
	All       map[int]float64 `json:"recall_all"`
	Session   map[int]float64 `json:"session_recall"`
	// Empty counts the questions answered with no hit.
	Empty int `json:"empty_results"`
}

// recall is the tally's means; with no question every mean is 0.
func (t tally) recall() Recall {
	r := Recall{Questions: t.n, Empty: t.empty, Turn: map[int]float64{}, All: map[int]float64{}, Session: map[int]float64{}}
	for i, k := range recallKs {
		if t.n > 0 {
			r.Turn[k] = t.turn[i] / float64(t.n)
			r.All[k] = t.all[i] / float64(t.n)
			r.Session[k] = t.sessions[i] / float64(t.n)
		} else {
			r.Turn[k], r.All[k], r.Session[k] = 0, 0, 0
		}
	}
	return r
}

// Latency summarises search times, in milliseconds.
type Latency struct {
	Mean float64 `json:"mean_ms"`
	P50  float64 `json:"p50_ms"`
	P95  float64 `json:"p95_ms"`
}

// latencyOf summarises ms (in any order; it is not changed). With no
// sample every field is 0.
func latencyOf(ms []float64) Latency {
	if len(ms) == 0 {
		return Latency{}
	}
	sorted := append([]float64(nil), ms...)
	sort.Float64s(sorted)
	var sum float64
	for _, v := range sorted {
		sum += v
	}
	return Latency{Mean: sum / float64(len(sorted)), P50: percentile(sorted, 50), P95: percentile(sorted, 95)}
}
