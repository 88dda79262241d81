package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"hyatlas/backend/memory"
	"hyatlas/backend/snapshot"
)

// An import and a snapshot restore at once: the restore waits for the
// whole import (files and memories), so everything the import reports is
// in the restored data, files included. Before, the restore could swap
// the workspace between the import's files and its commit: the import
// was acknowledged with its memories in the restored data and some of
// its files only in the before-restore snapshot.
func TestSnapshot_AnImportDuringARestoreKeepsItsFiles(t *testing.T) {
	ctx := context.Background()
	eng := openSnapEngine(t)
	snap, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	const agents = 600
	var b bytes.Buffer
	line := func(v any) {
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	line(map[string]any{"type": "header", "format": "hyatlas-export", "version": 2})
	line(map[string]any{"type": "memory", "memory": map[string]any{"id": "m20260101000000imported", "layer": "l2_raw",
		"content": "imported during a restore", "owner": map[string]any{"user_id": "imp"}, "strength": 0.5,
		"created_at": "2026-01-01T00:00:00Z", "extraction": "skipped"}})
	for a := range agents {
		line(map[string]any{"type": "workspace", "agent": fmt.Sprintf("agent%04d", a), "file": "SOUL.md", "content": fmt.Sprintf("soul %d\n", a)})
	}
	line(map[string]any{"type": "end", "memories": 1, "files": agents})

	restored := make(chan error, 1)
	started := false
	ws := eng.liveWorkspace()
	go func() {
		// Start the restore once the import is writing its files.
		for !started {
			if entries, _ := os.ReadDir(ws); len(entries) > 20 {
				started = true
			}
		}
		_, err := eng.RestoreSnapshot(ctx, snap.ID)
		restored <- err
	}()
	rep, err := eng.Memory.Import(ctx, &b)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-restored; err != nil {
		t.Fatal(err)
	}
	// The restore came after the import (it waited): the snapshot, made
	// before, holds neither; or before it: the restored data holds both.
	// Either way, memories and files agree.
	_, errRow := eng.Memory.Get(ctx, "m20260101000000imported")
	missing := 0
	for a := range agents {
		if _, err := os.Stat(filepath.Join(ws, fmt.Sprintf("agent%04d", a), "SOUL.md")); err != nil {
			missing++
		}
	}
	switch {
	case errRow == nil && missing > 0:
		t.Errorf("the imported memory is here, %d of its %d files are not (import report %+v)", missing, rep.Files, rep)
	case errRow != nil && missing < agents:
		t.Errorf("the imported memory is gone (%v), %d of its files are here", errRow, agents-missing)
	case memory.ErrorCode(errRow) != memory.ENOTFOUND && errRow != nil:
		t.Errorf("reading the imported memory: %v", errRow)
	}
}
