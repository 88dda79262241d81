package memory

import (
	"context"
	"fmt"
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

// inWindow reports whether t falls inside w.
func inWindow(t time.Time, w DateWindow) bool {
	return !t.IsZero() && !t.Before(w.From) && t.Before(w.To)
}

// datedRows reads the rows dated inside the window the query names,
// newest first ("what did we decide yesterday" must find yesterday's rows
// even when no word matches), then the rows that tell of it (see
// tellsOfWindow). It only reads: gatherCandidates adds them.
func datedRows(ctx context.Context, r *searchRun) ([]Memory, error) {
	if !r.q.dated {
		return nil, nil
	}
	rows, _, err := r.svc.store.List(ctx, ListFilter{Layers: r.q.layers, Scope: r.q.scope,
		EventFrom: r.q.window.From, EventTo: r.q.window.To, Limit: r.depth()})
	if err != nil {
		return nil, fmt.Errorf("list rows in %s: %w", r.q.window.Phrase, err)
	}
	later, err := tellsOfWindow(ctx, r)
	if err != nil {
		return nil, err
	}
	return append(rows, later...), nil
}

// mentionLag is how long after a window a memory may speak of it ("last
// night", "on Saturday", "last week"): such a row is dated when it was
// written, after the day it tells of.
const (
	mentionLag  = 8 * 24 * time.Hour
	mentionRows = 200 // the rows of the lag read at most, oldest first
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
	kept := rows[:0]
	for _, m := range rows {
		w, _, ok := ParseQueryDates(m.Content, m.EventAt, loc)
		if ok && w.From.Before(r.q.window.To) && r.q.window.From.Before(w.To) {
			kept = append(kept, m)
		}
	}
	return kept, nil
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
	for _, c := range top {
		if c.base > 0 {
			ids = append(ids, c.id)
			base[c.id] = c.base
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
			c.reason = true
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
