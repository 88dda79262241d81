package memory

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"
)

// Selection constants.
const (
	// nearDuplicate is the share of shared words (Jaccard of the keyword
	// terms) above which a lower-ranked memory is a near copy of a higher
	// one and is demoted (halved). Words, not cosines: bag-of-words
	// embedders give unrelated short texts cosines above 0.95.
	nearDuplicate = 0.8
	// duplicateDemotion is the factor a near duplicate's score is
	// multiplied by (why.demotion, with why.duplicate_of naming the better
	// memory).
	duplicateDemotion = 0.5
	// gateCoverage is the share of the query's terms a keyword match must
	// hold to count as evidence on its own.
	gateCoverage = 0.4
	// intentionGrace keeps an intention due at a time of day this long
	// after it is due (one due on a day stays through that day: see
	// intentionCurrent).
	intentionGrace = 24 * time.Hour
)

// filterCandidates drops what the query rules out: intentions that are
// no longer current (an undated one older than HYATLAS_INTENTION_TTL, a
// dated one a day after it was due), and, when the query is only a date
// ("what happened yesterday"), everything dated outside its window. A
// date among other words only boosts (see applyBoosts).
func filterCandidates(_ context.Context, r *searchRun) error {
	now := r.svc.now()
	onlyDate := r.q.dated && onlyGeneric(r.q.terms)
	kept := r.cands[:0]
	for _, c := range r.cands {
		if onlyDate && !c.inWindow && !datedIn(c.row, r.q.window) {
			continue
		}
		if c.row.Layer == LayerIntention && !r.svc.intentionCurrent(c.row, now) {
			continue
		}
		kept = append(kept, c)
	}
	r.cands = kept
	return nil
}

// intentionCurrent reports whether an intention is still current at now:
// an undated one for HYATLAS_INTENTION_TTL after it was written, one due
// at a time of day until intentionGrace (a day) after that time, and one
// due on a day (no time of day, as a model's dates are kept) through that
// calendar day where the owner is: until the next midnight in the owner's
// zone, not midnight UTC (west of UTC that is hours later) nor 24 hours
// after the day began (the day clocks go back is 25 hours long, the day
// they go forward 23). Recall, the prompt block, the Now page and the
// open intentions offered to extraction all read intentions by this.
func (s *Service) intentionCurrent(m Memory, now time.Time) bool {
	if m.DueAt.IsZero() {
		ttl := s.cfg.Search.IntentionTTL
		return ttl <= 0 || now.Sub(m.CreatedAt) <= ttl
	}
	if loc := s.cfg.Extraction.Location; loc != nil && dayOnly(m.DueAt) {
		return now.Before(qdDayOf(m.DueAt.UTC()).add(1).midnight(loc))
	}
	return !now.After(m.DueAt.Add(intentionGrace))
}

// currentIntentions keeps the intentions of rows still current at now
// (see intentionCurrent), in their order.
func (s *Service) currentIntentions(rows []Memory, now time.Time) []Memory {
	var out []Memory
	for _, m := range rows {
		if s.intentionCurrent(m, now) {
			out = append(out, m)
		}
	}
	return out
}

// evidence reports whether a candidate is relevant on its own: a cosine
// at or above the floor, a keyword match holding enough of the query's
// terms (any match when the query has one or two), or a reason of its own
// (the date window of a query that asks only a date, a named entity, a
// link to a strong match).
func (r *searchRun) evidence(c *candidate) bool {
	// Found by the date alone for a query that asks more than a date ("a
	// poem about today"): that is no reason of its own. An intention due
	// then answers plan nouns too ("any appointments tomorrow?").
	asksDate := onlyGeneric(r.q.terms) || c.row.Layer == LayerIntention && onlyPlanning(r.q.terms)
	byDateAlone := c.inWindow && !asksDate && c.why.Entity == 0 && c.why.Graph == 0
	switch {
	case c.reason && !byDateAlone:
		return true
	case c.hasCosine && r.q.minScore > 0 && c.cosine >= r.q.minScore && r.q.reader != ReaderKeyword:
		return true
	case c.hasCosine && r.q.minScore == 0 && r.q.reader != ReaderKeyword:
		return true
	case c.keyword > 0 && (len(r.q.terms) <= 2 || termCoverage(r.q.terms, wordsOf(c)) >= gateCoverage):
		return true
	}
	return false
}

// relevanceGate answers an off-topic query with nothing: unless some
// candidate is relevant on its own (see evidence), the search returns no
// hit rather than the least bad memories. When one is, the candidates
// stay (an answer's other turns often share few of the question's
// words), except those found by the vector leg alone under the floor:
// the request's min_score when it gives one, else the embedder's
// no-similarity cosine.
func relevanceGate(_ context.Context, r *searchRun) error {
	relevant := false
	for _, c := range r.cands {
		if r.evidence(c) {
			relevant = true
			break
		}
	}
	if !relevant {
		r.cands = nil
		r.gated = "nothing relevant"
		return nil
	}
	floor := r.q.zero
	if r.q.explicitFloor {
		floor = r.q.minScore
	}
	kept := r.cands[:0]
	for _, c := range r.cands {
		if c.keyword > 0 || c.reason || !c.hasCosine || c.cosine >= floor {
			kept = append(kept, c)
		}
	}
	r.cands = kept
	return nil
}

// diversify demotes near duplicates of better candidates (their score
// times duplicateDemotion; their why names the better one and the
// factor), then picks the top by maximal marginal relevance
// (HYATLAS_MMR_LAMBDA): each next hit trades its score against its
// similarity to the hits already picked.
func diversify(_ context.Context, r *searchRun) error {
	window := r.cands[:min(len(r.cands), 3*r.q.limit)]
	words := make([]map[string]bool, len(window))
	for i, c := range window {
		words[i] = wordsOf(c)
	}
	for i, c := range window {
		for j := range i {
			if jaccard(words[i], words[j]) >= nearDuplicate {
				c.score *= duplicateDemotion
				c.why.Fused = c.score
				c.why.DuplicateOf, c.why.Demotion = window[j].id, duplicateDemotion
				break
			}
		}
	}
	lambda := r.svc.cfg.Search.MMRLambda
	if lambda <= 0 || lambda >= 1 {
		sortByScore(window)
		return nil
	}
	best := 0.0
	for _, c := range window {
		best = math.Max(best, c.score)
	}
	if best <= 0 {
		return nil
	}
	// Greedy MMR; maxSim[i] is i's highest similarity to a picked hit,
	// kept up to date as hits are picked (O(n²) in all).
	ordered := make([]*candidate, 0, len(window))
	used := make([]bool, len(window))
	maxSim := make([]float64, len(window))
	for len(ordered) < len(window) {
		at, atVal := -1, math.Inf(-1)
		for i, c := range window {
			if !used[i] {
				if v := lambda*c.score/best - (1-lambda)*maxSim[i]; v > atVal {
					at, atVal = i, v
				}
			}
		}
		used[at] = true
		ordered = append(ordered, window[at])
		for i := range window {
			if !used[i] {
				maxSim[i] = math.Max(maxSim[i], jaccard(words[i], words[at]))
			}
		}
	}
	copy(window, ordered)
	return nil
}

// collectHits turns the top candidates into hits: texts equal but for
// case and spacing fold into one (a profile row wins over the fact it
// mirrors), each with the versions it replaced.
func collectHits(ctx context.Context, r *searchRun) error {
	seen := map[string]int{}
	for _, c := range r.cands {
		if len(r.hits) >= r.q.limit {
			break
		}
		h := Hit{Memory: c.row, Score: c.cosine, Why: c.why}
		key := NormalizeText(c.row.Content)
		if i, dup := seen[key]; dup {
			if c.row.Layer == LayerProfile && r.hits[i].Memory.Layer != LayerProfile {
				r.hits[i] = h
			}
			continue
		}
		seen[key] = len(r.hits)
		r.hits = append(r.hits, h)
	}
	ids := make([]string, len(r.hits))
	for i, h := range r.hits {
		ids[i] = h.Memory.ID
	}
	replaced, err := r.svc.store.ReplacedIDs(ctx, ids)
	if err != nil {
		return fmt.Errorf("read replaced versions: %w", err)
	}
	for i := range r.hits {
		r.hits[i].Replaced = replaced[r.hits[i].Memory.ID]
	}
	return keywordHitScores(ctx, r)
}

// keywordHitScores gives the hits of a keyword-only search their Score,
// the cosine between the query and the memory, as the public contract
// reports it for every reader. The query is embedded for this alone: the
// ranking is the keyword leg's.
func keywordHitScores(ctx context.Context, r *searchRun) error {
	if r.vec != nil || len(r.hits) == 0 {
		return nil
	}
	v, err := embedWith(ctx, r.emb.embedder, r.q.text, PurposeQuery)
	if err != nil {
		return err
	}
	for i := range r.hits {
		if dv, ok := r.emb.index.Vector(r.hits[i].Memory.ID); ok {
			r.hits[i].Score = dot(v.Values, dv)
		}
	}
	return nil
}

func sortByScore(cs []*candidate) {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
}

func sortByBase(cs []*candidate) {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].base > cs[j].base })
}

// jaccard is the share of shared words of two sets (0 when either has
// fewer than three words: too short to call a copy).
func jaccard(a, b map[string]bool) float64 {
	if len(a) < 3 || len(b) < 3 {
		return 0
	}
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return float64(shared) / float64(len(a)+len(b)-shared)
}

// rescale maps a cosine so that the embedder's floor counts 0 and a
// perfect match 1: cosines mean different things for different models.
func rescale(cos, zero float64) float64 { return math.Max(0, (cos-zero)/(1-zero)) }
