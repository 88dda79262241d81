package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunGraph_Small runs the graph bench on a small history and checks
// the report: contradictions ended some relations, views saw records, and
// every timing is there.
func TestRunGraph_Small(t *testing.T) {
	var out bytes.Buffer
	if err := RunGraph(context.Background(), GraphOptions{Relations: 1500, Queries: 10, JSON: true, Out: &out}); err != nil {
		t.Fatal(err)
	}
	var rep GraphReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if rep.Relations != 1500 || rep.Records <= rep.Relations || rep.Nodes < 100 || rep.Visible <= 0 {
		t.Fatalf("report %+v: want more records than relations (ended ones), nodes and visible records", rep)
	}
	if rep.AsOfRecorded.P50 <= 0 || rep.AsOfValid.P50 <= 0 || rep.Changes.P50 <= 0 || rep.LearnMs.P50 <= 0 {
		t.Fatalf("missing timings: %+v", rep)
	}
	out.Reset()
	printGraph(&out, rep)
	if !strings.Contains(out.String(), "graph-as-of, valid axis") {
		t.Fatalf("table:\n%s", out.String())
	}
}
