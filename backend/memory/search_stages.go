package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"
)

// searchRun is the state one search carries through the pipeline.
type searchRun struct {
	svc      *Service
	emb      *embedding // fixed for the whole search
	q        searchQuery
	vec      []float32
	vecHits  []VectorHit
	kwHits   []KeywordHit
	cands    []*candidate
	byID     map[string]*candidate
	hits     []Hit
	entities []string // lower-case names of the entity pages the query names
	gated    string   // why the gate returned nothing
	timings  map[string]time.Duration
}

// candidate is a memory found by a leg or a boost, with its row once
// loaded and the parts of its score.
type candidate struct {
	id          string
	row         Memory
	loaded      bool
	cosine      float64
	hasCosine   bool
	vectorRank  int
	keyword     float64
	keywordRank int
	words       map[string]bool // its keyword terms, once wordsOf made them
	why         Why
	base        float64 // the weighted legs
	score       float64 // base plus boosts, times strength
	reason      bool    // found by the date window, an entity or the graph
	inWindow    bool    // dated inside the query's window, or tells of it
}

// searchStage is one step of the recall pipeline. Stages run in order and
// each reads and extends the run; a stage that finds nothing relevant
// sets run.gated and the pipeline stops with no hits.
type searchStage struct {
	name string
	run  func(context.Context, *searchRun) error
}

var searchPipeline = []searchStage{
	{"read", readQuery},
	{"embed", embedQuery},
	{"candidates", gatherCandidates},
	{"load", loadCandidates},
	{"score", scoreLegs},
	{"boost", applyBoosts},
	{"filter", filterCandidates},
	{"rank", rankCandidates},
	{"gate", relevanceGate},
	{"diversify", diversify},
	{"collect", collectHits},
}

// readQuery stops trivial prompts before any work.
func readQuery(_ context.Context, r *searchRun) error {
	if why := trivial(r.q.text); why != "" {
		r.gated = "the query is " + why
	}
	return nil
}

func embedQuery(ctx context.Context, r *searchRun) error {
	if r.q.reader == ReaderKeyword {
		return nil
	}
	v, err := embedWith(ctx, r.emb.embedder, r.q.text, PurposeQuery)
	if err != nil {
		return err
	}
	r.vec = v.Values
	return nil
}

// candidate returns the candidate for id, adding it.
func (r *searchRun) candidate(id string) *candidate {
	c, ok := r.byID[id]
	if !ok {
		c = &candidate{id: id}
		r.byID[id] = c
		r.cands = append(r.cands, c)
	}
	return c
}

// depth is how many candidates each source brings.
func (r *searchRun) depth() int { return max(legDepth, 3*r.q.limit) }

// gatherCandidates runs the two legs at once (the keyword leg waits on
// SQLite while the vector leg computes, then while the rows dated inside a
// window the query names and the entity pages it names are read), and adds
// what each found, in that order.
func gatherCandidates(ctx context.Context, r *searchRun) error {
	var kwErr error
	var kwTime time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		kwErr = keywordLeg(ctx, r)
		kwTime = time.Since(start)
	}()
	start := time.Now()
	vecErr := vectorLeg(ctx, r)
	r.timings["vector"] = time.Since(start)
	dated, datedErr := datedRows(ctx, r)
	pages, pagesErr := namedPages(ctx, r)
	<-done
	r.timings["keyword"] = kwTime
	if err := errors.Join(vecErr, kwErr, datedErr, pagesErr); err != nil {
		return err
	}
	for i, h := range r.vecHits {
		c := r.candidate(h.ID)
		c.cosine, c.hasCosine, c.vectorRank = h.Score, true, i+1
	}
	for i, h := range r.kwHits {
		c := r.candidate(h.ID)
		c.keyword, c.keywordRank = h.Score, i+1
	}
	for _, m := range dated {
		c := r.candidate(m.ID)
		c.row, c.loaded, c.reason, c.inWindow = m, true, true, true
	}
	for _, p := range pages {
		c := r.candidate(p.row.ID)
		c.row, c.loaded, c.reason = p.row, true, true
		c.why.Entity = entityPageW
		r.entities = append(r.entities, p.name)
	}
	return keywordFill(ctx, r)
}

// keywordFill gives the candidates that only the date window or a named
// entity brought their BM25 too: the keyword leg ranks at most depth rows,
// and with a common word (a name in every other turn) a dated row that
// holds the question's words can sit below that cut.
func keywordFill(ctx context.Context, r *searchRun) error {
	if r.q.reader == ReaderVector || len(r.q.terms) == 0 {
		return nil
	}
	if len(r.kwHits) == 0 {
		return nil // no row holds a term
	}
	var ids []string
	for _, c := range r.cands {
		if c.keywordRank == 0 && c.vectorRank == 0 {
			ids = append(ids, c.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	hits, err := r.svc.store.Keyword(ctx, KeywordQuery{Terms: r.q.terms, Layers: r.q.layers, Scope: r.q.scope,
		Limit: len(ids), IDs: ids})
	if err != nil {
		return fmt.Errorf("keyword scores of other candidates: %w", err)
	}
	for _, h := range hits {
		if c, ok := r.byID[h.ID]; ok {
			c.keyword = h.Score
		}
	}
	return nil
}

// vectorLeg takes the nearest live rows in scope. The floor is applied
// by the gate, not here: a weak cosine still tells the score something.
func vectorLeg(ctx context.Context, r *searchRun) error {
	if r.q.reader == ReaderKeyword || r.vec == nil {
		return nil
	}
	hits, err := r.emb.index.Search(ctx, r.vec, r.depth(), VectorFilter{Layers: r.q.layers, Scope: r.q.scope})
	if err != nil {
		return fmt.Errorf("vector index: %w", err)
	}
	r.vecHits = hits
	return nil
}

// keywordLeg runs the stemmed full-text leg.
func keywordLeg(ctx context.Context, r *searchRun) error {
	if r.q.reader == ReaderVector || len(r.q.terms) == 0 {
		return nil
	}
	hits, err := r.svc.store.Keyword(ctx, KeywordQuery{
		Terms: r.q.terms, Layers: r.q.layers, Scope: r.q.scope, Limit: r.depth(),
	})
	if err != nil {
		return fmt.Errorf("keyword index: %w", err)
	}
	r.kwHits = hits
	return nil
}

// loadCandidates reads every candidate's row (one query) and drops those
// retired, deleted or out of scope since the legs answered, and the Now
// page (the answer's own field, never a hit). The same checks hold for the
// rows a source read already (the date window lists rows of every layer,
// the Now page among them). It fills in the cosine of rows only the
// keyword leg found.
func loadCandidates(ctx context.Context, r *searchRun) error {
	ids := make([]string, 0, len(r.cands))
	for _, c := range r.cands {
		if !c.loaded {
			ids = append(ids, c.id)
		}
	}
	rows, err := r.svc.store.GetMany(ctx, ids)
	if err != nil {
		return fmt.Errorf("load rows: %w", err)
	}
	kept := r.cands[:0]
	for _, c := range r.cands {
		if !c.loaded {
			m, ok := rows[c.id]
			if !ok {
				delete(r.byID, c.id)
				continue
			}
			c.row, c.loaded = m, true
		}
		if !c.row.Live() || !r.q.scope.Holds(c.row) || isNowPage(c.row) {
			delete(r.byID, c.id)
			continue // the Now page is the answer's own field, not a hit
		}
		if len(r.q.layers) > 0 && !slices.Contains(r.q.layers, c.row.Layer) {
			delete(r.byID, c.id) // a page or a graph link of another layer than the one asked
			continue
		}
		if !c.hasCosine && r.vec != nil {
			if v, ok := r.emb.index.Vector(c.id); ok {
				c.cosine, c.hasCosine = dot(r.vec, v), true
			}
		}
		kept = append(kept, c)
	}
	r.cands = kept
	return nil
}

// wordsOf returns c's keyword terms, making them on first use.
func wordsOf(c *candidate) map[string]bool {
	if c.words == nil {
		c.words = map[string]bool{}
		for _, t := range KeywordTerms(c.row.Content) {
			c.words[t] = true
		}
	}
	return c.words
}

// rankCandidates orders candidates by score; ties go to the higher cosine.
func rankCandidates(_ context.Context, r *searchRun) error {
	sort.SliceStable(r.cands, func(i, j int) bool {
		a, b := r.cands[i], r.cands[j]
		if a.score != b.score {
			return a.score > b.score
		}
		return a.cosine > b.cosine
	})
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
