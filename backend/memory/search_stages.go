package memory

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// searchRun is the state one search carries through the pipeline.
type searchRun struct {
	svc     *Service
	q       searchQuery
	vec     []float32
	vecHits []VectorHit
	kwHits  []KeywordHit
	cands   []*candidate
	hits    []Hit
	timings map[string]time.Duration
}

// candidate is a memory found by at least one leg.
type candidate struct {
	id          string
	cosine      float64
	hasCosine   bool
	vectorRank  int
	keyword     float64
	keywordRank int
	fused       float64
}

// searchStage is one step of the recall pipeline. Stages run in order and
// each reads and extends the run; a new ranking signal is a new stage.
type searchStage struct {
	name string
	run  func(context.Context, *searchRun) error
}

var searchPipeline = []searchStage{
	{"embed", embedQuery},
	{"vector", vectorCandidates},
	{"keyword", keywordCandidates},
	{"fuse", fuseByRank},
	{"load", loadRows},
	{"dedupe", foldDuplicates},
	{"limit", cutToLimit},
}

func embedQuery(ctx context.Context, r *searchRun) error {
	if r.q.reader == ReaderKeyword && len(r.q.terms) == 0 {
		return nil
	}
	v, err := r.svc.embedOne(ctx, r.q.text, PurposeQuery)
	if err != nil {
		return err
	}
	r.vec = v.Values
	return nil
}

// vectorCandidates takes the nearest live rows in scope and drops those
// under the floor before they can take part in fusion.
func vectorCandidates(ctx context.Context, r *searchRun) error {
	if r.q.reader == ReaderKeyword || r.vec == nil {
		return nil
	}
	hits, err := r.svc.index.Search(ctx, r.vec, r.q.limit*fetchFactor, VectorFilter{Layers: r.q.layers, Scope: r.q.scope})
	if err != nil {
		return fmt.Errorf("vector index: %w", err)
	}
	for _, h := range hits {
		if h.Score >= r.q.minScore {
			r.vecHits = append(r.vecHits, h)
		}
	}
	return nil
}

// keywordCandidates runs the stemmed full-text leg.
func keywordCandidates(ctx context.Context, r *searchRun) error {
	if r.q.reader == ReaderVector || len(r.q.terms) == 0 {
		return nil
	}
	hits, err := r.svc.store.Keyword(ctx, KeywordQuery{
		Terms: r.q.terms, Layers: r.q.layers, Scope: r.q.scope, Limit: r.q.limit * fetchFactor,
	})
	if err != nil {
		return fmt.Errorf("keyword index: %w", err)
	}
	r.kwHits = hits
	return nil
}

// fuseByRank merges the two legs by reciprocal rank (k = 60): each list a
// memory appears in adds 1/(60 + rank). Ties go to the higher cosine.
func fuseByRank(_ context.Context, r *searchRun) error {
	byID := map[string]*candidate{}
	get := func(id string) *candidate {
		c, ok := byID[id]
		if !ok {
			c = &candidate{id: id}
			byID[id] = c
			r.cands = append(r.cands, c)
		}
		return c
	}
	for i, h := range r.vecHits {
		c := get(h.ID)
		c.cosine, c.hasCosine, c.vectorRank = h.Score, true, i+1
		c.fused += 1.0 / float64(rrfK+i+1)
	}
	for i, h := range r.kwHits {
		c := get(h.ID)
		c.keyword, c.keywordRank = h.Score, i+1
		c.fused += 1.0 / float64(rrfK+i+1)
		if !c.hasCosine && r.vec != nil {
			if v, ok := r.svc.index.Vector(h.ID); ok {
				c.cosine, c.hasCosine = dot(r.vec, v), true
			}
		}
	}
	sort.SliceStable(r.cands, func(i, j int) bool {
		a, b := r.cands[i], r.cands[j]
		if a.fused != b.fused {
			return a.fused > b.fused
		}
		return a.cosine > b.cosine
	})
	return nil
}

// loadRows reads the candidates from the store, in rank order. A row that
// was retired or deleted since the index answered is dropped.
func loadRows(ctx context.Context, r *searchRun) error {
	ids := make([]string, len(r.cands))
	for i, c := range r.cands {
		ids[i] = c.id
	}
	rows, err := r.svc.store.GetMany(ctx, ids)
	if err != nil {
		return fmt.Errorf("load rows: %w", err)
	}
	for _, c := range r.cands {
		m, ok := rows[c.id]
		if !ok || !m.Live() || !r.q.scope.Covers(m.Owner) {
			continue
		}
		r.hits = append(r.hits, Hit{Memory: m, Score: c.cosine, Why: Why{
			Vector: c.cosine, VectorRank: c.vectorRank,
			Keyword: c.keyword, KeywordRank: c.keywordRank, Fused: c.fused,
		}})
	}
	return nil
}

// foldDuplicates keeps one hit per text (case and spacing ignored): the
// profile row when a profile row mirrors a fact, else the better ranked.
func foldDuplicates(_ context.Context, r *searchRun) error {
	seen := map[string]int{}
	out := r.hits[:0]
	for _, h := range r.hits {
		key := NormalizeText(h.Memory.Content)
		if i, ok := seen[key]; ok {
			if h.Memory.Layer == LayerProfile && out[i].Memory.Layer != LayerProfile {
				out[i] = h
			}
			continue
		}
		seen[key] = len(out)
		out = append(out, h)
	}
	r.hits = out
	return nil
}

func cutToLimit(_ context.Context, r *searchRun) error {
	if len(r.hits) > r.q.limit {
		r.hits = r.hits[:r.q.limit]
	}
	return nil
}

func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
