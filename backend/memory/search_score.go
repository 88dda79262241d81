package memory

import (
	"context"
	"math"
	"sort"
	"strings"
	"time"
)

// Boost weights. Scores live on the scale of the legs: the best keyword
// match counts 1 and a perfect cosine 0.5 (natural queries), so a boost of
// 0.5 is worth half the best keyword match. Session and speaker were tuned
// on LoCoMo; the others are set so that each decides close calls, not the
// ranking.
const (
	sessionBoost   = 0.6  // times the best base score in the same conversation
	speakerShare   = 0.35 // times its own base, a line of the speaker the query names
	dateBoost      = 0.8  // dated inside the window the query names
	temporalLean   = 0.35 // a matching memory that carries a date, for a "when" question
	entityPageW    = 0.5  // the page of an entity the query names
	entityMentionW = 0.15 // a memory that mentions it
	graphBoost     = 0.3  // times the score of a linked strong match
	recencyBoost   = 0.05 // the newest candidate; the oldest gets 0
	usageBoost     = 0.1  // a memory replies used ten times or more
	intentionBoost = 0.3  // an open intention of the caller's session
	graphSources   = 10   // how many top candidates lend to their links
)

// scoreLegs gives each candidate its base: the keyword leg's BM25 divided
// by the best BM25 of the query, plus the vector leg's cosine rescaled so
// that the embedder's floor counts 0 and a perfect match 1, each weighted
// by the query's kind (CombSUM; it beat rank fusion on LoCoMo, where a
// weak vector leg pulled rank fusion under BM25 alone).
func scoreLegs(_ context.Context, r *searchRun) error {
	wk, wv := legWeights(r.q.kind)
	switch r.q.reader {
	case ReaderKeyword:
		wv = 0
	case ReaderVector:
		wk = 0
	}
	best := 0.0
	for _, c := range r.cands {
		best = math.Max(best, c.keyword)
	}
	zero := math.Min(r.q.zero, 0.95)
	for _, c := range r.cands {
		c.why.Vector, c.why.VectorRank, c.why.Keyword, c.why.KeywordRank = c.cosine, c.vectorRank, c.keyword, c.keywordRank
		if best > 0 {
			c.base += wk * c.keyword / best
		}
		if c.hasCosine {
			c.base += wv * rescale(c.cosine, zero)
		}
	}
	return nil
}

// applyBoosts adds the session, speaker, date, entity, graph, recency, usage and
// intention parts to each base score and multiplies by strength.
func applyBoosts(ctx context.Context, r *searchRun) error {
	sessionParts(r)
	speakerParts(r)
	entityParts(r)
	if err := graphParts(ctx, r); err != nil {
		return err
	}
	recencyParts(r)
	usage := r.svc.cfg.Search.UsageLearning
	for _, c := range r.cands {
		w := &c.why
		switch {
		case r.q.dated && (c.inWindow || datedIn(c.row, r.q.window)):
			w.Date = dateBoost
		case r.q.temporal && c.base > 0 && r.carriesDate(c.row):
			w.Date = temporalLean
		}
		if usage && c.row.UseCount > 0 {
			w.Usage = usageBoost * math.Min(1, math.Log1p(float64(c.row.UseCount))/math.Log(11))
		}
		if c.row.Layer == LayerIntention && r.q.session != "" && c.row.SessionID == r.q.session {
			w.Intention = intentionBoost
		}
		w.Strength = 0.75 + 0.5*c.row.Strength
		sum := c.base + w.Session + w.Speaker + w.Date + w.Entity + w.Graph + w.Recency + w.Usage + w.Intention
		c.score = sum * w.Strength
		w.Fused = c.score
	}
	return nil
}

// carriesDate reports whether a memory says when something happened: its
// text holds a date expression ("yesterday", "in March", "2024-05-01"),
// or extraction dated it (a derived row whose event time is not the day it
// was written). A raw row's event time is its session's and says nothing.
func (r *searchRun) carriesDate(m Memory) bool {
	if m.Layer != LayerRaw && !m.EventAt.IsZero() && absDuration(m.EventAt.Sub(m.CreatedAt)) > 24*time.Hour {
		return true
	}
	_, _, ok := ParseQueryDates(m.Content, m.EventAt, r.svc.cfg.Extraction.Location)
	return ok
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// sessionParts lends each candidate a share of the best base score in its
// conversation (same owner and session): answers sit in the session where
// the question's words are. A row without a session is its own.
func sessionParts(r *searchRun) {
	best := map[string]float64{}
	key := func(c *candidate) string {
		if c.row.SessionID == "" {
			return "row\x00" + c.id
		}
		return c.row.Owner.UserID + "\x00" + c.row.Owner.AgentID + "\x00" + c.row.SessionID
	}
	for _, c := range r.cands {
		k := key(c)
		best[k] = math.Max(best[k], c.base)
	}
	for _, c := range r.cands {
		c.why.Session = sessionBoost * best[key(c)]
	}
}

// recencyParts ranks the candidates that matched by when they were
// written: the newest gets the whole boost, the oldest none. Only the
// order counts, so days without writes (an owner away on holiday) do not
// age anything: recency is measured in the owner's own activity.
func recencyParts(r *searchRun) {
	if !r.svc.cfg.Search.Recency {
		return
	}
	var matched []*candidate
	for _, c := range r.cands {
		if c.base > 0 || c.reason {
			matched = append(matched, c)
		}
	}
	if len(matched) < 2 {
		return
	}
	sort.SliceStable(matched, func(i, j int) bool { return matched[i].row.CreatedAt.Before(matched[j].row.CreatedAt) })
	for i, c := range matched {
		c.why.Recency = recencyBoost * float64(i) / float64(len(matched)-1)
	}
}

// termCoverage is the share of terms found in words, a term matching a
// word that starts with its first five letters (a poor man's stemmer).
func termCoverage(terms []string, words map[string]bool) float64 {
	if len(terms) == 0 {
		return 0
	}
	found := 0
	for _, t := range terms {
		if words[t] {
			found++
			continue
		}
		rs := []rune(t)
		p := string(rs[:min(len(rs), 5)])
		for w := range words {
			if strings.HasPrefix(w, p) {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(terms))
}
