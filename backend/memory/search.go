package memory

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// Search limits and constants.
const (
	DefaultSearchLimit = 5
	MaxSearchLimit     = 100
	// legDepth is how many candidates each leg brings at least; more
	// when the limit is high.
	legDepth = 40
	// maxQueryTerms is how many distinct terms of a query the keyword
	// legs read at most: the first ones, after stop words. Agents send
	// whole prompts as queries; every term is one more OR of an FTS5
	// expression that each leg parses and ranks, so 60,000 words cost
	// half a minute. The vector leg still reads the whole query.
	maxQueryTerms = 64
)

// Reader picks the legs of a search.
type Reader string

// Readers. The wire accepts the public aliases listed in ParseReader.
const (
	ReaderHybrid  Reader = "hybrid"
	ReaderVector  Reader = "vector"
	ReaderKeyword Reader = "keyword"
)

// ParseReader maps a wire name to a Reader: "" and "hybrid" give hybrid;
// "legacy", "semantic" and "vector" give vector only; "hybrid_tag" and
// "keyword" give keyword only.
func ParseReader(s string) (Reader, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "hybrid":
		return ReaderHybrid, nil
	case "legacy", "semantic", "vector":
		return ReaderVector, nil
	case "hybrid_tag", "keyword":
		return ReaderKeyword, nil
	default:
		// As in the public contract: anything else ("hybrid_v2", a new
		// dashboard's tab) is the full hybrid recall.
		return ReaderHybrid, nil
	}
}

// SearchInput is a recall request.
type SearchInput struct {
	Query     string
	Limit     int // 0 means DefaultSearchLimit
	Layer     string
	UserIDs   []string // expanded by aliases; none means every user
	AgentID   string
	MinScore  *float64 // nil means the configured floor; 0 disables it
	Reader    string
	SessionID string // the caller's session: its own intentions rank first
}

// Hit is one recalled memory and why it ranked where it did.
type Hit struct {
	Memory Memory
	// Score is the cosine similarity between the query and the memory
	// (0 when the memory has no vector), as in the public contract.
	Score float64
	Why   Why
	// Replaced lists the ids of the versions this memory replaced.
	Replaced []string
}

// Why explains a hit's rank: each part of its score. Keyword and vector
// are the two legs; the others are added to (or, for strength, multiply)
// their weighted sum, and Fused is the result the ranking used.
type Why struct {
	Vector      float64 `json:"vector"`                 // cosine similarity
	VectorRank  int     `json:"vector_rank,omitempty"`  // 1-based rank in the vector leg, 0 if absent
	Keyword     float64 `json:"keyword"`                // BM25 (higher is better)
	KeywordRank int     `json:"keyword_rank,omitempty"` // 1-based rank in the keyword leg, 0 if absent
	Session     float64 `json:"session,omitempty"`      // its conversation holds a strong match
	Speaker     float64 `json:"speaker,omitempty"`      // a transcript line of the speaker the query names
	Date        float64 `json:"date,omitempty"`         // dated inside the window the query names, or a dated answer to a "when" question
	Entity      float64 `json:"entity,omitempty"`       // the query names its entity
	Graph       float64 `json:"graph,omitempty"`        // linked to a strong match
	Recency     float64 `json:"recency,omitempty"`      // newer among the candidates
	Usage       float64 `json:"usage,omitempty"`        // replies used it before
	Intention   float64 `json:"intention,omitempty"`    // an open intention of the caller's session
	Strength    float64 `json:"strength"`               // the multiplier its strength gives
	// DuplicateOf names the better memory this one nearly repeats (see
	// nearDuplicate), and Demotion is the factor its score was multiplied
	// by for it (0.5); both are empty for any other hit.
	DuplicateOf string  `json:"duplicate_of,omitempty"`
	Demotion    float64 `json:"demotion,omitempty"`
	Fused       float64 `json:"fused"` // the final score
}

// SearchResult is a ranked, channelled answer. Hits is in rank order;
// Channels groups the same hits by ChannelOf.
type SearchResult struct {
	Hits     []Hit
	Channels map[Channel][]Hit
	// Timings holds the time each pipeline stage took, by stage name.
	Timings map[string]time.Duration
	// Now is the newest Now page in scope (current focus and open loops),
	// nil when there is none.
	Now *Memory
	// Gated says the relevance gate judged nothing relevant (or the
	// query was trivial, such as "thanks"): Hits is empty on purpose.
	Gated string
}

// Search recalls the memories most relevant to a query. Each step is a
// stage of searchPipeline (search_stages.go): read the query (its kind,
// the dates it names, whether it is trivial), embed it, gather candidates
// from the vector and keyword legs (and the date window and named
// entities), score them, add the boosts, demote near duplicates, pick a
// diverse top (MMR), apply the relevance gate, and load the hits.
func (s *Service) Search(ctx context.Context, in SearchInput) (SearchResult, error) {
	emb := s.acquire()
	defer emb.done()
	q, err := s.parseSearch(in, emb.embedder.Info())
	if err != nil {
		return SearchResult{}, err
	}
	defer s.countSearch(ctx)
	run := &searchRun{svc: s, emb: emb, q: q, timings: map[string]time.Duration{}, byID: map[string]*candidate{}}
	for _, st := range searchPipeline {
		if run.gated != "" {
			break
		}
		start := time.Now()
		if err := st.run(ctx, run); err != nil {
			return SearchResult{}, fmt.Errorf("search stage %s: %w", st.name, err)
		}
		run.timings[st.name] = time.Since(start)
	}
	res := SearchResult{Hits: run.hits, Channels: map[Channel][]Hit{}, Timings: run.timings, Gated: run.gated}
	for _, h := range run.hits {
		c := ChannelOf(h.Memory)
		res.Channels[c] = append(res.Channels[c], h)
	}
	if s.cfg.Mode.UsesLLM() && !s.cfg.Extraction.NowOff && run.gated == "" {
		now, ok, err := s.CurrentNow(ctx, q.scope)
		if err != nil {
			return SearchResult{}, fmt.Errorf("read Now page: %w", err)
		}
		if ok {
			res.Now = &now
		}
	}
	return res, nil
}

// searchQuery is a validated SearchInput and what was read from it.
type searchQuery struct {
	text     string
	terms    []string
	limit    int
	layers   []Layer
	scope    Scope
	minScore float64 // the vector floor: a cosine that shows relevance alone
	// explicitFloor: the request or HYATLAS_MIN_SCORE set the floor, so
	// it also drops weaker hits of the vector leg alone.
	explicitFloor bool
	zero          float64 // the cosine that counts as no similarity (the embedder's floor)
	reader        Reader
	session       string
	kind          queryKind
	window        DateWindow
	dated         bool
	// temporal: the query asks when something happened, without naming
	// a date (a named date sets window instead).
	temporal bool
}

// parseSearch validates a request; the floor defaults to the one of info,
// the embedder the search will use.
func (s *Service) parseSearch(in SearchInput, info EmbedderInfo) (searchQuery, error) {
	q := searchQuery{text: strings.TrimSpace(in.Query), session: strings.TrimSpace(in.SessionID)}
	if q.text == "" {
		return q, Errorf(EBADREQUEST, "query required")
	}
	var err error
	if q.limit, err = pageLimit("limit", in.Limit, DefaultSearchLimit, MaxSearchLimit); err != nil {
		return q, err
	}
	layer, err := ParseLayer(in.Layer)
	if err != nil {
		return q, err
	}
	if layer != "" {
		q.layers = []Layer{layer}
	}
	if q.reader, err = ParseReader(in.Reader); err != nil {
		return q, err
	}
	q.zero = info.MinScore
	q.minScore, q.explicitFloor = s.cfg.MinScore, s.cfg.MinScore >= 0
	if q.minScore < 0 {
		q.minScore = gateScore(info)
	}
	if in.MinScore != nil {
		q.explicitFloor = true
		ms := *in.MinScore
		if math.IsNaN(ms) || ms < 0 || ms > 1 {
			return q, Errorf(EINVALID, "min_score must be between 0 and 1")
		}
		q.minScore = ms
	}
	if q.scope, err = s.scope(in.UserIDs, in.AgentID); err != nil {
		return q, err
	}
	q.scope.WithShared = true // what the person wrote is every agent's to recall
	keywordText := q.text
	if w, rest, ok := ParseQueryDates(q.text, s.now(), s.cfg.Extraction.Location); ok {
		q.window, q.dated, keywordText = w, true, rest
	}
	q.terms = queryTerms(keywordText)
	q.kind = kindOf(q.text)
	q.temporal = !q.dated && asksWhen(q.text)
	return q, nil
}

// gateScore is the embedder's default vector floor for the relevance gate.
func gateScore(info EmbedderInfo) float64 {
	if info.GateScore > 0 {
		return info.GateScore
	}
	return info.MinScore
}

// queryTerms are a query's keyword terms (see KeywordTerms), the first
// maxQueryTerms distinct ones.
func queryTerms(text string) []string {
	terms := KeywordTerms(text)
	return terms[:min(len(terms), maxQueryTerms)]
}
