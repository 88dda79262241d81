package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"hyatlas/backend/memory"
)

// querier is what reads need: the read pool or a write transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// GraphVersion is a number that changes whenever the graph's nodes or
// records change (migrations/0004_graph.sql keeps it).
func (s *Store) GraphVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := s.reader.QueryRowContext(ctx, `SELECT v FROM graph_version WHERE id = 1`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read the graph version: %w", err)
	}
	return v, nil
}

// GraphAll reads every node and every record, without evidence, for a
// reader that keeps the graph in memory.
func (s *Store) GraphAll(ctx context.Context) ([]memory.GraphNode, []memory.GraphEdge, error) {
	nodes, err := s.queryNodes(ctx, where{})
	if err != nil {
		return nil, nil, err
	}
	edges, err := queryEdges(ctx, s.reader, `SELECT `+edgeColumns+` FROM graph_edges ORDER BY seq`)
	if err != nil {
		return nil, nil, err
	}
	return nodes, edges, nil
}

// inScope adds to w (on graph_nodes n) the nodes of the scope's graph:
// those its owners made, and those that records of theirs touch (a
// person's agents share their entities).
func inScope(w *where, scope memory.Scope) {
	var own, used where
	own.scope("n.", scope)
	if len(own.conds) == 0 {
		return
	}
	used.scope("g.", scope)
	w.add("("+own.and()+` OR EXISTS (SELECT 1 FROM graph_edges g
		WHERE (g.src = n.id OR g.dst = n.id) AND `+used.and()+"))", append(own.args, used.args...)...)
}

// GraphAround finds a node in scope by id or normalised name and returns
// it with the records in scope held now that touch it and the nodes at
// their other ends; ENOTFOUND when there is no such node.
func (s *Store) GraphAround(ctx context.Context, scope memory.Scope, node string) (memory.GraphNode, []memory.GraphEdge, []memory.GraphNode, error) {
	var w where
	w.add("(n.id = ? OR n.norm = ?)", node, memory.NormalizeText(node))
	inScope(&w, scope)
	found, err := s.queryNodes(ctx, w)
	if err != nil {
		return memory.GraphNode{}, nil, nil, err
	}
	if len(found) == 0 {
		return memory.GraphNode{}, nil, nil, memory.Errorf(memory.ENOTFOUND, "no entity %q in the graph", node)
	}
	center := found[0]
	var ew where
	ew.add("expired_at IS NULL AND (src = ? OR dst = ?)", center.ID, center.ID)
	ew.scope("", scope)
	edges, err := queryEdges(ctx, s.reader, `SELECT `+edgeColumns+` FROM graph_edges`+ew.sql()+` ORDER BY seq`, ew.args...)
	if err != nil {
		return memory.GraphNode{}, nil, nil, err
	}
	others, err := s.addTouched(ctx, []memory.GraphNode{center}, edges)
	if err != nil {
		return memory.GraphNode{}, nil, nil, err
	}
	return center, edges, others[1:], nil
}

// GraphChanges lists the records recorded or expired in (from, to], in
// scope, the nodes created then and the nodes those records touch.
func (s *Store) GraphChanges(ctx context.Context, scope memory.Scope, from, to time.Time) (memory.GraphDelta, error) {
	d := memory.GraphDelta{From: from, To: to, Appeared: []memory.GraphEdge{}, Ended: []memory.GraphEdge{}}
	f, t := from.UnixMilli(), to.UnixMilli()
	var w where
	w.scope("", scope)
	w.add("recorded_at > ? AND recorded_at <= ?", f, t)
	var err error
	if d.Appeared, err = queryEdges(ctx, s.reader, `SELECT `+edgeColumns+` FROM graph_edges`+w.sql()+` ORDER BY seq`, w.args...); err != nil {
		return d, err
	}
	w = where{}
	w.scope("", scope)
	w.add("expired_at > ? AND expired_at <= ?", f, t)
	if d.Ended, err = queryEdges(ctx, s.reader, `SELECT `+edgeColumns+` FROM graph_edges`+w.sql()+` ORDER BY expired_at, seq`, w.args...); err != nil {
		return d, err
	}
	var nw where
	nw.scope("n.", scope)
	nw.add("n.created_at > ? AND n.created_at <= ?", f, t)
	if d.Nodes, err = s.queryNodes(ctx, nw); err != nil {
		return d, err
	}
	d.Nodes, err = s.addTouched(ctx, d.Nodes, append(append([]memory.GraphEdge(nil), d.Appeared...), d.Ended...))
	return d, err
}

// maxGraphNeighbours caps the memories one search reads through the graph
// (a hub entity cited by thousands of facts must not flood it).
const maxGraphNeighbours = 500

// graphNeighbours is the query behind Neighbours' graph part: for each
// given memory (placeholders ph), the evidence of every held relation
// that touches an entity of a held relation the memory backs (one hop).
func graphNeighbours(ph string) string {
	return `WITH src(mid, rel) AS (
			SELECT memory_id, rel_id FROM graph_evidence WHERE memory_id IN (` + ph + `)),
		ends(mid, node) AS (
			SELECT s.mid, g.src FROM src s JOIN graph_edges g ON g.rel_id = s.rel AND g.expired_at IS NULL
			UNION SELECT s.mid, g.dst FROM src s JOIN graph_edges g ON g.rel_id = s.rel AND g.expired_at IS NULL),
		near(mid, rel) AS (
			SELECT e.mid, g.rel_id FROM ends e JOIN graph_edges g ON g.src = e.node AND g.expired_at IS NULL
			UNION SELECT e.mid, g.rel_id FROM ends e JOIN graph_edges g ON g.dst = e.node AND g.expired_at IS NULL)
		SELECT DISTINCT n.mid, v.memory_id FROM near n JOIN graph_evidence v ON v.rel_id = n.rel
		WHERE v.memory_id <> n.mid LIMIT ` + strconv.Itoa(maxGraphNeighbours)
}

// GraphEvidence fills in the evidence of the given records.
func (s *Store) GraphEvidence(ctx context.Context, edges []memory.GraphEdge) error {
	ptrs := make([]*memory.GraphEdge, len(edges))
	for i := range edges {
		edges[i].Facts, edges[i].Turns = []string{}, []string{}
		ptrs[i] = &edges[i]
	}
	return fillEvidence(ctx, s.reader, ptrs)
}

// GraphCounts counts the nodes and held relations in scope (the nodes its
// owners made or its records touch).
func (s *Store) GraphCounts(ctx context.Context, scope memory.Scope) (int, int, error) {
	var nodes, edges int
	var nw, held where
	inScope(&nw, scope)
	held.scope("", scope)
	held.add("expired_at IS NULL")
	err := s.reader.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM graph_nodes n`+nw.sql()+`),
		(SELECT count(*) FROM graph_edges`+held.sql()+`)`, append(append([]any{}, nw.args...), held.args...)...).Scan(&nodes, &edges)
	if err != nil {
		return 0, 0, fmt.Errorf("count the graph: %w", err)
	}
	return nodes, edges, nil
}

const nodeSelect = `SELECT n.id, n.user_id, n.agent_id, n.name, n.type, n.page_id, n.created_at,
	coalesce(m.strength, ?) FROM graph_nodes n LEFT JOIN memories m ON m.id = n.page_id AND n.page_id <> ''`

func (s *Store) queryNodes(ctx context.Context, w where) ([]memory.GraphNode, error) {
	args := append([]any{memory.DefaultStrength}, w.args...)
	var out []memory.GraphNode
	err := s.query(ctx, nodeSelect+w.sql()+` ORDER BY n.seq`, args, func(r *sql.Rows) error {
		n, err := scanNode(r)
		out = append(out, n)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read nodes: %w", err)
	}
	return out, nil
}

// scanNode reads a nodeSelect row.
func scanNode(r *sql.Rows) (memory.GraphNode, error) {
	var (
		n       memory.GraphNode
		typ     string
		created int64
	)
	if err := r.Scan(&n.ID, &n.Owner.UserID, &n.Owner.AgentID, &n.Name, &typ, &n.PageID, &created, &n.Strength); err != nil {
		return n, err
	}
	n.Type, n.CreatedAt = memory.EntityType(typ), time.UnixMilli(created).UTC()
	return n, nil
}

// addTouched adds to nodes the ones the edges touch that it lacks.
func (s *Store) addTouched(ctx context.Context, nodes []memory.GraphNode, edges []memory.GraphEdge) ([]memory.GraphNode, error) {
	have := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		have[n.ID] = true
	}
	var missing []string
	for _, e := range edges {
		for _, id := range []string{e.From, e.To} {
			if !have[id] {
				have[id] = true
				missing = append(missing, id)
			}
		}
	}
	for start := 0; start < len(missing); start += 500 {
		var w where
		w.in("n.id", missing[start:min(start+500, len(missing))])
		more, err := s.queryNodes(ctx, w)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, more...)
	}
	return nodes, nil
}
