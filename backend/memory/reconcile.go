package memory

import (
	"context"
	"fmt"
	"strconv"
)

// reconcilePairsMax bounds the pairs one reconcile call judges.
const reconcilePairsMax = 12

// reconcile asks the model, in one more call, how each new fact relates
// to the similar live facts extraction left alone (HYATLAS_RECONCILE):
// UPDATE folds the old fact into the new one (counting the repeat),
// SUPERSEDE retires the old one as replaced, LINK keeps both and records
// the link. Decisions about pairs it was not asked are ignored.
func (s *Service) reconcile(ctx context.Context, raw Memory, gen uint64, created []Memory) error {
	scope := s.ownerScope(raw.Owner)
	fresh := map[string]bool{}
	for _, m := range created {
		fresh[m.ID] = true
	}
	var pairs []ReconcilePair
	olds := map[string]Memory{}
	for _, m := range created {
		similar, err := s.similarLive(ctx, m.ID, m.Content, []Layer{LayerFact}, scope, 3)
		if err != nil {
			return err
		}
		for _, o := range similar {
			if fresh[o.ID] || o.Category == CategoryExperience || len(pairs) >= reconcilePairsMax {
				continue
			}
			olds[o.ID] = o
			pairs = append(pairs, ReconcilePair{NewID: m.ID, NewText: m.Content, OldID: o.ID, OldText: o.Content})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	decisions, err := s.extractor.Reconcile(ctx, pairs)
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	asked := map[[2]string]bool{}
	for _, pr := range pairs {
		asked[[2]string{pr.NewID, pr.OldID}] = true
	}
	p := &promotion{s: s, gen: gen, raw: raw, now: s.now().UTC(), scope: scope, retired: map[string]bool{}}
	counts := map[string]int{}
	for _, d := range decisions {
		if !asked[[2]string{d.NewID, d.OldID}] || p.retired[d.OldID] {
			continue
		}
		old := olds[d.OldID]
		if d.Action != ReconcileLink && !p.mayRetire(old) {
			continue // shown, as the agent recalls it, but not its to retire
		}
		switch d.Action {
		case ReconcileUpdate:
			counts[d.NewID] += countOf(old)
			p.credit(d.NewID, old.ID, countOf(old), -1)
			if err := p.retireFact(ctx, old, RetiredUpdated, d.NewID); err != nil {
				return err
			}
		case ReconcileSupersede:
			if err := p.retireFact(ctx, old, RetiredReplaced, d.NewID); err != nil {
				return err
			}
		case ReconcileLink:
			p.changes.Links = append(p.changes.Links, Link{A: d.NewID, B: d.OldID, Kind: "related", At: p.now})
		}
	}
	for _, m := range created {
		if n := counts[m.ID]; n > 0 {
			md := map[string]string{}
			for k, v := range m.Metadata {
				md[k] = v
			}
			md[MetaCount] = strconv.Itoa(countOf(m) + n)
			p.changes.Update = append(p.changes.Update, RowUpdate{ID: m.ID, Update: Update{Metadata: md, At: p.now}})
		}
	}
	if len(p.changes.Retire)+len(p.changes.Links)+len(p.changes.Update) == 0 {
		return nil
	}
	return s.commit(ctx, p)
}
