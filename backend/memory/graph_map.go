package memory

import (
	"context"
	"fmt"
	"sort"
)

// The memory map is what the Mind Palace draws: the knowledge graph held
// now (entities and their relations) beside recent memories linked by
// session and by meaning. Every link's two ends are in the map, and the
// entity and memory ids are the ones every other endpoint uses.

// Memory map bounds.
const (
	mapPerLayer      = 200 // newest live rows read per layer
	mapSessionMin    = 2   // a session links its memories when it has this many
	mapSessionMax    = 20  // ... and not more (a huge session is noise)
	mapStarsPerGroup = 5   // links from a session's first memory
	mapMaxCoSession  = 300
	mapRecentFacts   = 20 // facts whose nearest neighbours are linked
	mapMaxSemantic   = 200
	defaultKSemantic = 3
	maxKSemantic     = 10
)

// MapQuery asks for the memory map of an owner ("" or "all": everyone).
type MapQuery struct {
	UserID, AgentID string
	Limit           int // memories and entities each; 0: DefaultGraphNodes
	KSemantic       int // neighbours per recent fact; 0: 3
}

// MemoryLink links two memories: by session (Session set) or by meaning
// (Score set).
type MemoryLink struct {
	From, To string
	Kind     string // "co_session" or "semantic"
	Session  string
	Score    float64
}

// MemoryMap is the Mind Palace's feed.
type MemoryMap struct {
	Entities  []GraphNode
	Relations []GraphEdge
	Memories  []Memory
	Links     []MemoryLink
}

// MemoryMap builds the map: the graph held now (capped by importance, as
// graph-as-of), the newest memories of each layer (at most Limit in all),
// session links (sessions of 2-20 of those memories, at most 5 links each
// from their first memory, 300 in all) and meaning links (the nearest
// KSemantic facts of the 20 newest facts, above the relevance floor, 200
// in all).
func (s *Service) MemoryMap(ctx context.Context, q MapQuery) (MemoryMap, error) {
	limit, err := pageLimit("n", q.Limit, DefaultGraphNodes, MaxGraphNodes)
	if err != nil {
		return MemoryMap{}, err
	}
	k := q.KSemantic
	switch {
	case k == 0:
		k = defaultKSemantic
	case k < 0 || k > maxKSemantic:
		return MemoryMap{}, Errorf(EINVALID, "k_semantic must be from 1 to %d", maxKSemantic)
	}
	scope, err := s.graphScope(q.UserID, q.AgentID)
	if err != nil {
		return MemoryMap{}, err
	}
	var out MemoryMap
	if s.graphStore != nil {
		v, err := s.GraphAsOf(ctx, GraphQuery{UserID: q.UserID, AgentID: q.AgentID, Limit: limit})
		if err != nil {
			return MemoryMap{}, err
		}
		out.Entities, out.Relations = v.Nodes, v.Edges
	}
	for _, l := range Layers {
		rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{l}, Scope: scope, Limit: mapPerLayer})
		if err != nil {
			return MemoryMap{}, fmt.Errorf("memory map: list %s: %w", l.Title(), err)
		}
		out.Memories = append(out.Memories, rows...)
	}
	sort.SliceStable(out.Memories, func(i, j int) bool { return out.Memories[i].CreatedAt.After(out.Memories[j].CreatedAt) })
	out.Memories = out.Memories[:min(len(out.Memories), limit)]
	in := make(map[string]bool, len(out.Memories))
	for _, m := range out.Memories {
		in[m.ID] = true
	}
	out.Links = append(sessionLinks(out.Memories), s.meaningLinks(ctx, out.Memories, in, scope, k)...)
	return out, nil
}

// sessionLinks links each session's memories (2-20 of them) to its first.
func sessionLinks(rows []Memory) []MemoryLink {
	bySession := map[string][]string{}
	var order []string
	for i := len(rows) - 1; i >= 0; i-- { // oldest first
		sid := rows[i].SessionID
		if sid == "" {
			continue
		}
		if bySession[sid] == nil {
			order = append(order, sid)
		}
		bySession[sid] = append(bySession[sid], rows[i].ID)
	}
	var links []MemoryLink
	for _, sid := range order {
		ids := bySession[sid]
		if len(ids) < mapSessionMin || len(ids) > mapSessionMax {
			continue
		}
		for _, id := range ids[1:min(len(ids), mapStarsPerGroup+1)] {
			if len(links) == mapMaxCoSession {
				return links
			}
			links = append(links, MemoryLink{From: ids[0], To: id, Kind: "co_session", Session: sid})
		}
	}
	return links
}

// meaningLinks links the newest facts in the map to their nearest facts
// in the map, each pair once.
func (s *Service) meaningLinks(ctx context.Context, rows []Memory, in map[string]bool, scope Scope, k int) []MemoryLink {
	cur := s.acquire()
	defer cur.done()
	floor := gateScore(cur.embedder.Info())
	seen := map[[2]string]bool{}
	var links []MemoryLink
	facts := 0
	for _, m := range rows {
		if m.Layer != LayerFact || facts == mapRecentFacts {
			continue
		}
		facts++
		v, ok := cur.index.Vector(m.ID)
		if !ok {
			continue
		}
		hits, err := cur.index.Search(ctx, v, k+1, VectorFilter{Layers: []Layer{LayerFact}, Scope: scope})
		if err != nil {
			continue
		}
		for _, h := range hits {
			pair := [2]string{min(m.ID, h.ID), max(m.ID, h.ID)}
			if h.ID == m.ID || !in[h.ID] || h.Score < floor || seen[pair] {
				continue
			}
			seen[pair] = true
			links = append(links, MemoryLink{From: m.ID, To: h.ID, Kind: "semantic", Score: h.Score})
			if len(links) == mapMaxSemantic {
				return links
			}
		}
	}
	return links
}
