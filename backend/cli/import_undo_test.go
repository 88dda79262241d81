package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `hyatlas import` is undoable as the window's import is: a snapshot is
// made just before it and named; it is dropped again when the import
// brings nothing new or is refused.
func TestCLIImportIsUndoable(t *testing.T) {
	src := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	src.Start("serve")
	src.Run("remember", "Ada keeps bees on the roof")
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if out, code := src.Run("export", "-o", file); code != 0 {
		t.Fatalf("export: %d %s", code, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	dst := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	dst.Start("serve")
	snapshots := func() int {
		out, code := dst.Run("snapshot", "list")
		if code != 0 {
			t.Fatalf("snapshot list: %d %s", code, out)
		}
		return strings.Count(out, "hyatlas-")
	}
	_, errOut, code := runSplit(t, dst, "", "import", file)
	undo := regexp.MustCompile(`undo with: hyatlas snapshot restore (hyatlas-\S+)`).FindStringSubmatch(errOut)
	if code != 0 || undo == nil || snapshots() != 1 {
		t.Fatalf("import: exit %d, stderr %q, %d snapshots; want the undo named and kept", code, errOut, snapshots())
	}
	// Nothing new, or refused: no snapshot is left behind.
	for _, f := range []string{file, bad} {
		runSplit(t, dst, "", "import", f)
		if n := snapshots(); n != 1 {
			t.Errorf("import of %s left %d snapshots, want the first import's only", filepath.Base(f), n)
		}
	}
	// The undo takes the import back.
	if out, code := dst.Run("snapshot", "restore", undo[1]); code != 0 {
		t.Fatalf("restore: %d %s", code, out)
	}
	if out, _ := dst.Run("list"); strings.Contains(out, "Ada keeps bees") {
		t.Errorf("the imported memory is still there after the undo:\n%s", out)
	}
}
