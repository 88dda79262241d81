package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// GraphReader gives the memories related to some memories: reconcile's
// links, and the evidence of the knowledge graph's relations one hop from
// the relations a memory backs. The search lends a share of a strong
// match's score to its neighbours.
type GraphReader interface {
	Neighbours(ctx context.Context, ids []string) (map[string][]string, error)
}

// inWindow reports whether t falls inside w. A date without a time of
// day (exactly midnight UTC: how a date from a model, which names a day,
// is kept) is that calendar day wherever the owner is: it is inside when
// the day is one of the window's days.
func inWindow(t time.Time, w DateWindow) bool {
	if t.IsZero() {
		return false
	}
	if w.loc != nil && dayOnly(t) {
		t = qdDayOf(t.UTC()).midnight(w.loc)
	}
	return !t.Before(w.From) && t.Before(w.To)
}

// dayOnly reports whether t names a day only: midnight UTC to the
// millisecond.
func dayOnly(t time.Time) bool {
	t = t.UTC()
	return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() < int(time.Millisecond)
}

// datedIn reports whether a memory is dated inside w: its event time, or
// for an intention its due time ("what do I have tomorrow"), in w or in
// the phrase's next occurrence ("what do I have on Friday?").
func datedIn(m Memory, w DateWindow) bool {
	if inWindow(m.EventAt, w) {
		return true
	}
	if m.Layer != LayerIntention {
		return false
	}
	a, ok := w.ahead()
	return inWindow(m.DueAt, w) || ok && inWindow(m.DueAt, a)
}

// zoneReach is the most a zone's midnight is from midnight UTC: how far
// before a window a row dated by its day alone may be stored.
const zoneReach = 14 * time.Hour

// datedRows reads the rows dated inside the window the query names,
// newest first ("what did we decide yesterday" must find yesterday's rows
// even when no word matches), the intentions due in it, then the rows
// that tell of it (see tellsOfWindow). It only reads: gatherCandidates
// adds them.
func datedRows(ctx context.Context, r *searchRun) ([]Memory, error) {
	if !r.q.dated {
		return nil, nil
	}
	w := r.q.window
	rows, _, err := r.svc.store.List(ctx, ListFilter{Layers: r.q.layers, Scope: r.q.scope,
		EventFrom: w.From.Add(-zoneReach), EventTo: w.To, Limit: r.depth()})
	if err != nil {
		return nil, fmt.Errorf("list rows in %s: %w", w.Phrase, err)
	}
	kept := rows[:0]
	for _, m := range rows {
		if inWindow(m.EventAt, w) {
			kept = append(kept, m)
		}
	}
	if len(r.q.layers) == 0 || slices.Contains(r.q.layers, LayerIntention) {
		windows := []DateWindow{w}
		if a, ok := w.ahead(); ok {
			windows = append(windows, a)
		}
		for _, w := range windows {
			due, _, err := r.svc.store.List(ctx, ListFilter{Layers: []Layer{LayerIntention}, Scope: r.q.scope,
				DueFrom: w.From.Add(-zoneReach), DueTo: w.To, Limit: r.depth()})
			if err != nil {
				return nil, fmt.Errorf("list intentions due %s: %w", w.Phrase, err)
			}
			for _, m := range due {
				if inWindow(m.DueAt, w) {
					kept = append(kept, m)
				}
			}
		}
	}
	later, err := tellsOfWindow(ctx, r)
	if err != nil {
		return nil, err
	}
	return append(kept, later...), nil
}

// mentionLag is how long after a window a memory may speak of it ("last
// night", "on Saturday", "last week"): such a row is dated when it was
// written, after the day it tells of.
const (
	mentionLag  = 8 * 24 * time.Hour
	tellSlack   = 24 * time.Hour // "last night" is two days
	mentionRows = 200            // the rows of the lag read at most, oldest first
)

// tellsOfWindow reads the rows written in the days after the window whose
// own words date what they tell inside it: asked "what did Joanna watch on
// 1 May?", the turn of 2 May "I watched it last night" counts as dated on
// 1 May. A date word is read against the row's own event time.
func tellsOfWindow(ctx context.Context, r *searchRun) ([]Memory, error) {
	rows, _, err := r.svc.store.List(ctx, ListFilter{Layers: r.q.layers, Scope: r.q.scope,
		EventFrom: r.q.window.To, EventTo: r.q.window.To.Add(mentionLag), Oldest: true, Limit: mentionRows})
	if err != nil {
		return nil, fmt.Errorf("list rows after %s: %w", r.q.window.Phrase, err)
	}
	loc := r.svc.cfg.Extraction.Location
	q := r.q.window
	kept := rows[:0]
	for _, m := range rows {
		w, _, ok := ParseQueryDates(m.Content, m.EventAt, loc)
		if ok && tellsOf(w, q) {
			kept = append(kept, m)
		}
	}
	return kept, nil
}

// tellsOf reports whether a row's own date phrase w dates what it tells
// inside the query's window q: w overlaps q and is no longer than q by
// more than tellSlack ("last night" tells of a day; "this year" or "since
// March" tell of no day in particular).
func tellsOf(w, q DateWindow) bool {
	// (Sub saturates at about 292 years, an open-ended window's length:
	// nothing is added to it.)
	return w.From.Before(q.To) && q.From.Before(w.To) && w.To.Sub(w.From)-tellSlack <= q.To.Sub(q.From)
}

// namedPage is an entity page the query names, and the name.
type namedPage struct {
	row  Memory
	name string
}

// namedPages reads the entity pages the query names (a page whose name
// occurs in the query as whole words). It only reads: gatherCandidates
// adds them, the page with the entity part; every candidate mentioning
// the name gets a smaller one (entityParts, once rows are loaded).
func namedPages(ctx context.Context, r *searchRun) ([]namedPage, error) {
	if len(r.q.terms) == 0 || (len(r.q.layers) > 0 && r.q.layers[0] != LayerEntity) {
		return nil, nil
	}
	hits, err := r.svc.store.Keyword(ctx, KeywordQuery{Terms: r.q.terms, Layers: []Layer{LayerEntity},
		Scope: r.q.scope, Limit: 10})
	if err != nil {
		return nil, fmt.Errorf("entity pages: %w", err)
	}
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	rows, err := r.svc.store.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("entity pages: %w", err)
	}
	query := strings.ToLower(r.q.text)
	var pages []namedPage
	for _, id := range ids {
		m, ok := rows[id]
		if !ok || !m.Live() {
			continue
		}
		name := pageOf(m).Name
		if name == "" || !containsWord(query, strings.ToLower(name)) {
			continue
		}
		pages = append(pages, namedPage{row: m, name: strings.ToLower(name)})
	}
	return pages, nil
}

// entityParts gives every loaded candidate that mentions a named entity
// the mention part (the page itself keeps its larger one).
func entityParts(r *searchRun) {
	if len(r.entities) == 0 {
		return
	}
	for _, c := range r.cands {
		if c.row.Layer == LayerEntity {
			continue
		}
		text := strings.ToLower(c.row.Content)
		for _, e := range r.entities {
			if containsWord(text, e) {
				c.why.Entity = entityMentionW
				break
			}
		}
	}
}

// graphParts lends each of the strongest candidates' neighbours a share of
// its score, adding neighbours not found otherwise (one hop).
func graphParts(ctx context.Context, r *searchRun) error {
	g := r.svc.graph
	if g == nil || len(r.cands) == 0 {
		return nil
	}
	top := append([]*candidate(nil), r.cands...)
	sortByBase(top)
	top = top[:min(graphSources, len(top))]
	ids := make([]string, 0, len(top))
	base := map[string]float64{}
	strong := map[string]bool{} // relevant on its own: its links are a reason too
	for _, c := range top {
		if c.base > 0 {
			ids = append(ids, c.id)
			base[c.id] = c.base
			strong[c.id] = r.evidence(c)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	nb, err := g.Neighbours(ctx, ids)
	if err != nil {
		return fmt.Errorf("graph: %w", err)
	}
	added := false
	for src, list := range nb {
		for _, id := range list {
			if id == src {
				continue
			}
			c := r.candidate(id)
			if part := graphBoost * base[src]; part > c.why.Graph {
				c.why.Graph = part
			}
			// A link to a row that is no match itself (the nearest of an
			// off-topic query) lends a little score, never relevance.
			c.reason = c.reason || strong[src]
			added = added || !c.loaded
		}
	}
	if !added {
		return nil
	}
	if err := loadCandidates(ctx, r); err != nil {
		return err
	}
	for _, c := range r.cands {
		c.why.Vector = c.cosine // a neighbour added here had no leg
	}
	return nil
}
