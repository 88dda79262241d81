package api_test

// Bad input to POST /api/v1/import gets a clear error naming the line and
// changes nothing.

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// importHeader is a version 2 export header.
const importHeader = `{"type":"header","format":"hyatlas-export","version":2}`

// importedMemory is a memory record with the given extra memory fields and
// extra record fields (both JSON object members without braces, or "").
func importedMemory(id, memExtra, recExtra string) string {
	m := `{"id":"` + id + `","layer":"l3_fact","content":"imported ` + id + ` text","owner":{"user_id":"u1","agent_id":""},` +
		`"strength":0.5,"created_at":"2026-01-01T00:00:00Z"`
	if memExtra != "" {
		m += "," + memExtra
	}
	m += "}"
	rec := `{"type":"memory","memory":` + m
	if recExtra != "" {
		rec += "," + recExtra
	}
	return rec + "}"
}

func importEnd(memories, files int) string {
	b, _ := json.Marshal(map[string]int{"memories": memories, "files": files, "nodes": 0, "relations": 0, "links": 0})
	return `{"type":"end",` + string(b[1:])
}

// importVector packs dims float32s as an export vector naming embedder;
// parts, if given, are its sentence vectors, each dims values of one number.
func importVector(embedder string, dims int, parts ...float32) string {
	b := make([]byte, 4*dims*(1+len(parts)))
	for i := range dims {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(i+1)/10))
	}
	for p, x := range parts {
		for i := range dims {
			binary.LittleEndian.PutUint32(b[4*(dims*(1+p)+i):], math.Float32bits(x))
		}
	}
	v, _ := json.Marshal(map[string]any{"embedder": embedder, "dims": dims, "parts": len(parts), "data": base64.StdEncoding.EncodeToString(b)})
	return `"vector":` + string(v)
}

func (a *apiRig) importBody(body string) resp {
	a.t.Helper()
	return a.do(req{method: "POST", path: "/api/v1/import", body: body,
		headers: map[string]string{"Content-Type": "application/x-ndjson"}})
}

// TestImport_AVectorOfTheWrongSize: a vector that names the running
// embedder but has another number of dimensions is refused; it used to be
// stored, and the index update failed until a restart.
func TestImport_AVectorOfTheWrongSize(t *testing.T) {
	a := newAPI(t, rigOpts{})
	a.post("/api/v1/memories", map[string]any{"content": "a fact that was here before"}, 201)
	if r := a.do(req{path: "/readyz"}); r.status != 200 {
		t.Fatalf("not ready before the import: %d %s", r.status, r.body)
	}
	before := a.counts()
	id := a.mem.EmbedderInfo().ID
	dims := a.mem.EmbedderInfo().Dims
	body := strings.Join([]string{importHeader, importedMemory("mwrongdims", "", importVector(id, dims/2)), importEnd(1, 0)}, "\n") + "\n"
	r := a.importBody(body)
	if r.status != 422 || !strings.Contains(string(r.body), "line 2") {
		t.Errorf("import of a %d-dim vector for the %d-dim embedder %s: %d %s; want 422 naming line 2", dims/2, dims, id, r.status, r.body)
	}
	if after := a.counts(); after != before {
		t.Errorf("a refused import changed the store:\nbefore %s\nafter  %s", before, after)
	}
	st := a.do(req{path: "/api/v1/status"}).json(t)
	if st["vdb"] != "ok" {
		t.Errorf("after the import status vdb = %v", st["vdb"])
	}
}

// A sentence vector of NaN, infinity or zeros is refused like such a
// vector: imported, it failed the index update and stopped the next start.
func TestImport_AnUnusableSentenceVector(t *testing.T) {
	for _, x := range []float32{float32(math.NaN()), float32(math.Inf(1)), 0} {
		a := newAPI(t, rigOpts{})
		before := a.counts()
		info := a.mem.EmbedderInfo()
		body := strings.Join([]string{importHeader, importedMemory("mbadpart", "", importVector(info.ID, info.Dims, 0.5, x)), importEnd(1, 0)}, "\n") + "\n"
		if r := a.importBody(body); r.status != 422 || !strings.Contains(string(r.body), "line 2") || !strings.Contains(string(r.body), "sentence vector 2") {
			t.Errorf("a sentence vector of %v: %d %s; want 422 naming line 2 and the part", x, r.status, r.body)
		}
		if after := a.counts(); after != before {
			t.Errorf("a refused import changed the store")
		}
	}
	// Usable parts import.
	a := newAPI(t, rigOpts{})
	info := a.mem.EmbedderInfo()
	body := strings.Join([]string{importHeader, importedMemory("mgoodpart", "", importVector(info.ID, info.Dims, 0.5, -0.25)), importEnd(1, 0)}, "\n") + "\n"
	if r := a.importBody(body); r.status != 200 {
		t.Errorf("usable sentence vectors: %d %s", r.status, r.body)
	}
}

// TestImport_NoHeaderAfterABlankLine: a blank first line does not skip the
// header check.
func TestImport_NoHeaderAfterABlankLine(t *testing.T) {
	a := newAPI(t, rigOpts{})
	before := a.counts()
	body := "\n" + strings.Join([]string{importedMemory("mnoheader", "", ""), importEnd(1, 0)}, "\n") + "\n"
	r := a.importBody(body)
	if r.status != 422 || !strings.Contains(string(r.body), "not a HyAtlas export") {
		t.Errorf("import with no header: %d %s; want 422 not a HyAtlas export", r.status, r.body)
	}
	if after := a.counts(); after != before {
		t.Errorf("an import without a header wrote rows:\nbefore %s\nafter  %s", before, after)
	}
}

// TestImport_AnExportAfterBlankLines: blank lines before the header are
// skipped, as everywhere else.
func TestImport_AnExportAfterBlankLines(t *testing.T) {
	a := newAPI(t, rigOpts{})
	body := "\n\n" + strings.Join([]string{importHeader, importedMemory("mblank", "", ""), importEnd(1, 0)}, "\n") + "\n"
	if r := a.importBody(body); r.status != 200 || !strings.Contains(string(r.body), `"imported":1`) {
		t.Errorf("a valid export after blank lines: %d %s", r.status, r.body)
	}
}

// TestImport_AWorkspaceFileTwice: two records of one agent's file are
// refused like a memory id twice.
func TestImport_AWorkspaceFileTwice(t *testing.T) {
	a := newAPI(t, rigOpts{})
	ws := func(content string) string {
		b, _ := json.Marshal(map[string]string{"type": "workspace", "agent": "hermes", "file": "SOUL.md", "content": content})
		return string(b)
	}
	body := strings.Join([]string{importHeader, ws("You are Hermes.\n"), ws("You are someone else.\n"), importEnd(0, 2)}, "\n") + "\n"
	r := a.importBody(body)
	if r.status != 422 || !strings.Contains(string(r.body), "line 3") {
		t.Errorf("two records for hermes/SOUL.md: %d %s; want 422 naming line 3", r.status, r.body)
	}
	if g := a.do(req{path: "/api/v1/workspace/hermes/SOUL.md"}); strings.Contains(string(g.body), `"exists":true`) {
		t.Errorf("the refused import wrote hermes/SOUL.md: %s", g.body)
	}
}

// TestImport_FieldsEveryWriteChecks: fields the other write paths check
// are checked in an import too.
func TestImport_FieldsEveryWriteChecks(t *testing.T) {
	cases := []struct{ name, memExtra, recExtra string }{
		{"session_id with a control character", `"session_id":"s\u0001"`, ""},
		{"session_id over 256 bytes", `"session_id":"` + strings.Repeat("s", 300) + `"`, ""},
		{"user_id with surrounding spaces (unreachable by any owner filter)", `"owner":{"user_id":" alice ","agent_id":""}`, ""},
		{"negative use_count", `"use_count":-5`, ""},
		// Counted once more, it outgrew SQLite's integers: every read of the store failed.
		{"use_count past the largest count", `"use_count":9223372036854775807`, ""},
		{"extract_tries past the largest count", `"extract_tries":2000000000`, ""},
		// Every id route trims the id: the row could not be reached.
		{"an id with a trailing space", `"id":"munchecked "`, ""},
		{"an id with a leading no-break space", `"id":" munchecked"`, ""},
		{"retire_reason over 1000 bytes", `"retired_at":"2026-01-02T00:00:00Z","retired_how":"dropped","retire_reason":"` + strings.Repeat("r", 5000) + `"`, ""},
		{"history entry with an unknown action", "", `"history":[{"memory_id":"x","at":"2026-01-01T00:00:00Z","action":"exploded"}]`},
		{"an event date past the year 9999 in UTC", `"event_at":"9999-12-31T23:00:00-05:00"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAPI(t, rigOpts{})
			before := a.counts()
			mem := importedMemory("munchecked", c.memExtra, c.recExtra)
			if strings.Contains(c.memExtra, `"owner"`) { // replace, not duplicate, the owner
				mem = strings.Replace(importedMemory("munchecked", "", c.recExtra), `"owner":{"user_id":"u1","agent_id":""}`, c.memExtra, 1)
			}
			r := a.importBody(strings.Join([]string{importHeader, mem, importEnd(1, 0)}, "\n") + "\n")
			if r.status != 422 || !strings.Contains(string(r.body), "line 2") {
				t.Errorf("%d %s; want 422 naming line 2", r.status, r.body)
			}
			if after := a.counts(); after != before {
				t.Errorf("the import wrote the row")
			}
		})
	}
}

// A line whose values are of the wrong kind, or that is not JSON, is
// refused in words a person reads (which field holds what), never the
// decoder's Go names, with its line number; nothing is written.
func TestImport_BadLinesSayWhatIsWrongInWords(t *testing.T) {
	tests := []struct{ name, line, says string }{
		{"a text that is a number", `{"type":"memory","memory":{"id":"mbad1","layer":"l3_fact","content":5}}`, "line 2: memory.content is a number, where text belongs"},
		{"a strength that is text", `{"type":"memory","memory":{"id":"mbad2","layer":"l3_fact","content":"x","strength":"high"}}`, "line 2: memory.strength is text, where a number belongs"},
		{"not JSON", `{"type":"memory",`, "line 2: not JSON"},
		// The decoder would store U+FFFD in the bad bytes' place.
		{"bytes that are not UTF-8", "{\"type\":\"memory\",\"memory\":{\"id\":\"mbad3\",\"layer\":\"l3_fact\",\"content\":\"bad \xff\xfe\"}}", "line 2: not valid UTF-8"},
		{"a field no export has", `{"type":"memory","mood":"happy"}`, `line 2: a field an export does not have: \"mood\"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := newAPI(t, rigOpts{})
			before := a.counts()
			r := a.importBody(strings.Join([]string{importHeader, tc.line, importEnd(1, 0)}, "\n") + "\n")
			body := string(r.body)
			if r.status != 422 || !strings.Contains(body, tc.says) || strings.Contains(body, "Go struct") || strings.Contains(body, "unmarshal") {
				t.Errorf("%d %s; want 422 saying %q", r.status, body, tc.says)
			}
			if after := a.counts(); after != before {
				t.Errorf("the import wrote something")
			}
		})
	}
}

// A memory at the largest use count imports, and a use counted then
// leaves it there: before, the count outgrew SQLite's integers and every
// read of the store (list, export, the row itself) failed.
func TestImport_AUseCountAtItsLargestStaysReadable(t *testing.T) {
	a := newAPI(t, rigOpts{})
	mem := importedMemory("mmax", fmt.Sprintf(`"use_count":%d`, memory.MaxUseCount), "")
	if r := a.importBody(strings.Join([]string{importHeader, mem, importEnd(1, 0)}, "\n") + "\n"); r.status != 200 {
		t.Fatalf("import: %d %s", r.status, r.body)
	}
	if r := a.do(req{method: "POST", path: "/api/v1/feedback", body: `{"used":["mmax"]}`}); r.status != 200 {
		t.Fatalf("feedback: %d %s", r.status, r.body)
	}
	r := a.do(req{path: "/api/v1/memories/mmax"})
	if r.status != 200 {
		t.Fatalf("the row after a use: %d %s", r.status, r.body)
	}
	if got := r.json(t)["use_count"]; got != float64(memory.MaxUseCount) {
		t.Errorf("use_count %v, want %d", got, memory.MaxUseCount)
	}
	for _, path := range []string{"/api/v1/list", "/api/v1/export"} {
		if r := a.do(req{path: path}); r.status != 200 {
			t.Errorf("%s: %d %s", path, r.status, r.body)
		}
	}
}

// A row imported without a vector, retired and restored before the
// re-embedding reached it, waits for its vector like any other: the
// restore used to count as a failed index update and mark the index
// degraded until a restart.
func TestImport_ARowWithoutAVectorRestored(t *testing.T) {
	a := newAPI(t, rigOpts{})
	if r := a.importBody(strings.Join([]string{importHeader, importedMemory("mnovec", "", ""), importEnd(1, 0)}, "\n") + "\n"); r.status != 200 {
		t.Fatalf("import: %d %s", r.status, r.body)
	}
	for _, step := range []string{"retire", "restore"} {
		if r := a.do(req{method: "POST", path: "/api/v1/memories/mnovec/" + step}); r.status != 200 {
			t.Fatalf("%s: %d %s", step, r.status, r.body)
		}
	}
	if st := a.do(req{path: "/api/v1/status"}).json(t); st["vdb"] != "ok" {
		t.Errorf("status vdb = %v after restoring a row that waits for its vector", st["vdb"])
	}
}

// TestImport_AWriteOutOfTriesIsFailedNotWaiting: an imported turn marked
// pending with the tries of a failed one (3 or more) is imported as failed:
// left pending it counted as waiting in status while no run picked it up.
func TestImport_AWriteOutOfTriesIsFailedNotWaiting(t *testing.T) {
	a := newAPI(t, rigOpts{})
	mem := strings.Replace(importedMemory("mtired", `"extraction":"pending","extract_tries":3`, ""), `"layer":"l3_fact"`, `"layer":"l2_raw"`, 1)
	if r := a.importBody(strings.Join([]string{importHeader, mem, importEnd(1, 0)}, "\n") + "\n"); r.status != 200 {
		t.Fatalf("import: %d %s", r.status, r.body)
	}
	if st := a.do(req{path: "/api/v1/status"}).json(t); st["unextracted"] != float64(0) {
		t.Errorf("unextracted = %v, want 0: the row is out of tries", st["unextracted"])
	}
	if m := a.do(req{path: "/api/v1/memories/mtired"}).json(t); m["extraction"] != "failed" {
		t.Errorf("extraction = %v, want failed", m["extraction"])
	}
}
