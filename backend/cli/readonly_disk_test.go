package cli_test

import (
	"context"
	"errors"
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

// A disk the kernel remounted read-only (it does so after disk errors)
// holds the data folder: HyAtlas still starts and shows every memory and
// answers searches, refuses each write with a 503 that says why, and its
// status says so; /readyz says it is not ready to store. Back on a
// writable disk, it stores again with nothing lost. (A real tmpfs: root
// only, as the full-disk tests.)
func TestReadOnlyDiskStillShowsTheMemories(t *testing.T) {
	in, data := onSmallDisk(t)
	in.Start("serve")
	c := in.Client()
	ctx := context.Background()
	text := "Alice drinks green tea every morning"
	if _, err := c.Add(ctx, api.AddRequest{Text: &text, UserID: "ro"}); err != nil {
		t.Fatal(err)
	}
	stop(t, in)
	proctest.Remount(t, data, true)

	in.StartLive("serve")
	list, err := c.List(ctx, api.ListRequest{UserID: "ro"})
	if err != nil || list.Total != 1 || list.Memories[0].Content != text {
		t.Fatalf("list on a read-only disk: %+v, %v", list, err)
	}
	min := 0.0
	found, err := c.Search(ctx, api.SearchRequest{Query: "green tea", UserID: "ro", MinScore: &min})
	if err != nil || len(found.Ranked) != 1 {
		t.Fatalf("search on a read-only disk: %+v, %v", found, err)
	}
	st, err := c.Status(ctx)
	if err != nil || !strings.Contains(st.Storage, "may not write its data folder "+data) {
		t.Fatalf("status.storage = %q, %v", st.Storage, err)
	}
	more := "written to a read-only disk"
	_, err = c.Add(ctx, api.AddRequest{Text: &more, UserID: "ro"})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != 503 || ce.Code != memory.EUNAVAILABLE || !strings.Contains(ce.Message, "read-only") {
		t.Fatalf("an add on a read-only disk: %v", err)
	}
	if err := c.Ready(ctx); err == nil {
		t.Error("/readyz says ready on a read-only disk")
	}
	if out, code := in.Run("status"); code != 0 || !strings.Contains(out, "NOTHING CAN BE STORED NOW") || !strings.Contains(out, "read-only") {
		t.Errorf("hyatlas status on a read-only disk (exit %d) does not say so:\n%s", code, out)
	}
	stop(t, in)

	proctest.Remount(t, data, false)
	in.Start("serve")
	if _, err := c.Add(ctx, api.AddRequest{Text: &more, UserID: "ro"}); err != nil {
		t.Fatalf("an add once the disk is writable: %v", err)
	}
	if list, err = c.List(ctx, api.ListRequest{UserID: "ro"}); err != nil || list.Total != 2 {
		t.Fatalf("list after: %+v, %v", list, err)
	}
}

// The data folder is on a read-only disk with no HyAtlas data on it:
// HyAtlas stops at once, saying which folder and what to do.
func TestReadOnlyDiskWithNoDataSaysWhatToDo(t *testing.T) {
	in, data := onSmallDisk(t)
	proctest.Remount(t, data, true)
	out, code := in.Run("serve")
	if code == 0 || !strings.Contains(out, "may not write its data folder "+filepath.Clean(data)) || !strings.Contains(out, "HYATLAS_DATA") {
		t.Fatalf("exit %d: %s", code, out)
	}
}

// stop ends the running instance as a user's quit does (SIGTERM) and
// waits for it.
func stop(t *testing.T, in *proctest.Instance) {
	t.Helper()
	if err := in.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := in.Wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, in.Out.String())
	}
}
