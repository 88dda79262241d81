package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunSnapshot_Small snapshots and restores a small store (the run
// checks the memories come back and are indexed) and prints the table.
func TestRunSnapshot_Small(t *testing.T) {
	var out bytes.Buffer
	if err := RunSnapshot(context.Background(), SnapshotOptions{Memories: 300, Embed: "hash", JSON: true, Out: &out}); err != nil {
		t.Fatal(err)
	}
	var rep SnapshotReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if rep.Memories != 300 || rep.Snapshot <= 0 || rep.SnapshotBytes <= 0 || rep.Restore <= 0 {
		t.Fatalf("report %+v", rep)
	}
	out.Reset()
	printSnapshotBench(&out, rep)
	if !strings.Contains(out.String(), "writes paused during the restore") {
		t.Fatalf("table:\n%s", out.String())
	}
}
