package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/api"
)

// TestCLI_ExportThatFailsPartWay: an export the server cannot finish (here
// a workspace entry it cannot read: a SOUL.md that links to itself) fails on the
// command line, to a file (none is left) and to standard output, whether
// it fails before anything was sent or after part of the export was.
func TestCLI_ExportThatFailsPartWay(t *testing.T) {
	for _, tc := range []struct {
		name     string
		memories int // of about 1 KiB each: past 64 KiB, lines go out before the failure
	}{{"before anything was sent", 1}, {"after part of it was sent", 120}} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
			in.Start("serve")
			c := in.Client()
			for i := range tc.memories {
				text := fmt.Sprintf("note %d: %s", i, strings.Repeat("green tea in the morning ", 40))
				if _, err := c.Add(context.Background(), api.AddRequest{Text: &text, UserID: "u1"}); err != nil {
					t.Fatal(err)
				}
			}
			dir := filepath.Join(in.Home, "data", "workspace", "agentx")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("SOUL.md", filepath.Join(dir, "SOUL.md")); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			target := filepath.Join(t.TempDir(), "memory.jsonl")
			if out, code := in.Run("export", "-o", target); code != 1 || strings.Contains(out, "exported to") {
				t.Errorf("export to a file: exit %d, output %q; want exit 1 and an error", code, out)
			}
			if st, err := os.Stat(target); err == nil {
				t.Errorf("the failed export left %s (%d bytes)", target, st.Size())
			}
			if out, code := in.Run("export"); code != 1 {
				t.Errorf("export to standard output: exit %d (%d bytes of output)", code, len(out))
			}
		})
	}
}
