package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// A keeper over a fake database: the file's bytes stand for the copy.
func testKeeper(t *testing.T) *Keeper {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(filepath.Join(ws, "meepa"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "meepa", "SOUL.md"), []byte("You are Meepa."), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return New(Config{Dir: filepath.Join(dir, "snaps"), WorkspaceDir: ws, AppVersion: "test", Schema: 6,
		CopyDB: func(_ context.Context, dst string) error { return os.WriteFile(dst, []byte("db"), 0o600) },
		Inspect: func(context.Context, string) (DBInfo, error) {
			return DBInfo{Schema: 6, Integrity: "ok", Layers: map[memory.Layer]int{}}, nil
		},
		Now: func() time.Time { now = now.Add(time.Millisecond); return now }})
}

func TestCreateListVerifyPrune(t *testing.T) {
	ctx := context.Background()
	k := testKeeper(t)
	var ids []string
	for _, reason := range []string{ReasonSchedule, ReasonSchedule, ReasonManual, ReasonSchedule} {
		info, err := k.Create(ctx, reason)
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Manifest.Files) != 2 || info.Manifest.Files["workspace/meepa/SOUL.md"] == "" {
			t.Fatalf("manifest files: %v", info.Manifest.Files)
		}
		ids = append(ids, info.ID)
	}
	if _, err := k.Verify(ctx, ids[0]); err != nil {
		t.Fatalf("verify: %v", err)
	}
	list, _ := k.List()
	if len(list) != 4 || list[0].ID != ids[3] {
		t.Fatalf("list: %+v", list)
	}
	gone, err := k.Prune(1)
	if err != nil || len(gone) != 2 {
		t.Fatalf("prune: %v %v", gone, err)
	}
	// Leftovers of a crash are removed; finished snapshots stay.
	_ = os.MkdirAll(filepath.Join(k.Dir(), ".making-123"), 0o700)
	_ = os.WriteFile(filepath.Join(k.Dir(), "."+ids[3]+".zip.999"), []byte("half"), 0o600)
	if err := k.CleanPartial(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(k.Dir())
	if len(entries) != 2 {
		t.Fatalf("after cleaning: %v", entries)
	}
}
