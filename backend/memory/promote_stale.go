package memory

import (
	"context"
	"fmt"
	"strconv"
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
	p.giveBack(stale)
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

// credit is what a new row took from a row it retires: a count added to
// its own, and its strength before it was raised (-1: not raised).
type credit struct {
	from     string
	count    int
	strength float64
}

// credit notes that row to took count and strength from row from.
func (p *promotion) credit(to, from string, count int, strengthBefore float64) {
	if p.credits == nil {
		p.credits = map[string][]credit{}
	}
	p.credits[to] = append(p.credits[to], credit{from: from, count: count, strength: strengthBefore})
}

// giveBack takes back what rows took from the stale rows they no longer
// retire: the count (on a new row, or in an update of an existing one)
// and the raised strength.
func (p *promotion) giveBack(stale map[string]bool) {
	for to, cs := range p.credits {
		for _, c := range cs {
			if !stale[c.from] {
				continue
			}
			for i := range p.rows {
				if p.rows[i].ID == to {
					takeCount(p.rows[i].Metadata, c.count)
					if c.strength >= 0 {
						p.rows[i].Strength = c.strength
					}
				}
			}
			for _, u := range p.changes.Update {
				if u.ID == to {
					takeCount(u.Update.Metadata, c.count)
				}
			}
		}
	}
}

// takeCount lowers the count in md by n (a count of 1 is no count).
func takeCount(md map[string]string, n int) {
	if md == nil || n == 0 {
		return
	}
	left := countOf(Memory{Metadata: md}) - n
	if left <= 1 {
		delete(md, MetaCount)
		return
	}
	md[MetaCount] = strconv.Itoa(left)
}
