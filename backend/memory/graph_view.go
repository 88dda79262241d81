package memory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Graph view limits.
const (
	DefaultGraphNodes = 500
	MaxGraphNodes     = 10000
)

// GraphQuery asks for the graph as it stood at At on an axis.
type GraphQuery struct {
	UserID  string    // "" or "all": every owner
	AgentID string    // "" or "all": every agent
	At      time.Time // zero: now
	Axis    GraphAxis
	Limit   int // nodes; 0: DefaultGraphNodes
}

// GraphView is a graph at one moment: at most Limit nodes, chosen by
// importance (see GraphStore.GraphAt), and the records between them
// (never one with an end that is not among the nodes).
type GraphView struct {
	AsOf  time.Time   `json:"as_of"`
	Axis  GraphAxis   `json:"axis"`
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"relations"`
	// TotalNodes and TotalEdges count the view before the cap.
	TotalNodes int `json:"total_nodes"`
	TotalEdges int `json:"total"`
}

// GraphAsOf returns the graph as it stood at q.At.
func (s *Service) GraphAsOf(ctx context.Context, q GraphQuery) (GraphView, error) {
	if s.graphStore == nil {
		return GraphView{}, Errorf(EUNAVAILABLE, "the knowledge graph is not available")
	}
	limit, err := pageLimit("n", q.Limit, DefaultGraphNodes, MaxGraphNodes)
	if err != nil {
		return GraphView{}, err
	}
	if q.Axis == "" {
		q.Axis = AxisRecorded
	}
	if q.At.IsZero() {
		q.At = s.now()
	}
	scope, err := s.graphScope(q.UserID, q.AgentID)
	if err != nil {
		return GraphView{}, err
	}
	nodes, edges, err := s.graphCopy.get(ctx, s.graphStore)
	if err != nil {
		return GraphView{}, fmt.Errorf("graph as of %s: %w", q.At.Format(time.RFC3339), err)
	}
	v := viewAt(nodes, edges, scope, q.Axis, q.At, limit)
	if err := s.graphStore.GraphEvidence(ctx, v.Edges); err != nil {
		return GraphView{}, fmt.Errorf("graph evidence: %w", err)
	}
	return v, nil
}

// visibleAt reports whether a record is part of the graph at t on an
// axis (see the package comment in graph.go).
func visibleAt(e GraphEdge, axis GraphAxis, t time.Time) bool {
	if axis == AxisValid {
		from := e.ValidFrom
		if from.IsZero() {
			from = e.LearnedAt
		}
		return e.Held() && !from.After(t) && (e.ValidTo.IsZero() || e.ValidTo.After(t))
	}
	return !e.RecordedAt.After(t) && (e.ExpiredAt.IsZero() || e.ExpiredAt.After(t))
}

// viewAt computes the view at t: the limit most important nodes in scope
// among those the visible records touch and those created at or before t
// (by degree among the visible records, then strength, then the oldest,
// then id: never by name), and the visible records between kept nodes. It
// is pure: the inputs are not changed; the edges come without evidence.
func viewAt(nodes []GraphNode, edges []GraphEdge, scope Scope, axis GraphAxis, t time.Time, limit int) GraphView {
	v := GraphView{AsOf: t.UTC(), Axis: axis, Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	degree := map[string]int{}
	var visible []int
	for i, e := range edges {
		if scope.Covers(e.Owner) && visibleAt(e, axis, t) {
			visible = append(visible, i)
			degree[e.From]++
			degree[e.To]++
		}
	}
	var ranked []GraphNode
	for _, n := range nodes {
		if d := degree[n.ID]; d > 0 || (scope.Covers(n.Owner) && !n.CreatedAt.After(t)) {
			n.Degree = d
			ranked = append(ranked, n)
		}
	}
	sort.Slice(ranked, func(i, j int) bool {
		a, b := ranked[i], ranked[j]
		switch {
		case a.Degree != b.Degree:
			return a.Degree > b.Degree
		case a.Strength != b.Strength:
			return a.Strength > b.Strength
		case !a.CreatedAt.Equal(b.CreatedAt):
			return a.CreatedAt.Before(b.CreatedAt)
		default:
			return a.ID < b.ID
		}
	})
	v.TotalNodes, v.TotalEdges = len(ranked), len(visible)
	if len(ranked) > limit {
		ranked = ranked[:limit]
	}
	kept := make(map[string]bool, len(ranked))
	for _, n := range ranked {
		kept[n.ID] = true
	}
	v.Nodes = append(v.Nodes, ranked...)
	for _, i := range visible {
		if e := edges[i]; kept[e.From] && kept[e.To] {
			e.Facts, e.Turns = nil, nil
			v.Edges = append(v.Edges, e)
		}
	}
	return v
}

// graphCache is the graph's nodes and records in memory: views are
// computed from it, and it is reloaded whenever the store's graph version
// has moved since it was read (one small query per view).
type graphCache struct {
	mu      sync.Mutex
	loaded  bool
	version int64
	nodes   []GraphNode
	edges   []GraphEdge
}

// reset drops the copy: the next read loads the store's graph again.
func (c *graphCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loaded, c.nodes, c.edges = false, nil, nil
}

// get returns the current nodes and records; callers must not change them.
func (c *graphCache) get(ctx context.Context, st GraphStore) ([]GraphNode, []GraphEdge, error) {
	v, err := st.GraphVersion(ctx)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded && c.version == v {
		return c.nodes, c.edges, nil
	}
	nodes, edges, err := st.GraphAll(ctx)
	if err != nil {
		return nil, nil, err
	}
	c.loaded, c.version, c.nodes, c.edges = true, v, nodes, edges
	return nodes, edges, nil
}

// GraphChanges lists what changed between two times (recorded axis):
// records that appeared, records that ended, nodes that appeared. A
// timeline scrubs with it instead of fetching whole views.
func (s *Service) GraphChanges(ctx context.Context, userID, agentID string, from, to time.Time) (GraphDelta, error) {
	if s.graphStore == nil {
		return GraphDelta{}, Errorf(EUNAVAILABLE, "the knowledge graph is not available")
	}
	if !from.Before(to) {
		return GraphDelta{}, Errorf(EINVALID, "from must be before to")
	}
	scope, err := s.graphScope(userID, agentID)
	if err != nil {
		return GraphDelta{}, err
	}
	d, err := s.graphStore.GraphChanges(ctx, scope, from, to)
	if err != nil {
		return GraphDelta{}, fmt.Errorf("graph changes: %w", err)
	}
	if err := s.graphStore.GraphEvidence(ctx, d.Appeared); err != nil {
		return GraphDelta{}, fmt.Errorf("graph evidence: %w", err)
	}
	if err := s.graphStore.GraphEvidence(ctx, d.Ended); err != nil {
		return GraphDelta{}, fmt.Errorf("graph evidence: %w", err)
	}
	if d.Nodes == nil {
		d.Nodes = []GraphNode{}
	}
	return d, nil
}

// GraphNeighbour is a node linked to another by a held relation.
type GraphNeighbour struct {
	Node     GraphNode `json:"node"`
	Relation string    `json:"relation"`
	Incoming bool      `json:"incoming"` // the relation points at the asked node
	Edge     GraphEdge `json:"edge"`
}

// GraphNeighbourhood is a node, its neighbours, and the size of the
// graph in scope.
type GraphNeighbourhood struct {
	Node       GraphNode
	Neighbours []GraphNeighbour
	NodeCount  int
	EdgeCount  int
}

// GraphNeighbours finds a node by id or name (case-insensitive) among the
// graph held now and lists its neighbours; ENOTFOUND when no node matches.
func (s *Service) GraphNeighbours(ctx context.Context, userID, agentID, node string) (GraphNeighbourhood, error) {
	if s.graphStore == nil {
		return GraphNeighbourhood{}, Errorf(EUNAVAILABLE, "the knowledge graph is not available")
	}
	scope, err := s.graphScope(userID, agentID)
	if err != nil {
		return GraphNeighbourhood{}, err
	}
	counts := func() (GraphNeighbourhood, error) {
		nodes, held, err := s.graphStore.GraphCounts(ctx, scope)
		return GraphNeighbourhood{Neighbours: []GraphNeighbour{}, NodeCount: nodes, EdgeCount: held}, err
	}
	if strings.TrimSpace(node) == "" {
		return counts() // the public contract: no node asks for the counts
	}
	center, edges, others, err := s.graphStore.GraphAround(ctx, scope, strings.TrimSpace(node))
	if ErrorCode(err) == ENOTFOUND {
		return counts() // a node not (yet) in the graph has no neighbours
	}
	if err != nil {
		return GraphNeighbourhood{}, fmt.Errorf("graph around %q: %w", node, err)
	}
	if err := s.graphStore.GraphEvidence(ctx, edges); err != nil {
		return GraphNeighbourhood{}, fmt.Errorf("graph evidence: %w", err)
	}
	byID := map[string]GraphNode{}
	for _, n := range others {
		byID[n.ID] = n
	}
	out := []GraphNeighbour{}
	for _, e := range edges {
		other, incoming := e.To, false
		if e.To == center.ID {
			other, incoming = e.From, true
		}
		out = append(out, GraphNeighbour{Node: byID[other], Relation: e.Relation, Incoming: incoming, Edge: e})
	}
	nodes, held, err := s.graphStore.GraphCounts(ctx, scope)
	if err != nil {
		return GraphNeighbourhood{}, err
	}
	return GraphNeighbourhood{Node: center, Neighbours: out, NodeCount: nodes, EdgeCount: held}, nil
}

// graphScope is the owner filter of a graph read: "all" or "" is none
// (compat), a user id covers its alias group.
func (s *Service) graphScope(userID, agentID string) (Scope, error) {
	var users []string
	if u := strings.TrimSpace(userID); u != "" && u != "all" {
		users = []string{u}
	}
	if strings.TrimSpace(agentID) == "all" {
		agentID = ""
	}
	return s.scope(users, agentID)
}

// GraphCounts counts nodes and held relations (all owners); without a
// graph both are 0.
func (s *Service) GraphCounts(ctx context.Context) (nodes, edges int, err error) {
	if s.graphStore == nil {
		return 0, 0, nil
	}
	return s.graphStore.GraphCounts(ctx, Scope{})
}
