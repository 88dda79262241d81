package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// TestSomethingElseInAFilesPlace: a folder where a workspace file belongs,
// or a file where an agent's folder belongs (put there by hand), is a
// clear conflict naming it for every read and write (not an internal
// error), changes nothing, and List (an export) passes over it.
func TestSomethingElseInAFilesPlace(t *testing.T) {
	cases := []struct {
		name  string
		setup func(root string) error
		says  string
	}{
		{"a folder named SOUL.md", func(root string) error {
			return os.MkdirAll(filepath.Join(root, "meepa", "SOUL.md", "notes"), 0o700)
		}, "is a folder"},
		{"a file named as the agent", func(root string) error {
			return os.WriteFile(filepath.Join(root, "meepa"), []byte("not a folder"), 0o600)
		}, "is a file"},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			d := New(root)
			if _, err := d.Write(ctx, "other", memory.FileSoul, "fine\n", ""); err != nil {
				t.Fatal(err)
			}
			if err := c.setup(root); err != nil {
				t.Fatal(err)
			}
			calls := map[string]func() error{
				"read":  func() error { _, err := d.Read(ctx, "meepa", memory.FileSoul); return err },
				"write": func() error { _, err := d.Write(ctx, "meepa", memory.FileSoul, "x", ""); return err },
				"write if-match": func() error {
					_, err := d.Write(ctx, "meepa", memory.FileSoul, "x", ETag(""))
					return err
				},
				"append": func() error { _, err := d.Append(ctx, "meepa", memory.FileSoul, "x"); return err },
			}
			for what, call := range calls {
				err := call()
				if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(memory.ErrorMessage(err), c.says) ||
					!strings.Contains(memory.ErrorMessage(err), "meepa") {
					t.Errorf("%s: %v, want a conflict that says it %s", what, err, c.says)
				}
			}
			docs, err := d.List(ctx)
			if err != nil || len(docs) != 1 || docs[0].Agent != "other" {
				t.Errorf("list: %+v, %v", docs, err)
			}
			if err := d.Remove(ctx, "meepa", memory.FileSoul, ETag("")); err != nil {
				t.Errorf("remove: %v", err)
			}
			if _, err := os.Stat(filepath.Join(root, "meepa")); err != nil {
				t.Errorf("the thing in the way went: %v", err)
			}
		})
	}
}

// TestListOnlyAgentFolders: List (what an export carries) holds only the
// folders spelt as an agent name is: " meepa" or "meepa " (made by hand)
// is not meepa's workspace, and an export must not carry it as meepa's.
func TestListOnlyAgentFolders(t *testing.T) {
	for _, name := range []string{" meepa", "meepa ", "meepa\t", ".meepa", "-meepa", "me pa"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, name), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, name, "SOUL.md"), []byte("stray\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			d := New(root)
			if _, err := d.Write(context.Background(), "meepa", memory.FileUser, "notes\n", ""); err != nil {
				t.Fatal(err)
			}
			docs, err := d.List(context.Background())
			if err != nil || len(docs) != 1 || docs[0].Agent != "meepa" || docs[0].File != memory.FileUser {
				t.Fatalf("list: %+v, %v", docs, err)
			}
		})
	}
}

// TestListFollowsALinkedAgentFolder: an agent's folder that is a symbolic
// link (to a synced folder, say) is read and written through, so List
// (what an export carries) has its files too.
func TestListFollowsALinkedAgentFolder(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "SOUL.md"), []byte("linked\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "meepa")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	d := New(root)
	if doc, err := d.Read(context.Background(), "meepa", memory.FileSoul); err != nil || doc.Content != "linked\n" {
		t.Fatalf("read: %+v, %v", doc, err)
	}
	docs, err := d.List(context.Background())
	if err != nil || len(docs) != 1 || docs[0].Agent != "meepa" || docs[0].Content != "linked\n" {
		t.Fatalf("list: %+v, %v", docs, err)
	}
}
