package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/atomicfile"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name    string
		path    string
		data    string
		mode    os.FileMode
		wantErr bool
	}{
		{"new file", filepath.Join(dir, "a.json"), "first", 0o600, false},
		{"replaces it, mode too", filepath.Join(dir, "a.json"), "second", 0o644, false},
		{"empty content", filepath.Join(dir, "b.json"), "", 0o600, false},
		{"missing directory", filepath.Join(dir, "no", "c.json"), "x", 0o600, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := atomicfile.Write(c.path, []byte(c.data), c.mode)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if c.wantErr {
				return
			}
			b, err := os.ReadFile(c.path)
			if err != nil || string(b) != c.data {
				t.Fatalf("read %q %v, want %q", b, err, c.data)
			}
			if fi, _ := os.Stat(c.path); fi.Mode().Perm() != c.mode {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), c.mode)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "a.json" && e.Name() != "b.json" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// A fill that fails part way leaves the file as it was, and no temporary
// file behind; its error comes back as is.
func TestWriteFromFailingFillKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.jsonl")
	if err := atomicfile.Write(path, []byte("the old export"), 0o600); err != nil {
		t.Fatal(err)
	}
	cut := errors.New("the store went away")
	err := atomicfile.WriteFrom(path, 0o600, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half of a new one")
		return cut
	})
	if !errors.Is(err, cut) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "the old export" {
		t.Errorf("the file is now %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// A file whose name is as long as a name may be (255 bytes) can be
// written: its temporary file's name used to be longer than that.
func TestWriteALongName(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{strings.Repeat("a", 249) + ".jsonl", strings.Repeat("é", 124) + ".jsonl"} {
		path := filepath.Join(dir, name)
		if err := atomicfile.Write(path, []byte("x"), 0o600); err != nil {
			t.Fatalf("a %d-byte name: %v", len(name), err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != "x" {
			t.Fatalf("read back: %q %v", b, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files left, want the 2 written", len(entries))
	}
}

// A link to a file that does not exist yet is written through: the file
// is made where the link points, and the link stays a link.
func TestWriteThroughALinkToANewFile(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []string{filepath.Join(dir, "abs-target.jsonl"), "rel-target.jsonl"} {
		link := filepath.Join(dir, "link-"+filepath.Base(target))
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.Write(link, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", link, err)
		}
		real := target
		if !filepath.IsAbs(real) {
			real = filepath.Join(dir, real)
		}
		if b, err := os.ReadFile(real); err != nil || string(b) != "x" {
			t.Errorf("the link's target %s: %q %v", real, b, err)
		}
	}
}
