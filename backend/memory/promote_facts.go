package memory

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
)

// The facts of a promotion: new L3 facts with their L1 mirrors, the facts
// they update, replace or restate, and what a restated fact inherits.

// facts adds L3 facts, their L1 mirrors and the retirements they imply.
func (p *promotion) facts(ctx context.Context, facts []PlannedFact) error {
	for _, f := range facts {
		at := f.EventAt
		if at.IsZero() {
			at = p.raw.EventAt
		}
		m := p.newRow(LayerFact, f.Text, categoryOfLabel(f.Label), at)
		m.Metadata = map[string]string{MetaLabel: f.Label}
		id := m.ID
		var restatedFrom Memory // the fact this one states again, if any
		if f.Updates != "" {
			old, same, err := p.asOffered(ctx, f.Updates)
			if err != nil {
				return err
			}
			if same {
				p.credit(id, old.ID, countOf(old), m.Strength)
				m.Metadata[MetaCount] = strconv.Itoa(countOf(old) + 1)
				m.Strength = p.restated(old) // stated again: a reference
				if err := p.retireFact(ctx, old, RetiredUpdated, id); err != nil {
					return err
				}
				restatedFrom = old
			}
		}
		for _, ref := range f.Replaces {
			old, same, err := p.asOffered(ctx, ref)
			if err != nil {
				return err
			}
			if !same {
				continue
			}
			if err := p.retireFact(ctx, old, RetiredReplaced, id); err != nil {
				return err
			}
		}
		if f.Label == LabelUserPreferences {
			factStrength := m.Strength
			mirror := p.newRow(LayerProfile, f.Text, CategoryPreference, at)
			mirror.Metadata = map[string]string{MetaMirrorOf: id}
			p.rows[len(p.rows)-2].Metadata[MetaMirror] = mirror.ID // the fact (newRow may have moved it)
			if restatedFrom.ID != "" {
				if err := p.inheritMirror(ctx, len(p.rows)-1, restatedFrom, factStrength); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// asOffered reads an offered fact and reports whether it still holds the
// text the model was shown. One edited by hand (or deleted) while the
// model was thinking is left alone: the model judged a text that is no
// longer there, so the new fact stands beside it instead.
func (p *promotion) asOffered(ctx context.Context, id string) (Memory, bool, error) {
	m, err := p.s.store.Get(ctx, id)
	if ErrorCode(err) == ENOTFOUND {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("read offered fact %s: %w", id, err)
	}
	text, offered := p.offered[id]
	return m, offered && m.Content == text && p.mayRetire(m), nil
}

// mayRetire reports whether the write being promoted may retire row m: the
// person's own write (no agent) any of the person's rows; an agent's write
// only that agent's own, never another agent's nor the person's own (which
// every agent recalls, and would lose to a row it cannot see).
func (p *promotion) mayRetire(m Memory) bool {
	return p.raw.Owner.AgentID == "" || m.Owner.AgentID == p.raw.Owner.AgentID
}

// retireFact retires a fact and its L1 mirror in favour of row by.
func (p *promotion) retireFact(_ context.Context, old Memory, how RetireHow, by string) error {
	p.retireAsRead(old, how, by, "")
	return nil
}

// retireAsRead retires a fact as it was read (old), with its L1 mirror:
// if it changes before the commit, neither is retired (see dropStale).
func (p *promotion) retireAsRead(old Memory, how RetireHow, by, reason string) {
	if p.expect == nil {
		p.expect, p.mirrorOf = map[string]string{}, map[string]string{}
	}
	p.expect[old.ID] = old.Content
	p.retire(old.ID, how, by, reason)
	if mirror := old.Metadata[MetaMirror]; mirror != "" {
		p.mirrorOf[mirror] = old.ID
		p.retire(mirror, how, by, reason) // already retired or deleted: Apply skips it
	}
}

// restated is the strength of a fact that states old again: old's,
// raised by one reference's bump.
func (p *promotion) restated(old Memory) float64 {
	return clampStrength(old.Strength + p.s.cfg.Strength.Bump)
}

// inheritMirror gives the new L1 mirror p.rows[i] of a fact that states old
// again the strength it earned: at least the new fact's, and old's
// mirror's raised by a reference. The mirror is the row the Atlas shows
// and the prompt block reads, so a preference promoted there stays
// promoted when it is said again. Taken back if old's retirement is
// dropped (see giveBack).
func (p *promotion) inheritMirror(ctx context.Context, i int, old Memory, factStrength float64) error {
	before := p.rows[i].Strength
	s := max(before, factStrength)
	if id := old.Metadata[MetaMirror]; id != "" {
		mirror, err := p.s.store.Get(ctx, id)
		switch {
		case err == nil && mirror.Live():
			s = max(s, p.restated(mirror))
		case err != nil && ErrorCode(err) != ENOTFOUND:
			return fmt.Errorf("read the profile row of %s: %w", old.ID, err)
		}
	}
	if s != before {
		p.credit(p.rows[i].ID, old.ID, 0, before)
		p.rows[i].Strength = s
	}
	return nil
}

// countOf is how many times a fact has been stated (1 without a count).
func countOf(m Memory) int {
	if n, err := strconv.Atoi(m.Metadata[MetaCount]); err == nil && n > 0 {
		return n
	}
	return 1
}

var digitRuns = regexp.MustCompile(`[0-9]+`)

// sameDigits reports whether two texts hold the same set of digit runs, so
// "PR #101722" never folds into "PR #96783" however similar the words.
func sameDigits(a, b string) bool {
	set := func(s string) []string {
		d := digitRuns.FindAllString(s, -1)
		slices.Sort(d)
		return slices.Compact(d)
	}
	return slices.Equal(set(a), set(b))
}

// sameWords reports whether two texts share most of their content words
// (more than half of all the words either has: "likes tea" and "likes
// coffee" share half): an embedder's cosine alone
// calls two short sentences of one shape the same ("drinks tea in the
// afternoon", "drinks coffee every morning at home").
func sameWords(a, b string) bool {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range contentWords(s) {
			m[w] = true
		}
		return m
	}
	x, y := set(a), set(b)
	shared := 0
	for w := range x {
		if y[w] {
			shared++
		}
	}
	return 2*shared > len(x)+len(y)-shared
}

// dedupe retires, for each new fact, the owner's nearest live fact when it
// says the same (cosine at least DedupeScore, the same digit runs and
// most of the same words): the newest wording wins and the old one is
// retired as restated, with its mirrors. A memory the user added by hand
// stays.
func (p *promotion) dedupe(ctx context.Context) error {
	floor := p.s.cfg.Extraction.DedupeScore
	if floor <= 0 {
		return nil
	}
	cur := p.s.acquire()
	defer cur.done()
	for i, m := range p.rows {
		if m.Layer != LayerFact || m.Category == CategoryExperience || p.vectors[i].Embedder != cur.embedder.Info().ID {
			continue
		}
		hits, err := cur.index.Search(ctx, p.vectors[i].Values, 3, VectorFilter{Layers: []Layer{LayerFact}, Scope: p.scope})
		if err != nil {
			return fmt.Errorf("search near-duplicate facts: %w", err)
		}
		for _, h := range hits {
			if h.Score < floor || p.retired[h.ID] {
				continue
			}
			old, err := p.s.store.Get(ctx, h.ID)
			// What the user wrote by hand is never retired as restated by
			// a model's wording of it.
			if err != nil || !old.Live() || old.Category == CategoryExperience || old.Source == sourceManual || !p.mayRetire(old) ||
				!sameDigits(old.Content, m.Content) || !sameWords(old.Content, m.Content) {
				continue
			}
			if err := p.retireFact(ctx, old, RetiredRestated, m.ID); err != nil {
				return err
			}
			p.credit(m.ID, old.ID, 0, p.rows[i].Strength)
			p.rows[i].Strength = max(p.rows[i].Strength, p.restated(old))
			if mid := m.Metadata[MetaMirror]; mid != "" {
				for j := range p.rows {
					if p.rows[j].ID == mid {
						if err := p.inheritMirror(ctx, j, old, p.rows[i].Strength); err != nil {
							return err
						}
					}
				}
			}
			break
		}
	}
	return nil
}
