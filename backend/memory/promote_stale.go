package memory

import (
	"context"
	"fmt"
)

// dropStale keeps a promotion from retiring a row that changed after the
// plan was worked out from it: edited, deleted, retired, or (with
// keepRestored) restored by the user while the model was thinking or the
// new rows were embedded. Such a row and its L1 mirror stay as they are,
// and a merged row that stands for it is not written (with the other
// retirements in its favour): the model judged a text that is no longer
// there. The caller holds indexSync, which every edit, restore and delete
// takes too, so nothing changes between this check and the commit.
func (p *promotion) dropStale(ctx context.Context) error {
	if len(p.expect) == 0 {
		return nil
	}
	ids := make([]string, 0, len(p.expect))
	for id := range p.expect {
		ids = append(ids, id)
	}
	now, err := p.s.store.GetMany(ctx, ids)
	if err != nil {
		return fmt.Errorf("read the rows to retire again: %w", err)
	}
	stale := map[string]bool{}
	for id, text := range p.expect {
		m, ok := now[id]
		if !ok || !m.Live() || m.Content != text {
			stale[id] = true
			continue
		}
		if p.keepRestored {
			restored, err := p.s.everRestored(ctx, id)
			if err != nil {
				return err
			}
			stale[id] = restored
		}
	}
	dropped := map[string]bool{} // merged rows that stood for a stale fact
	for _, r := range p.changes.Retire {
		if stale[r.ID] && r.Retirement.How == RetiredMerged {
			dropped[r.Retirement.By] = true
		}
	}
	keep := p.changes.Retire[:0]
	for _, r := range p.changes.Retire {
		fact := r.ID
		if of, ok := p.mirrorOf[r.ID]; ok {
			fact = of
		}
		if stale[fact] || dropped[r.Retirement.By] {
			delete(p.retired, r.ID)
			continue
		}
		keep = append(keep, r)
	}
	p.changes.Retire = keep
	if len(dropped) == 0 {
		return nil
	}
	rows, vecs := p.rows[:0], p.vectors[:0]
	for i, m := range p.rows {
		if !dropped[m.ID] && !dropped[m.Metadata[MetaMirrorOf]] {
			rows, vecs = append(rows, m), append(vecs, p.vectors[i])
		}
	}
	p.rows, p.vectors = rows, vecs
	return nil
}
