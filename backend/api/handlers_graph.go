package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"hyatlas/backend/memory"
)

// NodeJSON is a graph node on the wire (compat: id, label, type, user_id,
// agent_id). Times are Unix seconds.
type NodeJSON struct {
	ID        string  `json:"id"`
	Label     string  `json:"label"`
	Type      string  `json:"type"`
	UserID    string  `json:"user_id"`
	AgentID   string  `json:"agent_id"`
	PageID    string  `json:"page_id,omitempty"`
	CreatedAt int64   `json:"created_at"`
	Strength  float64 `json:"strength"`
	Degree    int     `json:"degree,omitempty"`
}

// EdgeJSON is one belief record of a relation (compat: from, to,
// relation, weight, source, sources, user_id, agent_id, recorded_at,
// valid_from, valid_to, invalidated_at). Times are Unix seconds; 0 means
// unknown (valid_from, valid_to) or not expired (expired_at). id is the
// relation's, the same in all its records and in every endpoint.
type EdgeJSON struct {
	ID            string   `json:"id"`
	From          string   `json:"from"`
	To            string   `json:"to"`
	Relation      string   `json:"relation"`
	Exclusive     bool     `json:"exclusive"`
	Weight        int      `json:"weight"` // how many memories back it
	Source        string   `json:"source"` // the first raw turn cited
	Sources       []string `json:"sources"`
	Facts         []string `json:"facts"`
	UserID        string   `json:"user_id"`
	AgentID       string   `json:"agent_id"`
	ValidFrom     int64    `json:"valid_from"`
	ValidTo       int64    `json:"valid_to"`
	LearnedAt     int64    `json:"learned_at"`
	RecordedAt    int64    `json:"recorded_at"`
	ExpiredAt     int64    `json:"expired_at"`
	InvalidatedAt int64    `json:"invalidated_at"` // compat name of expired_at
	ExpiredHow    string   `json:"expired_how,omitempty"`
	ExpiredBy     string   `json:"expired_by,omitempty"`
	Type          string   `json:"type"` // "knowledge"
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func toNodeJSON(n memory.GraphNode) NodeJSON {
	return NodeJSON{ID: n.ID, Label: n.Name, Type: string(n.Type), UserID: n.Owner.UserID, AgentID: n.Owner.AgentID,
		PageID: n.PageID, CreatedAt: n.CreatedAt.Unix(), Strength: round(n.Strength), Degree: n.Degree}
}

func toEdgeJSON(e memory.GraphEdge) EdgeJSON {
	out := EdgeJSON{ID: e.ID, From: e.From, To: e.To, Relation: e.Relation, Exclusive: e.Exclusive,
		Weight: len(e.Facts) + len(e.Turns), Sources: nonNil(e.Turns), Facts: nonNil(e.Facts),
		UserID: e.Owner.UserID, AgentID: e.Owner.AgentID, ValidFrom: unixOrZero(e.ValidFrom),
		ValidTo: unixOrZero(e.ValidTo), LearnedAt: e.LearnedAt.Unix(), RecordedAt: e.RecordedAt.Unix(),
		ExpiredAt: unixOrZero(e.ExpiredAt), ExpiredHow: e.ExpiredHow, ExpiredBy: e.ExpiredBy, Type: "knowledge"}
	out.InvalidatedAt = out.ExpiredAt
	if len(e.Turns) > 0 {
		out.Source = e.Turns[0]
	}
	return out
}

// unixParam reads a Unix-seconds query parameter; "" gives def. The
// graph keeps milliseconds but reports whole seconds, so a whole second
// N means the end of that second (N.999): asking for the graph at a
// record's reported time shows that record. A fraction ("N.250") is
// taken as it is, to the millisecond.
func unixParam(q string, name string, def time.Time) (time.Time, error) {
	if q == "" {
		return def, nil
	}
	// Not a number is a 400, as for every query value; a number outside
	// the range a moment can have is a 422.
	bad := memory.Errorf(memory.EBADREQUEST, "%s must be Unix seconds", name)
	outside := memory.Errorf(memory.EINVALID, "%s must be Unix seconds from 0 to 2^40", name)
	switch {
	case strings.HasPrefix(q, "-"): // -0.5 read as 0 before
		return time.Time{}, outside
	case strings.HasPrefix(q, "+"):
		return time.Time{}, bad
	}
	if whole, frac, ok := strings.Cut(q, "."); ok {
		n, err1 := strconv.ParseInt(whole, 10, 64)
		f, err2 := strconv.ParseFloat("0."+frac, 64)
		switch {
		case err1 != nil || err2 != nil || frac == "" || strings.ContainsAny(frac, "+-eE"):
			return time.Time{}, bad
		case n < 0 || n > 1<<40:
			return time.Time{}, outside
		}
		return time.UnixMilli(n*1000 + int64(f*1000)).UTC(), nil
	}
	n, err := strconv.ParseInt(q, 10, 64)
	switch {
	case err != nil:
		return time.Time{}, bad
	case n < 0 || n > 1<<40:
		return time.Time{}, outside
	}
	return time.UnixMilli(n*1000 + 999).UTC(), nil
}

// GraphAsOfResponse is the reply of GET /api/v1/graph-as-of.
type GraphAsOfResponse struct {
	Nodes      []NodeJSON `json:"nodes"`
	Relations  []EdgeJSON `json:"relations"`
	AsOf       int64      `json:"as_of"`
	Axis       string     `json:"axis"`
	Total      int        `json:"total"`       // records visible before the node cap
	TotalNodes int        `json:"total_nodes"` // nodes visible before the cap
}

// graphAsOf: ts (Unix seconds, default now), axis (recorded|valid), n
// (nodes, 500), user_id, agent_id ("all" or empty: every owner).
func (s *Server) graphAsOf(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	at, err := unixParam(q.Get("ts"), "ts", time.Time{})
	if err != nil {
		return err
	}
	axis, err := memory.ParseGraphAxis(q.Get("axis"))
	if err != nil {
		return err
	}
	n, err := queryInt(q.Get("n"), "n")
	if err != nil {
		return err
	}
	v, err := s.mem.GraphAsOf(r.Context(), memory.GraphQuery{UserID: q.Get("user_id"), AgentID: q.Get("agent_id"),
		At: at, Axis: axis, Limit: n})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, GraphAsOfResponse{Nodes: mapAll(v.Nodes, toNodeJSON), Relations: mapAll(v.Edges, toEdgeJSON),
		AsOf: v.AsOf.Unix(), Axis: string(v.Axis), Total: v.TotalEdges, TotalNodes: v.TotalNodes})
	return nil
}

// GraphChangesResponse is the reply of GET /api/v1/graph/changes.
type GraphChangesResponse struct {
	From     int64      `json:"from"`
	To       int64      `json:"to"`
	Appeared []EdgeJSON `json:"appeared"`
	Ended    []EdgeJSON `json:"ended"`
	Nodes    []NodeJSON `json:"nodes"`
}

// graphChanges: from (Unix seconds, required), to (default now), user_id,
// agent_id. Records recorded or expired in (from, to].
func (s *Server) graphChanges(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if q.Get("from") == "" {
		return memory.Errorf(memory.EBADREQUEST, "from required (Unix seconds)")
	}
	from, err := unixParam(q.Get("from"), "from", time.Time{})
	if err != nil {
		return err
	}
	// By default up to the end of the last whole second: the reply says
	// "to" in whole seconds, which read back as a "from" is that second's
	// end, so a timeline stepping from each reply's "to" misses nothing
	// learnt later in the current second (the next step has it).
	to, err := unixParam(q.Get("to"), "to", time.Now().UTC().Truncate(time.Second).Add(-time.Millisecond))
	if err != nil {
		return err
	}
	if q.Get("to") == "" && !from.Before(to) { // stepped again within the second: nothing yet
		writeJSON(w, http.StatusOK, GraphChangesResponse{From: from.Unix(), To: from.Unix(),
			Appeared: []EdgeJSON{}, Ended: []EdgeJSON{}, Nodes: []NodeJSON{}})
		return nil
	}
	d, err := s.mem.GraphChanges(r.Context(), q.Get("user_id"), q.Get("agent_id"), from, to)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, GraphChangesResponse{From: from.Unix(), To: to.Unix(),
		Appeared: mapAll(d.Appeared, toEdgeJSON), Ended: mapAll(d.Ended, toEdgeJSON), Nodes: mapAll(d.Nodes, toNodeJSON)})
	return nil
}

// GraphRequest is the query or body of /api/v1/graph (the body wins).
type GraphRequest struct {
	Node    string `json:"node"`
	UserID  string `json:"user_id"`
	AgentID string `json:"agent_id"`
}

// NeighbourJSON is one neighbour (compat: label, relation, incoming).
type NeighbourJSON struct {
	ID       string   `json:"id"`
	Label    string   `json:"label"`
	Relation string   `json:"relation"`
	Incoming bool     `json:"incoming"`
	Edge     EdgeJSON `json:"edge"`
}

// GraphResponse is the reply of /api/v1/graph.
type GraphResponse struct {
	Node       string          `json:"node"`             // the node asked for (the contract's)
	Center     *NodeJSON       `json:"center,omitempty"` // it, found (ours)
	Neighbors  []NeighbourJSON `json:"neighbors"`
	NodeCount  int             `json:"node_count"`
	EdgeCount  int             `json:"edge_count"`
	ExtractErr string          `json:"extract_err"`
}

// graph: a node (id or name) and its neighbours in the graph held now.
func (s *Server) graph(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	req := GraphRequest{Node: q.Get("node"), UserID: q.Get("user_id"), AgentID: q.Get("agent_id")}
	if r.Method == http.MethodPost {
		if err := decodeJSON(r, &req, true, false); err != nil {
			return err
		}
	}
	g, err := s.mem.GraphNeighbours(r.Context(), req.UserID, req.AgentID, strings.TrimSpace(req.Node))
	if err != nil {
		return err
	}
	out := GraphResponse{Node: strings.TrimSpace(req.Node), Neighbors: []NeighbourJSON{}, NodeCount: g.NodeCount, EdgeCount: g.EdgeCount}
	if g.Node.ID != "" {
		c := toNodeJSON(g.Node)
		out.Center = &c
	}
	for _, nb := range g.Neighbours {
		out.Neighbors = append(out.Neighbors, NeighbourJSON{ID: nb.Node.ID, Label: nb.Node.Name, Relation: nb.Relation,
			Incoming: nb.Incoming, Edge: toEdgeJSON(nb.Edge)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// GraphHistoryResponse is the reply of GET /api/v1/graph/history.
type GraphHistoryResponse struct {
	Nodes   []NodeJSON `json:"nodes"`
	Records []EdgeJSON `json:"records"`
}

// graphHistory: user_id, agent_id → every node and belief record, for a
// timeline that scrubs without asking again.
func (s *Server) graphHistory(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	h, err := s.mem.GraphHistory(r.Context(), q.Get("user_id"), q.Get("agent_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, GraphHistoryResponse{Nodes: mapAll(h.Nodes, toNodeJSON), Records: mapAll(h.Records, toEdgeJSON)})
	return nil
}
