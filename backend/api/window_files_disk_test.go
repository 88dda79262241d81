//go:build linux

package api_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/proctest"
)

// A window export to a place with no room (a small USB stick, a real
// tmpfs here: root only) says so, 422 "could not write the export to
// ...: no space left on device", and leaves no file there.
func TestWindowExportToAFullDiskSaysWhy(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	for i := range 40 {
		body := fmt.Sprintf(`{"text":"memory %d %s","user_id":"u1","infer":false}`, i, strings.Repeat("green tea in the morning ", 20))
		if r := a.do(req{method: "POST", path: "/api/v1/add", body: body}); r.status != 200 {
			t.Fatalf("add: %d %s", r.status, r.body)
		}
	}
	stick := t.TempDir()
	proctest.Tmpfs(t, stick, "8k")
	pick := &pickFile{save: filepath.Join(stick, "mine.jsonl")}
	a.api.SetFileDialogs(pick.dialogs())

	code, body := inWindow(t, a, "POST", "/api/v1/window/export")
	msg, _ := body["error"].(string)
	if code != 422 || !strings.Contains(msg, "could not write the export to") || !strings.Contains(msg, "no space left") {
		t.Errorf("an export to a full disk answered %d %v; want 422 saying it could not write the export there: no space left on device", code, body)
	}
	if entries, _ := os.ReadDir(stick); len(entries) != 0 {
		t.Errorf("files left on the full disk: %v", entries)
	}
}
