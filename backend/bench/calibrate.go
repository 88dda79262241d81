package bench

import (
	"context"
	"fmt"
	"io"
	"sort"

	"hyatlas/backend/memory"
)

// FloorReport is what sets an embedder's vector floor (see README, "The
// vector floor"): how close a question's evidence is, and how close the
// best match of a question no conversation answers gets.
type FloorReport struct {
	Embedder string `json:"embedder"`
	// Evidence: the cosine between each question (categories 1-4) and
	// each of its evidence turns: what the floor must keep.
	Evidence Percentiles `json:"evidence"`
	// OffTopicBest: the best cosine an off-topic question (10 generated
	// per conversation) reaches in the conversation: what it should drop.
	OffTopicBest Percentiles `json:"off_topic_best"`
	// Margins: the best cosine minus the mean of the best 40, for every
	// third on-topic question and for the off-topic ones.
	OnTopicMargin  Percentiles `json:"on_topic_margin"`
	OffTopicMargin Percentiles `json:"off_topic_margin"`
}

// Percentiles of a sample; N is its size.
type Percentiles struct {
	N   int     `json:"n"`
	P10 float64 `json:"p10"`
	P25 float64 `json:"p25"`
	P50 float64 `json:"p50"`
	P75 float64 `json:"p75"`
	P90 float64 `json:"p90"`
	Max float64 `json:"max"`
}

// percentilesOf sorts v and reads its percentiles (nearest rank below);
// an empty sample gives zeros.
func percentilesOf(v []float64) Percentiles {
	if len(v) == 0 {
		return Percentiles{}
	}
	sort.Float64s(v)
	at := func(p float64) float64 { return v[int(p/100*float64(len(v)-1))] }
	return Percentiles{N: len(v), P10: at(10), P25: at(25), P50: at(50), P75: at(75), P90: at(90), Max: v[len(v)-1]}
}

// marginDepth is how many nearest turns a margin averages over.
const marginDepth = 40

// CalibrateFloor ingests the LoCoMo conversations as EvaluateRecall does
// and measures the cosines of FloorReport with the run's embedder.
func CalibrateFloor(ctx context.Context, o RecallOptions) (FloorReport, error) {
	run, err := openLoCoMo(ctx, o)
	if err != nil {
		return FloorReport{}, err
	}
	defer run.close()
	embed := func(q string) ([]float32, error) {
		v, err := run.embedder.Embed(ctx, []string{q}, memory.PurposeQuery)
		if err != nil {
			return nil, fmt.Errorf("embed %q: %w", q, err)
		}
		return v[0], nil
	}
	nearest := func(v []float32, user string, k int) ([]memory.VectorHit, error) {
		hits, err := run.index.Search(ctx, v, k, memory.VectorFilter{Scope: memory.Scope{UserIDs: []string{user}}})
		if err == nil && len(hits) == 0 {
			err = fmt.Errorf("no turn of %s in the index", user)
		}
		return hits, err
	}
	margin := func(hits []memory.VectorHit) float64 {
		sum := 0.0
		for _, h := range hits {
			sum += h.Score
		}
		return hits[0].Score - sum/float64(len(hits))
	}
	var evidence, offBest, onMargin, offMargin []float64
	for i, c := range run.convs {
		for j, q := range c.Questions {
			v, err := embed(q.Text)
			if err != nil {
				return FloorReport{}, err
			}
			for _, d := range q.Evidence {
				if w, ok := run.index.Vector(run.ins[i].memoryOf[d]); ok {
					evidence = append(evidence, cosine(v, w))
				}
			}
			if j%3 == 0 {
				hits, err := nearest(v, c.ID, marginDepth)
				if err != nil {
					return FloorReport{}, err
				}
				onMargin = append(onMargin, margin(hits))
			}
		}
		for _, q := range offTopicQueries(10, int64(i)) {
			v, err := embed(q)
			if err != nil {
				return FloorReport{}, err
			}
			hits, err := nearest(v, c.ID, marginDepth)
			if err != nil {
				return FloorReport{}, err
			}
			offBest = append(offBest, hits[0].Score)
			offMargin = append(offMargin, margin(hits))
		}
	}
	return FloorReport{Embedder: run.embedder.Info().ID, Evidence: percentilesOf(evidence),
		OffTopicBest: percentilesOf(offBest), OnTopicMargin: percentilesOf(onMargin),
		OffTopicMargin: percentilesOf(offMargin)}, nil
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// PrintFloor writes a FloorReport as a markdown table.
func PrintFloor(w io.Writer, r FloorReport) {
	fmt.Fprintf(w, "\nembedder %s\n\n", r.Embedder)
	fmt.Fprintln(w, "| cosine | n | p10 | p25 | p50 | p75 | p90 | max |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, row := range []struct {
		name string
		p    Percentiles
	}{
		{"question to each evidence turn", r.Evidence},
		{"off-topic question to its best turn", r.OffTopicBest},
		{"on-topic margin (best minus mean of 40)", r.OnTopicMargin},
		{"off-topic margin", r.OffTopicMargin},
	} {
		p := row.p
		fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", row.name, p.N, p.P10, p.P25, p.P50, p.P75, p.P90, p.Max)
	}
}
