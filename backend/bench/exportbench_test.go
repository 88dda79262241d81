package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunExport_Small exports and imports a small store both ways and
// checks the report (the run itself checks every memory arrived and is
// indexed).
func TestRunExport_Small(t *testing.T) {
	var out bytes.Buffer
	if err := RunExport(context.Background(), ExportOptions{Memories: 300, Embed: "hash", JSON: true, Out: &out}); err != nil {
		t.Fatal(err)
	}
	var rep ExportReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if rep.Memories != 300 || rep.ExportBytes <= 0 || rep.Export <= 0 || rep.Import <= 0 || rep.ImportPlain <= 0 || rep.Reembed <= 0 {
		t.Fatalf("report %+v", rep)
	}
	out.Reset()
	printExport(&out, rep)
	if !strings.Contains(out.String(), "import with vectors") {
		t.Fatalf("table:\n%s", out.String())
	}
}
