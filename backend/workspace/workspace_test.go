package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"hyatlas/backend/memory"
)

func TestReadWriteAppend(t *testing.T) {
	ctx := context.Background()
	d := New(t.TempDir())
	doc, err := d.Read(ctx, "meepa", memory.FileSoul)
	if err != nil || doc.Exists || doc.Content != "" || doc.ETag != ETag("") {
		t.Fatalf("unwritten file: %+v, %v", doc, err)
	}
	v1, err := d.Write(ctx, "meepa", memory.FileSoul, "You are Meepa.\n", "")
	if err != nil || !v1.Exists || v1.ETag == doc.ETag {
		t.Fatalf("write: %+v, %v", v1, err)
	}
	got, _ := d.Read(ctx, "meepa", memory.FileSoul)
	if got.Content != "You are Meepa.\n" || got.ETag != v1.ETag || got.ModifiedAt.IsZero() {
		t.Fatalf("read back: %+v", got)
	}
	// A write based on the current version goes through; one based on an
	// older version is refused and changes nothing.
	v2, err := d.Write(ctx, "meepa", memory.FileSoul, "You are Meepa, terse.\n", v1.ETag)
	if err != nil {
		t.Fatalf("write with the current etag: %v", err)
	}
	if _, err := d.Write(ctx, "meepa", memory.FileSoul, "stale edit", v1.ETag); memory.ErrorCode(err) != memory.ESTALE {
		t.Fatalf("stale write: %v", err)
	}
	if _, err := d.Write(ctx, "meepa", memory.FileSoul, "weak etag", "W/"+v2.ETag); err != nil {
		t.Fatalf("weak etag form: %v", err)
	}
	for _, note := range []string{"## Decision\nBun for tooling.", "Second note\n\n"} {
		if _, err := d.Append(ctx, "meepa", memory.FileMemory, note); err != nil {
			t.Fatal(err)
		}
	}
	m, _ := d.Read(ctx, "meepa", memory.FileMemory)
	if m.Content != "## Decision\nBun for tooling.\n\nSecond note\n" {
		t.Fatalf("appended: %q", m.Content)
	}
	if _, err := d.Append(ctx, "meepa", memory.FileMemory, strings.Repeat("x", memory.MaxWorkspaceBytes)); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("append over the cap: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(d.root, "meepa"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// Concurrent appends all land: each is a read-modify-write under the lock.
func TestConcurrentAppends(t *testing.T) {
	d := New(t.TempDir())
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := d.Append(context.Background(), "a", memory.FileUser, strings.Repeat("n", i+1)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	doc, _ := d.Read(context.Background(), "a", memory.FileUser)
	if n := len(strings.Split(strings.TrimSpace(doc.Content), "\n\n")); n != 20 {
		t.Fatalf("%d notes, want 20", n)
	}
}

// Remove takes a file back only while it is the version given: a file
// changed since keeps the change, and a file already gone is no error.
func TestRemoveOnlyTheVersionGiven(t *testing.T) {
	ctx := context.Background()
	d := New(t.TempDir())
	v1, err := d.Write(ctx, "meepa", memory.FileSoul, "first\n", "")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := d.Write(ctx, "meepa", memory.FileSoul, "changed\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(ctx, "meepa", memory.FileSoul, v1.ETag); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.Read(ctx, "meepa", memory.FileSoul); got.Content != "changed\n" {
		t.Fatalf("a remove of an older version took the change: %+v", got)
	}
	if err := d.Remove(ctx, "meepa", memory.FileSoul, v2.ETag); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.Read(ctx, "meepa", memory.FileSoul); got.Exists {
		t.Fatalf("the version given is still there: %+v", got)
	}
	if err := d.Remove(ctx, "meepa", memory.FileSoul, v2.ETag); err != nil {
		t.Errorf("removing a file already gone: %v", err)
	}
}
