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
	// fetchFactor: each leg fetches this many times the limit, so fusion and
	// de-duplication have room.
	fetchFactor = 3
	// rrfK is the reciprocal-rank-fusion constant.
	rrfK = 60
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
		return "", Errorf(EINVALID, "unknown reader %q (valid: hybrid, vector, keyword, legacy, semantic, hybrid_tag)", s)
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
	SessionID string
}

// Hit is one recalled memory and why it ranked where it did.
type Hit struct {
	Memory Memory
	// Score is the cosine similarity between the query and the memory
	// (0 when the memory has no vector), as in the public contract.
	Score float64
	Why   Why
}

// Why explains a hit's rank: the parts that made its fused score.
type Why struct {
	Vector      float64 `json:"vector"`                 // cosine similarity
	VectorRank  int     `json:"vector_rank,omitempty"`  // 1-based rank in the vector leg, 0 if absent
	Keyword     float64 `json:"keyword"`                // BM25 (higher is better)
	KeywordRank int     `json:"keyword_rank,omitempty"` // 1-based rank in the keyword leg, 0 if absent
	Fused       float64 `json:"fused"`                  // reciprocal-rank fusion score
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
}

// Search recalls the memories most relevant to a query: vector and keyword
// candidates over live rows of the owners in scope, vector hits under the
// floor dropped, the two lists fused by reciprocal rank, exact-text
// duplicates folded (a profile row wins over the fact it mirrors), cut to
// the limit. Each step is a stage of searchPipeline.
func (s *Service) Search(ctx context.Context, in SearchInput) (SearchResult, error) {
	emb := s.acquire()
	defer emb.done()
	q, err := s.parseSearch(in, emb.embedder.Info())
	if err != nil {
		return SearchResult{}, err
	}
	defer s.countSearch(ctx)
	run := &searchRun{svc: s, emb: emb, q: q, timings: map[string]time.Duration{}}
	for _, st := range searchPipeline {
		start := time.Now()
		if err := st.run(ctx, run); err != nil {
			return SearchResult{}, fmt.Errorf("search stage %s: %w", st.name, err)
		}
		run.timings[st.name] = time.Since(start)
	}
	res := SearchResult{Hits: run.hits, Channels: map[Channel][]Hit{}, Timings: run.timings}
	for _, h := range run.hits {
		c := ChannelOf(h.Memory)
		res.Channels[c] = append(res.Channels[c], h)
	}
	if s.cfg.Mode.UsesLLM() && !s.cfg.Extraction.NowOff {
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

// searchQuery is a validated SearchInput.
type searchQuery struct {
	text     string
	terms    []string
	limit    int
	layers   []Layer
	scope    Scope
	minScore float64
	reader   Reader
}

// parseSearch validates a request; the floor defaults to the one of info,
// the embedder the search will use.
func (s *Service) parseSearch(in SearchInput, info EmbedderInfo) (searchQuery, error) {
	q := searchQuery{text: strings.TrimSpace(in.Query)}
	if q.text == "" {
		return q, Errorf(EBADREQUEST, "query required")
	}
	var err error
	if q.limit, err = pageLimit(in.Limit, DefaultSearchLimit, MaxSearchLimit); err != nil {
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
	q.minScore = s.cfg.MinScore
	if q.minScore < 0 {
		q.minScore = info.MinScore
	}
	if in.MinScore != nil {
		ms := *in.MinScore
		if math.IsNaN(ms) || ms < 0 || ms > 1 {
			return q, Errorf(EINVALID, "min_score must be between 0 and 1")
		}
		q.minScore = ms
	}
	q.scope = s.scope(in.UserIDs, in.AgentID)
	q.terms = KeywordTerms(q.text)
	return q, nil
}
