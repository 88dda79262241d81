package memory_test

import (
	"bytes"
	"context"
	"testing"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/vector"
	"hyatlas/backend/workspace"
)

func hashEmbedder(t *testing.T) memory.Embedder {
	t.Helper()
	e, err := embed.NewHash(64)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// crash stands for the process dying: it unwinds the import without its
// error path (which would take the files back itself).
type crash struct{}

// An import cut off between its workspace files and its commit (a crash)
// leaves files without their memories; the next start (FinishImport) takes
// back exactly the files that import wrote, not the agent's own, and not
// one the agent rewrote since. An import that commits leaves nothing to
// take back.
func TestImport_ACrashBetweenFilesAndCommitIsTakenBack(t *testing.T) {
	ctx := context.Background()
	src, _ := exportRig(t)
	fill(t, src)
	if _, err := src.svc.WriteWorkspace(ctx, "claude", "USER.md", "Claude's notes on the user\n", ""); err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if _, err := src.svc.Export(ctx, &export, memory.ExportInput{}); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	ws := workspace.New(dir)
	r := newRig(t, memory.Config{}, func(d *memory.Deps) { d.Workspace = ws })
	// The agent here already has its own SOUL.md: never the import's.
	if _, err := r.svc.WriteWorkspace(ctx, "hermes", "SOUL.md", "Hermes as set up here\n", ""); err != nil {
		t.Fatal(err)
	}
	func() {
		defer memory.AfterImportFiles(func() { panic(crash{}) })()
		defer func() {
			if p := recover(); p != (crash{}) {
				t.Fatalf("the import was not cut off: %v", p)
			}
		}()
		_, _ = r.svc.Import(ctx, bytes.NewReader(export.Bytes()))
	}()
	if doc, _ := r.svc.ReadWorkspace(ctx, "claude", "USER.md"); !doc.Exists {
		t.Fatal("test setup: the cut-off import wrote no file")
	}
	if st, _ := r.svc.Stats(ctx); st.IndexLen != 0 {
		t.Fatalf("test setup: the cut-off import stored memories: %+v", st)
	}

	// The next start: a new service over the same store and folder.
	next, err := memory.NewService(memory.Config{Mode: memory.ModeLite, MinScore: -1}, memory.Deps{Store: r.store,
		Index: vector.New(64), Embedder: hashEmbedder(t), ExtractStore: r.store, Workspace: workspace.New(dir)})
	if err != nil {
		t.Fatal(err)
	}
	n, err := next.FinishImport(ctx)
	if err != nil || n != 1 {
		t.Fatalf("FinishImport: %d files, %v; want the 1 file the import wrote", n, err)
	}
	if doc, _ := next.ReadWorkspace(ctx, "claude", "USER.md"); doc.Exists {
		t.Error("the file of the cut-off import is still there")
	}
	if doc, _ := next.ReadWorkspace(ctx, "hermes", "SOUL.md"); doc.Content != "Hermes as set up here\n" {
		t.Errorf("the agent's own file was touched: %q", doc.Content)
	}
	if n, err := next.FinishImport(ctx); err != nil || n != 0 {
		t.Errorf("a second FinishImport: %d, %v", n, err)
	}

	// Imported whole this time: nothing is left to take back.
	if _, err := next.Import(ctx, bytes.NewReader(export.Bytes())); err != nil {
		t.Fatal(err)
	}
	if n, err := next.FinishImport(ctx); err != nil || n != 0 {
		t.Errorf("after a whole import FinishImport took back %d files (%v)", n, err)
	}
	if doc, _ := next.ReadWorkspace(ctx, "claude", "USER.md"); !doc.Exists {
		t.Error("the file of the whole import is gone")
	}
}
