package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"hyatlas/backend/memory"
)

// TestSnapshot_FoldersWithURICharacters: a snapshot folder or a data folder
// whose name holds a character SQLite's URIs give a meaning to ("Backups
// #1", "a?b", "100%") is a folder like any other: a snapshot made there
// counts what it holds, verifies and restores, and no file is made
// beside it under a cut name.
func TestSnapshot_FoldersWithURICharacters(t *testing.T) {
	for i, tt := range []struct{ which, folder string }{
		{"snapshots", "Backups #1"},
		{"snapshots", "a?b=1"},
		{"snapshots", "100%41"},
		{"data", "Memory #2"},
		{"data", "what?now"},
		{"data", "50%25 off"},
	} {
		// The test's own folders have plain names (t.TempDir takes the
		// subtest's, and Go adds "#01" to one taken twice).
		t.Run(fmt.Sprintf("%s_%d", tt.which, i), func(t *testing.T) {
			ctx := context.Background()
			cfg := testConfig(t)
			parent := t.TempDir()
			folder := filepath.Join(parent, tt.folder)
			if tt.which == "data" {
				cfg.Paths.Data = filepath.Join(folder, "data")
			} else {
				cfg.Snapshot.Dir = folder
			}
			e, err := Open(ctx, cfg, quiet())
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer e.Close()
			kept := addFact(t, e, "Ada keeps bees")
			snap, err := e.CreateSnapshot(ctx, "manual")
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if n := snap.Manifest.Layers[memory.LayerFact]; n != 1 {
				t.Errorf("the snapshot counts %d facts, want 1", n)
			}
			if _, err := e.VerifySnapshot(ctx, snap.ID); err != nil {
				t.Fatalf("verify: %v", err)
			}
			later := addFact(t, e, "Ada sold the hives")
			if _, err := e.RestoreSnapshot(ctx, snap.ID); err != nil {
				t.Fatalf("restore: %v", err)
			}
			if _, err := e.Memory.Get(ctx, kept); err != nil {
				t.Errorf("the snapshot's memory after the restore: %v", err)
			}
			if _, err := e.Memory.Get(ctx, later); memory.ErrorCode(err) != memory.ENOTFOUND {
				t.Errorf("a memory written after the snapshot is still live: %v", err)
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 1 {
				t.Errorf("beside the folder: %v, want only it", entries)
			}
		})
	}
}
