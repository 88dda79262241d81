package extract

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./backend/extract -run Golden -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from what is sent now; if intended, run with -update.\n--- got ---\n%s", name, got)
	}
}

func promptFile(c call) string {
	return "SYSTEM (" + c.purpose + "):\n" + c.system + "\n\nUSER:\n" + c.user + "\n"
}

func TestGoldenPrompts(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		run  func(*Extractor) error
	}{
		{"extract_context.txt", func(e *Extractor) error { _, err := e.Extract(ctx, contextRequest); return err }},
		{"extract_empty.txt", func(e *Extractor) error { _, err := e.Extract(ctx, emptyRequest); return err }},
		{"episode.txt", func(e *Extractor) error { _, err := e.Summarize(ctx, episodeRequest); return err }},
		{"now.txt", func(e *Extractor) error { _, err := e.Summarize(ctx, nowRequest); return err }},
		{"reconcile.txt", func(e *Extractor) error { _, err := e.Reconcile(ctx, reconcilePairs); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			if err := tc.run(New(f)); err != nil {
				t.Fatal(err)
			}
			c := f.only(t)
			t.Logf("%s: system %d bytes, user %d bytes", tc.name, len(c.system), len(c.user))
			golden(t, tc.name, promptFile(c))
		})
	}
}

func TestGoldenSchemas(t *testing.T) {
	for name, s := range map[string]map[string]any{
		"schema_extract.json":   ExtractSchema(),
		"schema_reconcile.json": ReconcileSchema(),
	} {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name, string(b)+"\n")
	}
}

// The extraction prompt is sent on every write: keep its fixed part small.
func TestExtractPromptSize(t *testing.T) {
	size := 0
	for _, name := range []string{"extract_system.tmpl", "extract_user.tmpl"} {
		b, err := promptFS.ReadFile("prompts/" + name)
		if err != nil {
			t.Fatal(err)
		}
		size += len(b)
	}
	t.Logf("extract templates: %d bytes", size)
	if size > 3072 {
		t.Errorf("extract templates are %d bytes, budget 3072", size)
	}
}

// Every strict-mode object lists all its properties as required.
func TestSchemasStrict(t *testing.T) {
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		if props, ok := s["properties"].(map[string]any); ok {
			req, _ := s["required"].([]string)
			if len(req) != len(props) || s["additionalProperties"] != false {
				t.Errorf("%s: required %v of %d properties, additionalProperties %v", path, req, len(props), s["additionalProperties"])
			}
			for k, v := range props {
				walk(path+"."+k, v.(map[string]any))
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(path+"[]", items)
		}
	}
	walk("extract", ExtractSchema())
	walk("reconcile", ReconcileSchema())
}
