package memory_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/memory"
	"hyatlas/backend/workspace"
)

// TestExportCarriesWorkspaceFilesImportReads: a workspace file edited on
// disk (larger than HyAtlas writes, or not UTF-8) either comes back from
// export and import exactly as it was, or the export is refused up front,
// naming it, with nothing written: never a file changed on the way or an
// export its own import refuses.
func TestExportCarriesWorkspaceFilesImportReads(t *testing.T) {
	big := strings.Repeat("a line of notes\n", (memory.MaxWorkspaceBytes>>4)+100) // over 256 KiB
	cases := []struct {
		name, agent, file string
		content           []byte
		in                memory.ExportInput
		refused           string // "" exports and imports as it is
	}{
		{"a file over 256 KiB", "hermes", "MEMORY.md", []byte(big), memory.ExportInput{}, ""},
		{"a file over 256 KiB, that agent's export", "hermes", "MEMORY.md", []byte(big), memory.ExportInput{AgentID: "hermes"}, ""},
		{"Latin-1 text", "hermes", "USER.md", []byte("caf\xe9 au lait\n"), memory.ExportInput{}, "hermes/USER.md is not UTF-8 text"},
		{"Latin-1 text, that agent's export", "hermes", "USER.md", []byte("caf\xe9\n"), memory.ExportInput{AgentID: "hermes"}, "hermes/USER.md is not UTF-8 text"},
		{"Latin-1 text of another agent", "claude", "USER.md", []byte("caf\xe9\n"), memory.ExportInput{AgentID: "hermes"}, ""},
		{"too long for a line of an export", "hermes", "SOUL.md", bytes.Repeat([]byte{1}, 11<<20), memory.ExportInput{}, "hermes/SOUL.md is too large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			src := newRig(t, memory.Config{}, func(d *memory.Deps) { d.Workspace = workspace.New(root) })
			src.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Hermes keeps notes", Owner: memory.Owner{UserID: "u1", AgentID: "hermes"}})
			if err := os.MkdirAll(filepath.Join(root, c.agent), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, c.agent, c.file), c.content, 0o600); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			_, err := src.svc.Export(ctx, &buf, c.in)
			if c.refused != "" {
				if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(memory.ErrorMessage(err), c.refused) {
					t.Fatalf("export: %v, want refused with %q", err, c.refused)
				}
				if buf.Len() != 0 {
					t.Fatalf("a refused export wrote %d bytes", buf.Len())
				}
				return
			}
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			dst := newRig(t, memory.Config{}, func(d *memory.Deps) { d.Workspace = workspace.New(t.TempDir()) })
			rep, err := dst.svc.Import(ctx, bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("import of the export: %v", err)
			}
			if c.in.AgentID != "" && c.in.AgentID != c.agent {
				if rep.Files != 0 {
					t.Fatalf("another agent's file came along: %+v", rep)
				}
				return
			}
			got, err := dst.svc.ReadWorkspace(ctx, c.agent, c.file)
			if err != nil || rep.Files != 1 || got.Content != string(c.content) {
				t.Fatalf("imported %d files, %s/%s has %d bytes (want %d): %v", rep.Files, c.agent, c.file, len(got.Content), len(c.content), err)
			}
		})
	}
}
