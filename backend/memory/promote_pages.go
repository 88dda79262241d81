package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// renewIntentionAfter is how old an undated intention must be for a
// restatement to renew it: the goal is written again, fresh for
// HYATLAS_INTENTION_TTL, and the old row retired as restated. A goal said
// again within a day is the same mention, and nothing is written.
const renewIntentionAfter = 24 * time.Hour

// intentions adds L7 goals with their due dates. A goal that restates a
// current intention (the same words, or a vector at least DedupeScore
// similar) is not written again: a turn that continues an open goal must
// not pile up copies of it. Given a new due date, the goal is written
// with it and the intention it restates is retired as updated; an undated
// goal restated a day or more after it was written renews it (see
// renewIntentionAfter), so a goal the user keeps stating stays current.
// An intention no longer current (past its TTL, or a day past due) holds
// nothing back: the goal stated again is written anew.
func (p *promotion) intentions(ctx context.Context, intents []PlannedIntention) error {
	if len(intents) == 0 {
		return nil
	}
	open, _, err := p.s.store.List(ctx, ListFilter{Layers: []Layer{LayerIntention}, Scope: p.scope, Limit: 200})
	if err != nil {
		return fmt.Errorf("list open intentions: %w", err)
	}
	current, byText := map[string]Memory{}, map[string]Memory{}
	for _, m := range open {
		if !p.retired[m.ID] && p.s.intentionCurrent(m, p.now) {
			current[m.ID] = m
			byText[NormalizeText(m.Content)] = m
		}
	}
	written := map[string]bool{}
	for _, in := range intents {
		key := NormalizeText(in.Goal)
		if written[key] {
			continue
		}
		prev, restates := byText[key]
		if !restates {
			if prev, restates, err = p.s.nearCurrentIntention(ctx, in.Goal, p, current); err != nil {
				return err
			}
		}
		renew := restates && in.DueAt.IsZero() && prev.DueAt.IsZero() && p.now.Sub(prev.CreatedAt) >= renewIntentionAfter && p.mayRetire(prev)
		if restates && !renew && (in.DueAt.IsZero() || in.DueAt.Equal(prev.DueAt)) {
			continue
		}
		written[key] = true
		m := p.newRow(LayerIntention, in.Goal, CategoryGoal, p.raw.EventAt)
		m.DueAt = in.DueAt
		switch {
		case renew:
			m.Strength = p.restated(prev)
			p.retire(prev.ID, RetiredRestated, m.ID, "the goal was stated again")
		case restates && p.mayRetire(prev):
			m.Strength = p.restated(prev)
			p.retire(prev.ID, RetiredUpdated, m.ID, "the goal was given a new due date")
		}
	}
	return nil
}

// nearCurrentIntention finds the current intention (of current, by id)
// that goal is a near copy of, by vector.
func (s *Service) nearCurrentIntention(ctx context.Context, goal string, p *promotion, current map[string]Memory) (Memory, bool, error) {
	floor := s.cfg.Extraction.DedupeScore
	if floor <= 0 {
		return Memory{}, false, nil
	}
	hits, err := s.similarHits(ctx, "", goal, []Layer{LayerIntention}, p.scope, 3)
	if err != nil {
		return Memory{}, false, err
	}
	for _, h := range hits {
		if m, ok := current[h.ID]; ok && h.Score >= floor && !p.retired[h.ID] {
			return m, true, nil
		}
	}
	return Memory{}, false, nil
}

// entityKey is the identity of an entity page within an owner's scope.
func entityKey(name string) string { return NormalizeText(name) }

// entityPages reads the live entity pages in scope.
func (s *Service) entityPages(ctx context.Context, scope Scope) ([]EntityPage, error) {
	rows, err := s.entityRows(ctx, scope)
	out := make([]EntityPage, 0, len(rows))
	for _, m := range rows {
		out = append(out, pageOf(m))
	}
	return out, err
}

// entityRows lists the live entity page rows in scope.
func (s *Service) entityRows(ctx context.Context, scope Scope) ([]Memory, error) {
	rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerEntity}, Scope: scope, Limit: entityScanMax})
	if err != nil {
		return nil, fmt.Errorf("list entity pages: %w", err)
	}
	return rows, nil
}

// pageOf reads an entity page row; a row edited by hand without the JSON
// still has its name and text.
func pageOf(m Memory) EntityPage {
	var e EntityPage
	if err := json.Unmarshal([]byte(m.Metadata[MetaEntity]), &e); err != nil || e.Name == "" {
		e = EntityPage{Name: m.Metadata[MetaEntityID], Summary: m.Content}
	}
	e.ID = m.ID
	return e
}

// withEdits notes on a page read from row m whether a person edited it:
// its text is no longer what its record renders, or its category is not
// its kind. Only a page about to be updated needs it.
func withEdits(e EntityPage, m Memory) EntityPage {
	if m.Content != renderEntity(e) || m.Category != e.Kind {
		e.userText, e.userCategory = m.Content, m.Category
	}
	return e
}

// entities writes one page per thing per owner: a new page, or the
// existing one with changed state values moved into its dated history.
func (p *promotion) entities(ctx context.Context, planned []EntityPage) error {
	if len(planned) == 0 {
		return nil
	}
	rows, err := p.s.entityRows(ctx, p.s.personScope(p.raw.Owner))
	if err != nil {
		return err
	}
	// rowOf holds the stored rows of the pages not yet changed by this
	// promotion: only those are read for a person's edits.
	byKey, rowOf := map[string]EntityPage{}, map[string]Memory{}
	for _, m := range rows {
		e := pageOf(m)
		byKey[entityKey(e.Name)] = e
		rowOf[entityKey(e.Name)] = m
	}
	for _, e := range planned {
		key := entityKey(e.Name)
		old, ok := byKey[key]
		if m, stored := rowOf[key]; ok && stored {
			old = withEdits(old, m)
			delete(rowOf, key)
		}
		if !ok {
			e.History = nil
			e = fitPage(e)
			m := p.newRow(LayerEntity, renderEntity(e), e.Kind, p.raw.EventAt)
			m.Metadata = entityMeta(e, key)
			e.ID = m.ID
			byKey[key] = e
			continue
		}
		merged, changed := mergeEntity(old, e, p.now)
		if !changed {
			continue
		}
		news := newsOf(old, merged)
		merged = fitPage(merged)
		if merged.userText != "" {
			merged.userText += news
		}
		byKey[key] = merged
		if err := p.updateEntity(ctx, merged, key); err != nil {
			return err
		}
	}
	return nil
}

// updateEntity re-embeds a changed page and queues its update. A page
// created earlier in this same promotion is changed in place.
func (p *promotion) updateEntity(ctx context.Context, e EntityPage, key string) error {
	text, kind := renderEntity(e), e.Kind
	if e.userText != "" {
		text, kind = e.userText, e.userCategory
	}
	for i := range p.rows {
		if p.rows[i].ID == e.ID {
			p.rows[i].Content, p.rows[i].Metadata = text, entityMeta(e, key)
			return nil
		}
	}
	v, err := p.s.embedOne(ctx, text, PurposeDocument)
	if err != nil {
		return err
	}
	p.changes.Update = append(p.changes.Update, RowUpdate{ID: e.ID, Update: Update{
		Content: &text, Category: &kind, Metadata: entityMeta(e, key), Vector: &v, At: p.now,
	}})
	return nil
}

// newsOf is what a model's update changed on a page, as lines to add
// below a person's own text: each new or changed value, and a summary
// that changed.
func newsOf(old, next EntityPage) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(next.State)) {
		if v := next.State[k]; old.State[k] != v {
			fmt.Fprintf(&b, "\n- %s: %s", k, v)
		}
	}
	if next.Summary != old.Summary && next.Summary != "" {
		fmt.Fprintf(&b, "\n- %s", next.Summary)
	}
	return b.String()
}

// mergeEntity folds a proposed page into the stored one: new state values
// win, and each value they change moves into the history with the time it
// stopped being current. An empty summary keeps the old one.
func mergeEntity(old, next EntityPage, now time.Time) (EntityPage, bool) {
	out := old
	out.State = maps.Clone(old.State)
	if out.State == nil {
		out.State = map[string]string{}
	}
	changed := false
	for _, k := range slices.Sorted(maps.Keys(next.State)) {
		v := strings.TrimSpace(next.State[k])
		k = strings.TrimSpace(k)
		if k == "" || v == "" || out.State[k] == v {
			continue
		}
		if prev, ok := out.State[k]; ok {
			out.History = append(out.History, EntityChange{At: now, Key: k, Value: prev})
		}
		out.State[k] = v
		changed = true
	}
	if s := strings.TrimSpace(next.Summary); s != "" && s != out.Summary {
		out.Summary, changed = s, true
	}
	if next.Kind != "" && out.Kind == "" {
		out.Kind, changed = next.Kind, true
	}
	if n := len(out.History); n > maxEntityHist {
		out.History = out.History[n-maxEntityHist:]
	}
	return out, changed
}

// maxStoredMetadataVal bounds a metadata value the engine writes itself
// (an entity page's record): an import accepts up to it.
const maxStoredMetadataVal = 64 << 10

// fitPage keeps a page's record within maxMetadataVal bytes, so pages do
// not grow without end over years of updates: the oldest history goes
// first, then long values are cut, then the last state keys (by name).
func fitPage(e EntityPage) EntityPage {
	size := func() int { b, _ := json.Marshal(e); return len(b) }
	if size() <= maxMetadataVal {
		return e
	}
	e.History = slices.Clone(e.History)
	for len(e.History) > 0 && size() > maxMetadataVal {
		e.History = e.History[1:]
	}
	e.State = maps.Clone(e.State)
	for limit := 400; size() > maxMetadataVal && limit >= 50; limit /= 2 {
		e.Summary = CutText(e.Summary, limit*2)
		for k, v := range e.State {
			e.State[k] = CutText(v, limit)
		}
	}
	keys := slices.Sorted(maps.Keys(e.State))
	for i := len(keys) - 1; i >= 0 && size() > maxMetadataVal; i-- {
		delete(e.State, keys[i])
	}
	return e
}

func entityMeta(e EntityPage, key string) map[string]string {
	b, _ := json.Marshal(e) // a struct of strings, maps and times always marshals
	return map[string]string{MetaEntity: string(b), MetaEntityID: key}
}

// renderEntity is the page's text: what recall matches and shows.
func renderEntity(e EntityPage) string {
	var b strings.Builder
	b.WriteString(e.Name)
	if e.Kind != "" {
		fmt.Fprintf(&b, " (%s)", e.Kind)
	}
	if e.Summary != "" {
		b.WriteString(": " + e.Summary)
	}
	for _, k := range slices.Sorted(maps.Keys(e.State)) {
		fmt.Fprintf(&b, "\n- %s: %s", k, e.State[k])
	}
	for _, h := range e.History {
		fmt.Fprintf(&b, "\n- until %s, %s was %s", h.At.Format("2006-01-02"), h.Key, h.Value)
	}
	return b.String()
}
