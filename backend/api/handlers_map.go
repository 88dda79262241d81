package api

import (
	"net/http"

	"hyatlas/backend/memory"
)

// The Mind Palace feeds. Both carry the knowledge graph held now and
// recent memories linked by session and meaning, with one id space:
// entity nodes keep their graph ids (e…), memory nodes their memory ids
// (m…), and every edge's two ends are nodes of the same reply (the
// public server's learning graph drops its knowledge edges because its
// ids do not match; this one cannot).

// MapNodeJSON is a node of /api/v1/edges (compat: id, label, type,
// user_id, agent_id); kind says entity or memory.
type MapNodeJSON struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Type    string `json:"type"` // an entity's type, a memory's layer
	Kind    string `json:"kind"` // entity | memory
	UserID  string `json:"user_id"`
	AgentID string `json:"agent_id"`
}

// LinkJSON is a co_session or semantic link (compat: from, to, session,
// score, type).
type LinkJSON struct {
	From    string  `json:"from"`
	To      string  `json:"to"`
	Session string  `json:"session,omitempty"`
	Score   float64 `json:"score,omitempty"`
	Type    string  `json:"type"`
}

// EdgesResponse is the reply of GET /api/v1/edges.
type EdgesResponse struct {
	Nodes      []MapNodeJSON `json:"nodes"`
	Knowledge  []EdgeJSON    `json:"knowledge"`
	CoSession  []LinkJSON    `json:"co_session"`
	Semantic   []LinkJSON    `json:"semantic"`
	TotalEdges int           `json:"total_edges"`
}

const mapLabelBytes = 80

// memoryMap reads n, k_semantic, user_id and agent_id and builds the map.
func (s *Server) memoryMap(r *http.Request, defK int) (memory.MemoryMap, error) {
	q := r.URL.Query()
	n, err := queryInt(q.Get("n"), "n")
	if err != nil {
		return memory.MemoryMap{}, err
	}
	k, err := queryInt(q.Get("k_semantic"), "k_semantic")
	if err != nil {
		return memory.MemoryMap{}, err
	}
	if q.Get("k_semantic") == "" {
		k = defK
	}
	return s.mem.MemoryMap(r.Context(), memory.MapQuery{UserID: q.Get("user_id"), AgentID: q.Get("agent_id"), Limit: n, KSemantic: k})
}

// edges: n (500), k_semantic (3), user_id, agent_id.
func (s *Server) edges(w http.ResponseWriter, r *http.Request) error {
	m, err := s.memoryMap(r, 3)
	if err != nil {
		return err
	}
	out := EdgesResponse{Nodes: []MapNodeJSON{}, Knowledge: mapAll(m.Relations, toEdgeJSON), CoSession: []LinkJSON{}, Semantic: []LinkJSON{}}
	for _, n := range m.Entities {
		out.Nodes = append(out.Nodes, MapNodeJSON{ID: n.ID, Label: n.Name, Type: string(n.Type), Kind: "entity",
			UserID: n.Owner.UserID, AgentID: n.Owner.AgentID})
	}
	for _, mm := range m.Memories {
		out.Nodes = append(out.Nodes, MapNodeJSON{ID: mm.ID, Label: memory.CutText(mm.Content, mapLabelBytes),
			Type: string(mm.Layer), Kind: "memory", UserID: mm.Owner.UserID, AgentID: mm.Owner.AgentID})
	}
	for _, l := range m.Links {
		j := LinkJSON{From: l.From, To: l.To, Session: l.Session, Score: round(l.Score), Type: l.Kind}
		if l.Kind == "semantic" {
			out.Semantic = append(out.Semantic, j)
		} else {
			out.CoSession = append(out.CoSession, j)
		}
	}
	out.TotalEdges = len(out.Knowledge) + len(out.CoSession) + len(out.Semantic)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// StarNodeJSON is a node of /api/v1/learning/graph (the star-map shape).
type StarNodeJSON struct {
	ID        string `json:"id"`
	Label     string `json:"label"`
	Kind      string `json:"kind"` // memory | entity
	Timestamp int64  `json:"timestamp"`
	Category  string `json:"category"` // a memory's layer, or "entity"
	UseCount  int    `json:"use_count"`
	State     string `json:"state"`
	CreatedBy string `json:"created_by"`
	Pinned    bool   `json:"pinned"`
}

// StarEdgeJSON is an edge of the star map.
type StarEdgeJSON struct {
	Source   string  `json:"source"`
	Target   string  `json:"target"`
	Type     string  `json:"type"` // knowledge | co_session | semantic
	Relation string  `json:"relation,omitempty"`
	Score    float64 `json:"score,omitempty"`
}

// StarCardJSON is a memory's card.
type StarCardJSON struct {
	ID        string `json:"id"`
	Source    string `json:"source"`
	Timestamp int64  `json:"timestamp"`
	Title     string `json:"title"`
	Body      string `json:"body"`
}

// LearningGraphResponse is the reply of GET /api/v1/learning/graph.
type LearningGraphResponse struct {
	Nodes  []StarNodeJSON `json:"nodes"`
	Edges  []StarEdgeJSON `json:"edges"`
	Memory []StarCardJSON `json:"memory"`
	Stats  struct {
		NodeCount   int `json:"node_count"`
		EdgeCount   int `json:"edge_count"`
		MemoryCount int `json:"memory_count"`
	} `json:"stats"`
}

const cardBodyBytes = 2048

// learningGraph: n (500), k_semantic (2), user_id, agent_id.
func (s *Server) learningGraph(w http.ResponseWriter, r *http.Request) error {
	m, err := s.memoryMap(r, 2)
	if err != nil {
		return err
	}
	out := LearningGraphResponse{Nodes: []StarNodeJSON{}, Edges: []StarEdgeJSON{}, Memory: []StarCardJSON{}}
	for _, n := range m.Entities {
		out.Nodes = append(out.Nodes, StarNodeJSON{ID: n.ID, Label: n.Name, Kind: "entity", Timestamp: n.CreatedAt.Unix(),
			Category: "entity", State: "active", CreatedBy: "consolidation"})
	}
	for _, mm := range m.Memories {
		label := memory.CutText(mm.Content, mapLabelBytes)
		out.Nodes = append(out.Nodes, StarNodeJSON{ID: mm.ID, Label: label, Kind: "memory", Timestamp: mm.CreatedAt.Unix(),
			Category: string(mm.Layer), UseCount: mm.UseCount, State: "active", CreatedBy: "agent"})
		out.Memory = append(out.Memory, StarCardJSON{ID: mm.ID, Source: "memory", Timestamp: mm.CreatedAt.Unix(),
			Title: label, Body: memory.CutText(mm.Content, cardBodyBytes)})
	}
	for _, e := range m.Relations {
		out.Edges = append(out.Edges, StarEdgeJSON{Source: e.From, Target: e.To, Type: "knowledge", Relation: e.Relation})
	}
	for _, l := range m.Links {
		out.Edges = append(out.Edges, StarEdgeJSON{Source: l.From, Target: l.To, Type: l.Kind, Score: round(l.Score)})
	}
	out.Stats.NodeCount, out.Stats.EdgeCount, out.Stats.MemoryCount = len(out.Nodes), len(out.Edges), len(out.Memory)
	writeJSON(w, http.StatusOK, out)
	return nil
}
