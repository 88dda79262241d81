package memory_test

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
	"hyatlas/backend/workspace"
)

// exportRig is a rig with a workspace and a count of re-embed requests.
func exportRig(t *testing.T) (*rig, *int) {
	t.Helper()
	kicks := new(int)
	r := newRig(t, memory.Config{}, func(d *memory.Deps) {
		d.Workspace = workspace.New(t.TempDir())
		d.KickReembed = func() { *kicks++ }
	})
	return r, kicks
}

// fill writes a bit of everything: raw turns, facts with dates and
// metadata, an intention, a retired fact with its history, a workspace file.
func fill(t *testing.T, r *rig) {
	t.Helper()
	ctx := context.Background()
	raw := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "We moved the launch to Friday", Owner: memory.Owner{UserID: "u1", AgentID: "hermes"}, SessionID: "s1"})
	r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "The Atlas launch is on Friday", Owner: memory.Owner{UserID: "u1"},
		Category: "fact", SourceIDs: []string{raw.ID}, Metadata: map[string]string{"label": "project_state"}, EventAt: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)})
	r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "Ship the Atlas", Owner: memory.Owner{UserID: "u1"}, DueAt: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)})
	old := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "The Atlas launch is on Tuesday", Owner: memory.Owner{UserID: "u1"}, Strength: 0.8})
	if _, err := r.svc.Retire(ctx, old.ID, memory.RetireInput{How: "replaced", Reason: "moved"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.WriteWorkspace(ctx, "hermes", "SOUL.md", "You are Hermes.\n", ""); err != nil {
		t.Fatal(err)
	}
}

// snapshot reads every row with its history, and a search's ids.
func snapshot(t *testing.T, r *rig) (map[string]memory.Memory, map[string][]memory.HistoryEntry, []string) {
	t.Helper()
	ctx := context.Background()
	rows, _, err := r.store.List(ctx, memory.ListFilter{IncludeRetired: true, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	byID, hist := map[string]memory.Memory{}, map[string][]memory.HistoryEntry{}
	for _, m := range rows {
		byID[m.ID] = m
		if hist[m.ID], err = r.store.History(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	res, err := r.svc.Search(ctx, memory.SearchInput{Query: "when is the Atlas launch", UserIDs: []string{"u1"}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.Memory.ID)
	}
	return byID, hist, ids
}

func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	src, _ := exportRig(t)
	fill(t, src)
	var buf bytes.Buffer
	rep, err := src.svc.Export(ctx, &buf, memory.ExportInput{Vectors: true})
	if err != nil || rep.Memories != 4 || rep.Files != 1 {
		t.Fatalf("export: %+v, %v", rep, err)
	}
	dst, kicks := exportRig(t)
	in, err := dst.svc.Import(ctx, bytes.NewReader(buf.Bytes()))
	if err != nil || in.Imported != 4 || in.Skipped != 0 || in.Reembed != 0 || in.Files != 1 || *kicks != 0 {
		t.Fatalf("import: %+v, %v (kicks %d)", in, err, *kicks)
	}
	wantRows, wantHist, wantHits := snapshot(t, src)
	gotRows, gotHist, gotHits := snapshot(t, dst)
	if !reflect.DeepEqual(gotRows, wantRows) {
		t.Errorf("rows differ after the round trip:\n%+v\n%+v", gotRows, wantRows)
	}
	if !reflect.DeepEqual(gotHist, wantHist) {
		t.Errorf("history differs:\n%+v\n%+v", gotHist, wantHist)
	}
	if len(wantHits) == 0 || !reflect.DeepEqual(gotHits, wantHits) {
		t.Errorf("search differs: %v, want %v", gotHits, wantHits)
	}
	if d, _ := dst.svc.ReadWorkspace(ctx, "hermes", "SOUL.md"); d.Content != "You are Hermes.\n" {
		t.Errorf("workspace: %q", d.Content)
	}

	// Again: nothing new, nothing duplicated.
	again, err := dst.svc.Import(ctx, bytes.NewReader(buf.Bytes()))
	if err != nil || again.Imported != 0 || again.Skipped != 4 || again.Files != 0 || len(again.FilesSkipped) != 0 {
		t.Fatalf("second import: %+v, %v", again, err)
	}
	if rows, _, _ := snapshot(t, dst); len(rows) != 4 {
		t.Fatalf("%d rows after importing twice", len(rows))
	}

	// Without vectors: the rows wait for re-embedding.
	buf.Reset()
	if _, err := src.svc.Export(ctx, &buf, memory.ExportInput{}); err != nil {
		t.Fatal(err)
	}
	plain, kicks := exportRig(t)
	if in, err := plain.svc.Import(ctx, &buf); err != nil || in.Imported != 4 || in.Reembed != 4 || *kicks != 1 {
		t.Fatalf("import without vectors: %+v, %v, kicks %d", in, err, *kicks)
	}
}

func TestImportRefusesBadLinesAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	src, _ := exportRig(t)
	fill(t, src)
	var buf bytes.Buffer
	if _, err := src.svc.Export(ctx, &buf, memory.ExportInput{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	cases := []struct {
		name, text, want string
	}{
		{"not an export", `{"type":"memory"}`, "line 1: not a HyAtlas export"},
		{"a Markdown export", "# HyAtlas memory\n\n## Fact (l3_fact, 1)\n- a fact\n- another", "not a HyAtlas export: line 1 is not a JSON record"},
		{"bad lines", strings.Join([]string{lines[0], lines[1],
			strings.Replace(lines[2], `"layer":"l3_fact"`, `"layer":"l9"`, 1), "{not json", lines[3],
			`{"type":"memory","memory":{"id":"x","layer":"l3_fact","content":"x","owner":{"user_id":"u"},"strength":2,"created_at":"2026-01-01T00:00:00Z"}}`,
			`{"type":"photo"}`, lines[1]}, "\n"),
			"line 3: memory"},
		{"empty", "", "empty"},
		{"a path for an id", strings.Join([]string{lines[0], strings.Replace(lines[1], `"id":"`, `"id":"../../`, 1)}, "\n"), "line 2: a memory needs an id"},
		{"a long category", strings.Join([]string{lines[0], strings.Replace(lines[1], `"layer":"l2_raw"`, `"layer":"l2_raw","category":"`+strings.Repeat("c", 100)+`"`, 1)}, "\n"), "category must be at most 64 bytes"},
		{"a long source", strings.Join([]string{lines[0], strings.Replace(lines[1], `"layer":"l2_raw"`, `"layer":"l2_raw","source":"`+strings.Repeat("s", 5000)+`"`, 1)}, "\n"), "source must be at most"},
		{"cut short", strings.Join(lines[:len(lines)-1], "\n"), "cut short"},
		{"after the end", strings.Join(append(append([]string{}, lines...), lines[1]), "\n"), "after the end record"},
		{"a second end", strings.Join(append(append([]string{}, lines...), lines[len(lines)-1]), "\n"), fmt.Sprintf("line %d: a second end record", len(lines)+1)},
		{"a later version", strings.Replace(lines[0], `"version":3`, `"version":4`, 1), "reads versions 1 to 3"},
		{"a relation to an entity not exported", graphExport(lines[0], 1, 1, node("e1", "Alice"), relation("r1", "e1", "e2", "")),
			"line 3: relation r1 relates an entity the export does not have"},
		{"an unknown entity type", graphExport(lines[0], 1, 0, strings.Replace(node("e1", "Alice"), `"type":"person"`, `"type":"alien"`, 1)),
			"unknown entity type"},
		{"a relation held twice", graphExport(lines[0], 2, 2, node("e1", "Alice"), node("e2", "Acme"),
			relation("r1", "e1", "e2", ""), relation("r1", "e1", "e2", "")), "line 5: relation r1 is held by two records"},
		{"an entity twice", graphExport(lines[0], 2, 0, node("e1", "Alice"), node("e1", "Alice")), "line 3: entity e1 is in the export twice"},
		{"an expiry without its kind", graphExport(lines[0], 2, 1, node("e1", "Alice"), node("e2", "Acme"),
			relation("r1", "e1", "e2", `,"expired_at":"2026-02-01T00:00:00Z"`)), "expired_at and expired_how must come together"},
		{"a path for a relation id", graphExport(lines[0], 2, 1, node("e1", "Alice"), node("e2", "Acme"),
			strings.Replace(relation("r1", "e1", "e2", ""), `"id":"r1"`, `"id":"../r1"`, 1)), "is not a relation id"},
		{"graph counts that do not match", graphExport(lines[0], 5, 0, node("e1", "Alice")), "the end record does not match"},
		// Times past the year 9999 in UTC imported, and every export after failed.
		{"a relation valid from past the year 9999", graphExport(lines[0], 2, 1, node("e1", "Alice"), node("e2", "Acme"),
			relation("r1", "e1", "e2", `,"valid_from":"9999-12-31T23:00:00-05:00"`)), "its times must fall within the years 1 to 9999"},
		{"a relation expired past the year 9999", graphExport(lines[0], 2, 1, node("e1", "Alice"), node("e2", "Acme"),
			relation("r1", "e1", "e2", `,"expired_at":"9999-12-31T23:00:00-05:00","expired_how":"ended"`)), "its times must fall within the years 1 to 9999"},
		{"an entity made past the year 9999", graphExport(lines[0], 1, 0,
			strings.Replace(node("e1", "Alice"), "2026-01-01T00:00:00Z", "9999-12-31T23:00:00-05:00", 1)), "created_at must fall within the years 1 to 9999"},
		{"a link made past the year 9999", strings.Replace(graphExport(lines[0], 0, 0,
			`{"type":"link","link":{"a":"m1","b":"m2","kind":"supports","at":"9999-12-31T23:00:00-05:00"}}`), `"links":0`, `"links":1`, 1),
			"a link's at must fall within the years 1 to 9999"},
		// Owners no filter could reach (each trims what it is given).
		{"an entity owned by a spaced user", graphExport(lines[0], 1, 0, strings.Replace(node("e1", "Alice"), `"user_id":"alice"`, `"user_id":" alice"`, 1)),
			"ids do not begin or end with spaces"},
		{"a relation of a spaced agent", graphExport(lines[0], 2, 1, node("e1", "Alice"), node("e2", "Acme"),
			strings.Replace(relation("r1", "e1", "e2", ""), `"user_id":"alice"`, `"user_id":"alice","agent_id":"bot "`, 1)), "ids do not begin or end with spaces"},
	}
	dst, _ := exportRig(t)
	for _, c := range cases {
		_, err := dst.svc.Import(ctx, strings.NewReader(c.text))
		if err == nil || !strings.Contains(memory.ErrorMessage(err), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if c.name == "a Markdown export" && strings.Contains(memory.ErrorMessage(err), "line 2") {
			t.Errorf("a file that is no export gets one error, not one per line: %v", err)
		}
		if c.name == "bad lines" {
			msg := memory.ErrorMessage(err)
			for _, n := range []string{"line 3:", "line 4:", "line 6:", "line 7:", "line 8:"} {
				if !strings.Contains(msg, n) {
					t.Errorf("the error does not name %s: %s", n, msg)
				}
			}
		}
	}
	if rows, _, _ := snapshot(t, dst); len(rows) != 0 {
		t.Fatalf("a refused import wrote %d rows", len(rows))
	}
}

// graphExport is an export of graph records only (nodes entities,
// relations records said in its end record).
func graphExport(header string, nodes, relations int, records ...string) string {
	end := fmt.Sprintf(`{"type":"end","memories":0,"files":0,"nodes":%d,"relations":%d,"links":0}`, nodes, relations)
	return strings.Join(append(append([]string{header}, records...), end), "\n")
}

func node(id, name string) string {
	return `{"type":"graph_node","user_id":"alice","node":{"id":"` + id + `","label":"` + name +
		`","type":"person","created_at":"2026-01-01T00:00:00Z","strength":0,"degree":0}}`
}

func relation(id, from, to, extra string) string {
	return `{"type":"graph_relation","user_id":"alice","relation":{"id":"` + id + `","from":"` + from + `","to":"` + to +
		`","relation":"works at","exclusive":true,"valid_from":"0001-01-01T00:00:00Z","valid_to":"0001-01-01T00:00:00Z",` +
		`"learned_at":"2026-01-01T00:00:00Z","recorded_at":"2026-01-01T00:00:00Z","facts":[],"turns":[]` + extra + `}}`
}

func TestExportMarkdown(t *testing.T) {
	r, _ := exportRig(t)
	fill(t, r)
	var buf bytes.Buffer
	if _, err := r.svc.ExportMarkdown(context.Background(), &buf, memory.ExportInput{}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"# HyAtlas memory", "## Fact (l3_fact, 1)", "- 2026-12-04 · (fact, 0.50) The Atlas launch is on Friday",
		"## Retired (1)", "(replaced: moved)", "## hermes/SOUL.md", "You are Hermes."} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// A first line longer than a line may be is said to be that, not an empty
// import.
func TestImportOfOneLineTooLongSaysSo(t *testing.T) {
	dst, _ := exportRig(t)
	line := strings.Repeat("a", 65<<20)
	_, err := dst.svc.Import(context.Background(), strings.NewReader(line))
	if err == nil || !strings.Contains(memory.ErrorMessage(err), "line 1: longer than 64 MiB") {
		t.Errorf("a 65 MiB line: %v", err)
	}
}
