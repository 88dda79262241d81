package memory

import (
	"slices"
	"testing"
	"time"
)

// A capped view keeps the most connected nodes (then the strongest, then
// the oldest; never by name), only the records between kept nodes, and
// counts what it cut.
func TestViewAtCapsByImportance(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	o := Owner{UserID: "u"}
	node := func(id string, strength float64, age int) GraphNode {
		return GraphNode{ID: id, Owner: o, Name: id, Strength: strength, CreatedAt: t0.Add(time.Duration(age) * time.Hour)}
	}
	edge := func(from, to string) GraphEdge {
		return GraphEdge{ID: from + to, Owner: o, From: from, To: to, LearnedAt: t0, RecordedAt: t0}
	}
	nodes := []GraphNode{node("aa", 0.5, 1), node("hub", 0.5, 5), node("zz", 0.9, 3), node("mid", 0.5, 2), node("late", 1, 500)}
	edges := []GraphEdge{edge("hub", "aa"), edge("hub", "zz"), edge("hub", "mid"), edge("mid", "aa")}
	at := t0.Add(24 * time.Hour)
	cases := []struct {
		limit     int
		wantNodes []string
		wantEdges int
	}{
		{1, []string{"hub"}, 0},
		{2, []string{"hub", "aa"}, 1},               // aa and mid: degree 2, equal strength; aa is older
		{3, []string{"hub", "aa", "mid"}, 3},        // both before zz (degree 1, however strong)
		{10, []string{"hub", "aa", "mid", "zz"}, 4}, // "late" was created after the moment asked
	}
	for _, tc := range cases {
		v := viewAt(nodes, edges, Scope{}, AxisRecorded, at, tc.limit)
		var got []string
		for _, n := range v.Nodes {
			got = append(got, n.ID)
		}
		if !slices.Equal(got, tc.wantNodes) || len(v.Edges) != tc.wantEdges {
			t.Errorf("limit %d: nodes %v, %d edges; want %v, %d", tc.limit, got, len(v.Edges), tc.wantNodes, tc.wantEdges)
		}
		if v.TotalNodes != 4 || v.TotalEdges != 4 {
			t.Errorf("limit %d: totals %d nodes %d edges, want 4 and 4", tc.limit, v.TotalNodes, v.TotalEdges)
		}
	}
	if nodes[1].Degree != 0 {
		t.Fatal("viewAt changed its input")
	}
	if v := viewAt(nodes, edges, Scope{UserIDs: []string{"other"}}, AxisRecorded, at, 10); len(v.Nodes)+len(v.Edges) != 0 {
		t.Fatalf("another owner's scope sees %d nodes, %d edges", len(v.Nodes), len(v.Edges))
	}
}
