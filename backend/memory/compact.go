package memory

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Compact keeps each person's live facts at or under the compaction
// threshold (HYATLAS_AUTO_COMPACT_THRESHOLD; 0, the default, never
// compacts): beyond it, the weakest facts, least recently used first,
// are retired as compacted, with their profile mirrors. Nothing is
// deleted; Restore brings any of them back. It returns how many it
// retired.
func (s *Service) Compact(ctx context.Context) (int, error) {
	limit := s.cfg.CompactThreshold
	if limit <= 0 || s.xstore == nil || s.cannotStore(ctx) {
		return 0, nil
	}
	gen := s.generation()
	owners, err := s.factsByOwner(ctx, false)
	if err != nil {
		return 0, err
	}
	now := s.now().UTC()
	total := 0
	for _, o := range owners {
		if len(o.facts) <= limit {
			continue
		}
		facts := o.facts
		sort.SliceStable(facts, func(i, j int) bool {
			if facts[i].Strength != facts[j].Strength {
				return facts[i].Strength < facts[j].Strength
			}
			return lastReference(facts[i]).Before(lastReference(facts[j]))
		})
		p := &promotion{s: s, gen: gen, raw: Memory{ID: "compaction"}, now: now, scope: o.scope, retired: map[string]bool{}}
		reason := fmt.Sprintf("compacted: more than %d facts, and one of the weakest and least recently used", limit)
		for _, m := range facts[:len(facts)-limit] {
			p.retire(m.ID, RetiredCompacted, "", reason)
			if mirror := m.Metadata[MetaMirror]; mirror != "" {
				p.retire(mirror, RetiredCompacted, "", reason)
			}
		}
		if err := s.commit(ctx, p); err != nil {
			return total, fmt.Errorf("compact the facts of %s: %w", o.key, err)
		}
		total += len(facts) - limit
	}
	return total, nil
}

// lastReference is when a memory was last used, or created if never.
func lastReference(m Memory) time.Time {
	if m.LastUsedAt.After(m.CreatedAt) {
		return m.LastUsedAt
	}
	return m.CreatedAt
}
