package memory_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"hyatlas/backend/memory"
	"hyatlas/backend/workspace"
)

// TestImport_OneAtATime: imports share the journal that lets a crash's
// files be taken back, so a second import waits while the first is between
// its files and its commit; it writes none of its own files before the
// first is done, and both end whole.
func TestImport_OneAtATime(t *testing.T) {
	ctx := context.Background()
	exportOf := func(agent string) []byte {
		src, _ := exportRig(t)
		if _, err := src.svc.WriteWorkspace(ctx, agent, "USER.md", agent+"'s notes\n", ""); err != nil {
			t.Fatal(err)
		}
		src.put(t, memory.Memory{Layer: memory.LayerFact, Content: agent + " keeps notes", Owner: memory.Owner{UserID: "u1", AgentID: agent}})
		var buf bytes.Buffer
		if _, err := src.svc.Export(ctx, &buf, memory.ExportInput{}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	first, second := exportOf("claude"), exportOf("hermes")
	// Not exportRig: its re-embedding counter is not for two imports at once.
	r := newRig(t, memory.Config{}, func(d *memory.Deps) { d.Workspace = workspace.New(t.TempDir()) })

	inFirst, release, waiting := make(chan struct{}), make(chan struct{}), make(chan struct{})
	held := false
	defer memory.AfterImportFiles(func() {
		if !held { // the first import only
			held = true
			close(inFirst)
			<-release
		}
	})()
	defer memory.ImportWaits(func() { close(waiting) })()

	errs := make(chan error, 2)
	go func() { _, err := r.svc.Import(ctx, bytes.NewReader(first)); errs <- err }()
	<-inFirst
	go func() { _, err := r.svc.Import(ctx, bytes.NewReader(second)); errs <- err }()
	select {
	case <-waiting:
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("the second import did not wait for the first")
	}
	if doc, _ := r.svc.ReadWorkspace(ctx, "hermes", "USER.md"); doc.Exists {
		t.Fatal("the second import wrote its file while the first was between its files and its commit")
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, agent := range []string{"claude", "hermes"} {
		if doc, _ := r.svc.ReadWorkspace(ctx, agent, "USER.md"); doc.Content != agent+"'s notes\n" {
			t.Errorf("%s's file: %q", agent, doc.Content)
		}
	}
	if n, err := r.svc.FinishImport(ctx); err != nil || n != 0 {
		t.Errorf("after two whole imports FinishImport took back %d files (%v)", n, err)
	}
}
