package memory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// searchRun is the state one search carries through the pipeline.
type searchRun struct {
	svc     *Service
	emb     *embedding // fixed for the whole search
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
	{"candidates", bothLegs},
	{"fuse", fuseByRank},
	{"collect", collectHits},
}

// bothLegs runs the vector and keyword legs at once: they are independent,
// and the keyword leg waits on SQLite while the vector leg computes.
func bothLegs(ctx context.Context, r *searchRun) error {
	var kwErr error
	var kwTime time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		kwErr = keywordCandidates(ctx, r)
		kwTime = time.Since(start)
	}()
	start := time.Now()
	vecErr := vectorCandidates(ctx, r)
	vecTime := time.Since(start)
	<-done
	r.timings["vector"], r.timings["keyword"] = vecTime, kwTime
	return errors.Join(vecErr, kwErr)
}

func embedQuery(ctx context.Context, r *searchRun) error {
	if r.q.reader == ReaderKeyword && len(r.q.terms) == 0 {
		return nil
	}
	v, err := embedWith(ctx, r.emb.embedder, r.q.text, PurposeQuery)
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
	hits, err := r.emb.index.Search(ctx, r.vec, r.q.limit*fetchFactor, VectorFilter{Layers: r.q.layers, Scope: r.q.scope})
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
			if v, ok := r.emb.index.Vector(h.ID); ok {
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

// collectHits reads candidates from the store in rank order, a few at a
// time, until it has the limit: a row retired, deleted or out of scope
// since the legs answered is skipped, and texts equal but for case and
// spacing are folded into one hit (a profile row wins over the fact it
// mirrors).
func collectHits(ctx context.Context, r *searchRun) error {
	seen := map[string]int{}
	batch := max(2*r.q.limit, 10)
	for start := 0; start < len(r.cands) && len(r.hits) < r.q.limit; start += batch {
		cands := r.cands[start:min(start+batch, len(r.cands))]
		ids := make([]string, len(cands))
		for i, c := range cands {
			ids[i] = c.id
		}
		rows, err := r.svc.store.GetMany(ctx, ids)
		if err != nil {
			return fmt.Errorf("load rows: %w", err)
		}
		for _, c := range cands {
			m, ok := rows[c.id]
			if !ok || !m.Live() || !r.q.scope.Covers(m.Owner) || isNowPage(m) {
				continue // the Now page is the answer's own field, not a hit
			}
			h := Hit{Memory: m, Score: c.cosine, Why: Why{
				Vector: c.cosine, VectorRank: c.vectorRank,
				Keyword: c.keyword, KeywordRank: c.keywordRank, Fused: c.fused,
			}}
			key := NormalizeText(m.Content)
			if i, dup := seen[key]; dup {
				if m.Layer == LayerProfile && r.hits[i].Memory.Layer != LayerProfile {
					r.hits[i] = h
				}
				continue
			}
			seen[key] = len(r.hits)
			r.hits = append(r.hits, h)
		}
	}
	if len(r.hits) > r.q.limit {
		r.hits = r.hits[:r.q.limit]
	}
	return nil
}

func isNowPage(m Memory) bool { return m.Layer == LayerSummary && m.Category == CategoryNow }

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
