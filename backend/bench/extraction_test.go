package bench

import (
	"context"
	"strings"
	"testing"
)

// TestBenchExtraction_ExtractsEveryWrite runs the extraction measure: every
// timed write must come back extracted (the measure checks it), and the
// table rows are filled. It asserts no timing.
func TestBenchExtraction_ExtractsEveryWrite(t *testing.T) {
	rows, err := benchExtraction(context.Background(), t.TempDir(), 40)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !strings.Contains(rows[0].result, "ms") || !strings.Contains(rows[1].result, " vs ") {
		t.Fatalf("rows = %+v", rows)
	}
}
