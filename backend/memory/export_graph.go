package memory

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// GraphExport is the knowledge graph of the exported owners, as an export
// carries it: every node, every belief record of every relation (expired
// ones too, oldest first, each with its relation's evidence), and the
// links between facts. Import merges it in (see Store.ImportRows).
type GraphExport struct {
	Nodes     []GraphNode
	Relations []GraphEdge
	Links     []Link
}

// GraphImportReport counts what an import added to the graph.
type GraphImportReport struct {
	Nodes     int `json:"nodes"`     // new entities (one already here by name is used as is)
	Relations int `json:"relations"` // new relations, with all their records
	Links     int `json:"links"`
}

// exportLink is a link between two facts in an export.
type exportLink struct {
	A    string    `json:"a"`
	B    string    `json:"b"`
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
}

// graphLines turns the graph into export lines.
func graphLines(g GraphExport) []exportLine {
	var out []exportLine
	for _, n := range g.Nodes {
		n := n
		n.Degree, n.Strength = 0, 0 // computed here, not data
		out = append(out, exportLine{Type: "graph_node", UserID: n.Owner.UserID, AgentID: n.Owner.AgentID, Node: &n})
	}
	for _, e := range g.Relations {
		e := e
		out = append(out, exportLine{Type: "graph_relation", UserID: e.Owner.UserID, AgentID: e.Owner.AgentID, Relation: &e})
	}
	for _, l := range g.Links {
		out = append(out, exportLine{Type: "link", Link: &exportLink{A: l.A, B: l.B, Kind: l.Kind, At: l.At}})
	}
	return out
}

// expiredHows are the ways a relation's record can have stopped being held.
var expiredHows = map[string]bool{"": true, ExpiredEnded: true, ExpiredEvidenceRetired: true, ExpiredEvidenceDeleted: true, ExpiredReopened: true}

// checkImportedNode validates one graph_node record.
func checkImportedNode(l exportLine) (GraphNode, error) {
	if l.Node == nil {
		return GraphNode{}, fmt.Errorf("a graph_node record without its node")
	}
	n := *l.Node
	n.Owner = Owner{UserID: l.UserID, AgentID: l.AgentID}
	var err error
	switch {
	case !graphID(n.ID, "e"):
		return n, fmt.Errorf("entity id %q is not an entity id", n.ID)
	case n.Owner.UserID == "" || checkLabel("user_id", n.Owner.UserID) != nil || checkLabel("agent_id", n.Owner.AgentID) != nil || untrimmed(n.Owner):
		return n, fmt.Errorf("entity %s: a missing or invalid owner (ids do not begin or end with spaces)", n.ID)
	case strings.TrimSpace(n.Name) == "" || !utf8.ValidString(n.Name) || utf8.RuneCountInString(n.Name) > maxEntityName:
		return n, fmt.Errorf("entity %s: a name of 1 to %d characters is required", n.ID, maxEntityName)
	case checkLabel("page_id", n.PageID) != nil:
		return n, fmt.Errorf("entity %s: an invalid page id", n.ID)
	case n.CreatedAt.IsZero():
		return n, fmt.Errorf("entity %s: created_at is missing", n.ID)
	case !ValidTime(n.CreatedAt):
		return n, fmt.Errorf("entity %s: created_at must fall within the years 1 to 9999", n.ID)
	}
	if n.Type, err = ParseEntityType(string(n.Type)); err != nil {
		return n, fmt.Errorf("entity %s: %v", n.ID, ErrorMessage(err))
	}
	n.Degree, n.Strength = 0, 0
	return n, nil
}

// maxImportedEvidence bounds a relation's evidence in an import. It is not
// maxEvidence, which bounds one learning: each restatement of a relation
// adds its memories, so a relation held here can have many more, and its
// export must import.
const maxImportedEvidence = 1_000_000

// checkImportedRelation validates one graph_relation record (one belief
// record; its ends are checked against the export's nodes once all are
// read, see checkGraph).
func checkImportedRelation(l exportLine) (GraphEdge, error) {
	if l.Relation == nil {
		return GraphEdge{}, fmt.Errorf("a graph_relation record without its relation")
	}
	e := *l.Relation
	e.Owner = Owner{UserID: l.UserID, AgentID: l.AgentID}
	switch {
	case !graphID(e.ID, "r"):
		return e, fmt.Errorf("relation id %q is not a relation id", e.ID)
	case e.Owner.UserID == "" || checkLabel("user_id", e.Owner.UserID) != nil || checkLabel("agent_id", e.Owner.AgentID) != nil || untrimmed(e.Owner):
		return e, fmt.Errorf("relation %s: a missing or invalid owner (ids do not begin or end with spaces)", e.ID)
	case e.From == "" || e.To == "" || e.From == e.To:
		return e, fmt.Errorf("relation %s: needs two different entities", e.ID)
	case strings.TrimSpace(e.Relation) == "" || !utf8.ValidString(e.Relation) || utf8.RuneCountInString(e.Relation) > maxRelationName:
		return e, fmt.Errorf("relation %s: a name of 1 to %d characters is required", e.ID, maxRelationName)
	case e.LearnedAt.IsZero() || e.RecordedAt.IsZero():
		return e, fmt.Errorf("relation %s: learned_at and recorded_at are required", e.ID)
	case !ValidTime(e.ValidFrom) || !ValidTime(e.ValidTo) || !ValidTime(e.LearnedAt) || !ValidTime(e.RecordedAt) || !ValidTime(e.ExpiredAt):
		return e, fmt.Errorf("relation %s: its times must fall within the years 1 to 9999", e.ID)
	case !expiredHows[e.ExpiredHow] || (e.ExpiredHow == "") != e.ExpiredAt.IsZero():
		return e, fmt.Errorf("relation %s: expired_at and expired_how must come together (%q)", e.ID, e.ExpiredHow)
	case len(e.Facts)+len(e.Turns) > maxImportedEvidence:
		return e, fmt.Errorf("relation %s: more than %d memories as evidence", e.ID, maxImportedEvidence)
	case checkLabel("expired_by", e.ExpiredBy) != nil:
		return e, fmt.Errorf("relation %s: an invalid expired_by", e.ID)
	}
	for _, id := range append(append([]string(nil), e.Facts...), e.Turns...) {
		if id == "" || checkLabel("evidence", id) != nil {
			return e, fmt.Errorf("relation %s: an invalid evidence id", e.ID)
		}
	}
	return e, nil
}

// checkImportedLink validates one link record.
func checkImportedLink(l exportLine) (Link, error) {
	if l.Link == nil {
		return Link{}, fmt.Errorf("a link record without its link")
	}
	k := *l.Link
	if k.A == "" || k.B == "" || k.Kind == "" || checkLabel("a", k.A) != nil || checkLabel("b", k.B) != nil ||
		checkLabel("kind", k.Kind) != nil || k.At.IsZero() {
		return Link{}, fmt.Errorf("a link needs a, b, kind and at")
	}
	if !ValidTime(k.At) {
		return Link{}, fmt.Errorf("a link's at must fall within the years 1 to 9999")
	}
	return Link{A: k.A, B: k.B, Kind: k.Kind, At: k.At}, nil
}

// graphRecordLines holds the line of each graph record of an import, in the
// order of GraphExport's Nodes and Relations.
type graphRecordLines struct{ nodes, relations []int }

// checkGraph checks what only the whole graph shows: every relation's ends
// are entities of the export, its records agree on what it relates, and
// at most one of them is held. A problem names the line of the record it
// is on.
func checkGraph(g GraphExport, lines graphRecordLines) error {
	at := func(ls []int, i int) string {
		if i < len(ls) {
			return fmt.Sprintf("line %d: ", ls[i])
		}
		return ""
	}
	nodes := map[string]bool{}
	for i, n := range g.Nodes {
		if nodes[n.ID] {
			return fmt.Errorf("%sentity %s is in the export twice", at(lines.nodes, i), n.ID)
		}
		nodes[n.ID] = true
	}
	first := map[string]GraphEdge{}
	held := map[string]bool{}
	for i, e := range g.Relations {
		if !nodes[e.From] || !nodes[e.To] {
			return fmt.Errorf("%srelation %s relates an entity the export does not have", at(lines.relations, i), e.ID)
		}
		if f, ok := first[e.ID]; ok && (f.From != e.From || f.To != e.To || f.Relation != e.Relation || f.Owner != e.Owner) {
			return fmt.Errorf("%sthe records of relation %s do not agree on what it relates", at(lines.relations, i), e.ID)
		}
		first[e.ID] = e
		if e.Held() {
			if held[e.ID] {
				return fmt.Errorf("%srelation %s is held by two records", at(lines.relations, i), e.ID)
			}
			held[e.ID] = true
		}
	}
	return nil
}

// graphID reports whether id looks like one NewGraphID makes (prefix,
// then letters and digits).
func graphID(id, prefix string) bool {
	if !strings.HasPrefix(id, prefix) || len(id) < 2 || len(id) > 64 {
		return false
	}
	for _, r := range id[1:] {
		if (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// untrimmed reports an owner id that begins or ends with spaces: no
// owner filter (each trims what it is given) could reach its records.
func untrimmed(o Owner) bool {
	return o.UserID != strings.TrimSpace(o.UserID) || o.AgentID != strings.TrimSpace(o.AgentID)
}
