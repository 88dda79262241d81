package cli_test

// Full disks, for real: a small tmpfs (mounting one needs root, which CI
// has; elsewhere these tests are skipped) holds the data folder.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
)

// onSmallDisk prepares a lite instance (no scheduled snapshots) whose data
// folder is a 4 MiB tmpfs, and returns it with that folder.
func onSmallDisk(t *testing.T) (*proctest.Instance, string) {
	t.Helper()
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local", "HYATLAS_SNAPSHOT_EVERY=off")
	data := filepath.Join(in.Home, "data")
	proctest.Tmpfs(t, data, "4M")
	return in, data
}

// fillDisk leaves about free bytes on the file system holding dir.
func fillDisk(t *testing.T, dir string, free int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	avail := int64(st.Bavail) * int64(st.Bsize)
	if avail <= free {
		return
	}
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for left := avail - free; left > 0; left -= int64(len(buf)) {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
}

// countWorkspaceFiles counts the workspace files on disk.
func countWorkspaceFiles(root string) int {
	n := 0
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			n++
		}
		return nil
	})
	return n
}

// An import that runs out of disk space (a real tmpfs) is refused saying
// the disk is full, and leaves nothing: not its memories, not the
// workspace files it wrote before the disk filled.
func TestImportOnAFullDiskChangesNothing(t *testing.T) {
	in, data := onSmallDisk(t)
	in.Start("serve")
	// 300 small memories (the database takes them) and 100 workspace
	// files of 48 KB (the disk does not take them all).
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"hyatlas-export","version":2,"exported_at":"2026-01-01T00:00:00Z","embedder":"none"}` + "\n")
	for i := range 300 {
		fmt.Fprintf(&b, `{"type":"memory","memory":{"id":"m20260101000000enosp%06d","layer":"l2_raw","content":"import on a full disk %d","owner":{"user_id":"imp","agent_id":""},"strength":0.5,"source":"api","event_at":"2026-01-01T00:00:00Z","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","extraction":"skipped"}}`+"\n", i, i)
	}
	for a := range 100 {
		fmt.Fprintf(&b, `{"type":"workspace","agent":"ag%03d","file":"SOUL.md","content":%q}`+"\n", a, strings.Repeat(fmt.Sprintf("soul %03d ", a), 5000))
	}
	b.WriteString(`{"type":"end","memories":300,"files":100,"nodes":0,"relations":0,"links":0}` + "\n")
	file := filepath.Join(in.Home, "export.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := in.Run("import", file)
	st, err := in.Client().Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	files := countWorkspaceFiles(filepath.Join(data, "workspace"))
	t.Logf("import exit %d: %s; then %d memories, %d workspace files", code, strings.TrimSpace(out), st.Total, files)
	if code != 0 && (st.Total != 0 || files != 0) {
		t.Errorf("the import failed (%q) but left %d of its 300 memories and %d of its 100 workspace files", strings.TrimSpace(out), st.Total, files)
	}
	if code != 0 && !strings.Contains(out, "full") {
		t.Errorf("an import refused for lack of space should say the disk is full, not %q", strings.TrimSpace(out))
	}
}

// A workspace file write on a full disk is refused as a memory write is
// (503, "the disk ... is full"; the Hermes plugin and the page can say
// why), and the old file stays as it was.
func TestWorkspaceWriteOnAFullDiskSaysSo(t *testing.T) {
	in, data := onSmallDisk(t)
	in.Start("serve")
	c := in.Client()
	ctx := context.Background()
	if err := c.Do(ctx, "PUT", "/api/v1/workspace/agent1/SOUL.md", map[string]string{"content": "the old soul"}, nil); err != nil {
		t.Fatal(err)
	}
	fillDisk(t, data, 16<<10)
	err := c.Do(ctx, "PUT", "/api/v1/workspace/agent1/SOUL.md", map[string]string{"content": strings.Repeat("a new soul ", 6000)}, nil)
	var ce *client.Error
	if !errors.As(err, &ce) {
		t.Fatalf("a workspace write on a full disk: %v", err)
	}
	if ce.Status != 503 || ce.Code != memory.EUNAVAILABLE || !strings.Contains(ce.Message, "full") {
		t.Errorf("a workspace write on a full disk is answered %d %s %q; want 503 unavailable saying the disk is full", ce.Status, ce.Code, ce.Message)
	}
	if b, err := os.ReadFile(filepath.Join(data, "workspace", "agent1", "SOUL.md")); err != nil || string(b) != "the old soul" {
		t.Errorf("SOUL.md after the refused write: %q %v", b, err)
	}
}

// On a real full disk the status keeps saying so for as long as an add
// would be refused: a small write (the status's own probe) that fits in
// the space the log already holds does not end the fault.
func TestFullDiskStatusStaysTrue(t *testing.T) {
	in, data := onSmallDisk(t)
	in.Start("serve")
	c := in.Client()
	ctx := context.Background()
	small := "a small memory that needs a few pages"
	if _, err := c.Add(ctx, api.AddRequest{Text: &small, UserID: "fd"}); err != nil {
		t.Fatal(err)
	}
	// Leave 40 KiB: the WAL takes part of a big write, too little for an add.
	fillDisk(t, data, 40<<10)
	big := strings.Repeat("words that fill many pages of the write ahead log ", 6000) // ~300 KB
	var refused error
	for range 20 {
		if _, refused = c.Add(ctx, api.AddRequest{Text: &big, UserID: "fd"}); refused != nil {
			break
		}
	}
	var ce *client.Error
	if !errors.As(refused, &ce) || ce.Code != memory.EUNAVAILABLE || !strings.Contains(ce.Message, "full") {
		t.Fatalf("a write on the full disk: %v", refused)
	}
	// Past one recheck of the disk (every 10 s while it is faulty).
	for deadline := time.Now().Add(12 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Storage == "ok" {
			_, addErr := c.Add(ctx, api.AddRequest{Text: &small, UserID: "fd"})
			if addErr != nil {
				ready := c.Ready(ctx)
				t.Fatalf("status.storage is %q (and /readyz: %v) while the disk is still full: an add is refused with %v", st.Storage, ready, addErr)
			}
			// The disk took a small write after all: the status was right.
			return
		}
	}
}
