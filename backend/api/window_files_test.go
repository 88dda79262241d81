package api_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/api"
)

// pickFile answers the window's file dialogs with fixed paths, as the
// person at the window would, and counts how often each was asked.
type pickFile struct {
	save, open   string
	err          error
	saves, opens int
	names        []string
}

func (p *pickFile) dialogs() *api.FileDialogs {
	return &api.FileDialogs{
		Save: func(_, name string) (string, error) { p.saves++; p.names = append(p.names, name); return p.save, p.err },
		Open: func(string) (string, error) { p.opens++; return p.open, p.err },
	}
}

// inWindow sends a request as the window's own page does (in-process),
// with an optional JSON body.
func inWindow(t *testing.T, a *apiRig, method, path string, send ...string) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	var rd io.Reader
	if len(send) > 0 {
		rd = strings.NewReader(send[0])
	}
	a.api.InProcessHandler().ServeHTTP(rec, httptest.NewRequest(method, "http://wails.localhost"+path, rd))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s %s: %d %q", method, path, rec.Code, rec.Body)
	}
	return rec.Code, body
}

// The window exports to the file the person picks and imports the one
// they pick; cancelling does nothing; a place that cannot be written is
// refused saying so and leaves no file.
func TestWindowExportAndImport(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	for _, text := range []string{"Alice drinks green tea", "Bob moved to Lisbon"} {
		if r := a.do(req{method: "POST", path: "/api/v1/add", body: `{"text":"` + text + `","user_id":"u1","infer":false}`}); r.status != 200 {
			t.Fatalf("add: %d %s", r.status, r.body)
		}
	}
	dir := t.TempDir()
	pick := &pickFile{save: filepath.Join(dir, "mine.jsonl")}

	// No window: refused, no dialog.
	if code, body := inWindow(t, a, "POST", "/api/v1/window/export"); code != 409 || !strings.Contains(body["error"].(string), "without a window") {
		t.Fatalf("export with no window: %d %v", code, body)
	}
	a.api.SetFileDialogs(pick.dialogs())

	code, body := inWindow(t, a, "POST", "/api/v1/window/export")
	if code != 200 || body["path"] != pick.save || body["memories"] != 2.0 || body["cancelled"] != false {
		t.Fatalf("export: %d %v", code, body)
	}
	b, err := os.ReadFile(pick.save)
	if err != nil || !strings.Contains(string(b), "Bob moved to Lisbon") || !strings.Contains(string(b), `"type":"end"`) {
		t.Fatalf("the export file: %v\n%.300s", err, b)
	}
	if fi, _ := os.Stat(pick.save); fi.Mode().Perm() != 0o600 || body["bytes"] != float64(fi.Size()) {
		t.Errorf("export file mode %v (want 0600, it holds every memory), %v bytes reported of %d", fi.Mode().Perm(), body["bytes"], fi.Size())
	}
	if !strings.HasPrefix(pick.names[0], "hyatlas-export-") || !strings.HasSuffix(pick.names[0], ".jsonl") {
		t.Errorf("suggested name %q", pick.names[0])
	}

	pick.save = filepath.Join(dir, "mine.md")
	if code, body = inWindow(t, a, "POST", "/api/v1/window/export?format=markdown"); code != 200 {
		t.Fatalf("markdown export: %d %v", code, body)
	}
	if b, _ := os.ReadFile(pick.save); !strings.Contains(string(b), "Alice drinks green tea") || !strings.HasSuffix(pick.names[1], ".md") {
		t.Errorf("markdown export %q named %q", b, pick.names[1])
	}

	tests := []struct {
		name, path string
		set        func()
		code       int
		says       string
	}{
		{"an unknown format", "/api/v1/window/export?format=pdf", func() {}, 422, "format must be"},
		{"a cancelled save", "/api/v1/window/export", func() { pick.save = "" }, 200, ""},
		{"a folder that does not exist", "/api/v1/window/export", func() { pick.save = filepath.Join(dir, "gone", "x.jsonl") }, 422, "could not write the export to"},
		{"a failing dialog", "/api/v1/window/export", func() { pick.save, pick.err = "", errors.New("no display") }, 500, ""},
		{"a cancelled open", "/api/v1/window/import/choose", func() { pick.open, pick.err = "", nil }, 200, ""},
		{"a file that is not there", "/api/v1/window/import/choose", func() { pick.open = filepath.Join(dir, "nope.jsonl") }, 422, "could not read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.set()
			code, body := inWindow(t, a, "POST", tc.path)
			if code != tc.code {
				t.Fatalf("%d %v, want %d", code, body, tc.code)
			}
			if tc.code == 200 && body["cancelled"] != true {
				t.Errorf("not cancelled: %v", body)
			}
			if tc.says != "" && !strings.Contains(body["error"].(string), tc.says) {
				t.Errorf("error %q, want it to say %q", body["error"], tc.says)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left in the folder: %v (want mine.jsonl and mine.md)", entries)
	}

	// A file that is not an export: refused by line, nothing written.
	if code, body = inWindow(t, a, "POST", "/api/v1/window/import", `{"path":"`+filepath.Join(dir, "mine.md")+`"}`); code != 422 ||
		!strings.Contains(body["error"].(string), "line 1") {
		t.Errorf("importing the Markdown export: %d %v", code, body)
	}
	for _, bad := range []string{`{}`, `{"path":"relative.jsonl"}`, `{"path":5}`} {
		if code, body = inWindow(t, a, "POST", "/api/v1/window/import", bad); code != 400 {
			t.Errorf("import %s: %d %v, want 400", bad, code, body)
		}
	}

	// Into another HyAtlas: the person picks the file (nothing read yet),
	// then the page imports it.
	other := newAPI(t, rigOpts{auth: true})
	empty := other.counts()
	other.api.SetFileDialogs((&pickFile{open: filepath.Join(dir, "mine.jsonl")}).dialogs())
	code, body = inWindow(t, other, "POST", "/api/v1/window/import/choose")
	if code != 200 || body["path"] != filepath.Join(dir, "mine.jsonl") || body["name"] != "mine.jsonl" || body["bytes"].(float64) <= 0 {
		t.Fatalf("choose: %d %v", code, body)
	}
	if other.counts() != empty {
		t.Fatal("choosing a file imported something")
	}
	code, body = inWindow(t, other, "POST", "/api/v1/window/import", `{"path":"`+filepath.Join(dir, "mine.jsonl")+`"}`)
	if code != 200 || body["imported"] != 2.0 || body["path"] != filepath.Join(dir, "mine.jsonl") {
		t.Fatalf("import: %d %v", code, body)
	}
	if r := other.do(req{method: "POST", path: "/api/v1/search", body: `{"query":"Lisbon","user_id":"u1","min_score":0}`}); !strings.Contains(string(r.body), "Bob moved to Lisbon") {
		t.Errorf("the imported memory is not found: %s", r.body)
	}

	// Not from the network: an agent with the token cannot open a dialog
	// on the person's screen.
	before := pick.saves
	if r := a.do(req{method: "POST", path: "/api/v1/window/export"}); r.status != 409 || pick.saves != before {
		t.Errorf("over the network: %d %s, %d dialogs", r.status, r.body, pick.saves-before)
	}
	// Nor can it have a file of its choice read in.
	if r := a.do(req{method: "POST", path: "/api/v1/window/import", body: `{"path":"` + filepath.Join(dir, "mine.jsonl") + `"}`}); r.status != 409 {
		t.Errorf("a window import over the network: %d %s", r.status, r.body)
	}
}
