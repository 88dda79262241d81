package memory

import (
	"context"
	"fmt"
)

// MaxHistoryRecords bounds one graph history.
const MaxHistoryRecords = 200_000

// GraphHistory is every node and every belief record of an owner's graph
// (evidence left out): what a timeline needs to show the graph at any
// moment on either axis without asking again (see visibleAt for the rules
// a client applies).
type GraphHistory struct {
	Nodes   []GraphNode `json:"nodes"`
	Records []GraphEdge `json:"records"`
}

// GraphHistory returns the owner's whole graph history ("" or "all":
// everyone), oldest record first.
func (s *Service) GraphHistory(ctx context.Context, userID, agentID string) (GraphHistory, error) {
	if s.graphStore == nil {
		return GraphHistory{}, Errorf(EUNAVAILABLE, "the knowledge graph is not available")
	}
	scope, err := s.graphScope(userID, agentID)
	if err != nil {
		return GraphHistory{}, err
	}
	nodes, edges, err := s.graphCopy.get(ctx, s.graphStore)
	if err != nil {
		return GraphHistory{}, fmt.Errorf("graph history: %w", err)
	}
	out := GraphHistory{Nodes: []GraphNode{}, Records: []GraphEdge{}}
	degree := map[string]int{}
	touched := map[string]bool{} // the entities the kept records touch (a person's, maybe made through another agent)
	for _, e := range edges {
		if !scope.Covers(e.Owner) {
			continue
		}
		touched[e.From], touched[e.To] = true, true
		if len(out.Records) == MaxHistoryRecords {
			return GraphHistory{}, Errorf(EINVALID, "the graph has more than %d records: ask for one owner", MaxHistoryRecords)
		}
		e.Facts, e.Turns = nil, nil
		out.Records = append(out.Records, e)
		if e.Held() {
			degree[e.From]++
			degree[e.To]++
		}
	}
	for _, n := range nodes {
		if scope.Covers(n.Owner) || touched[n.ID] {
			n.Degree = degree[n.ID]
			out.Nodes = append(out.Nodes, n)
		}
	}
	return out, nil
}
