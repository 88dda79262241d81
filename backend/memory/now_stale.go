package memory

import (
	"context"
	"fmt"
	"time"
)

// staleNowWindow is how far back the first housekeeping pass after a start
// looks for changes that a Now page does not hold yet.
const staleNowWindow = 7 * 24 * time.Hour

// markStaleNowPages marks out of date the Now pages a change before the
// last stop left behind: which pages wait for a rebuild is kept in memory
// only, so a stop (a quit, a crash, a restart from Settings) between a
// change and the next housekeeping pass would leave the page stale until
// the owner's next write. It marks every owner with a fact or an
// intention written in the last staleNowWindow after their newest Now page
// (or without one), and returns how many it marked.
func (s *Service) markStaleNowPages(ctx context.Context) (int, error) {
	since := s.now().UTC().Add(-staleNowWindow)
	pages, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerSummary}, Category: CategoryNow,
		CreatedFrom: since, Limit: MaxListLimit})
	if err != nil {
		return 0, fmt.Errorf("read Now pages: %w", err)
	}
	newest := map[nowOwner]time.Time{}
	for _, p := range pages {
		if k := s.nowOwnerOf(p.Owner); p.CreatedAt.After(newest[k]) {
			newest[k] = p.CreatedAt
		}
	}
	rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerFact, LayerIntention}, CreatedFrom: since,
		Limit: MaxListLimit})
	if err != nil {
		return 0, fmt.Errorf("read recent facts: %w", err)
	}
	marked := map[nowOwner]bool{}
	for _, m := range rows {
		k := s.nowOwnerOf(m.Owner)
		if !marked[k] && m.CreatedAt.After(newest[k]) {
			marked[k] = true
			s.markNowDirty(m.Owner)
		}
	}
	return len(marked), nil
}
