package memory_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// Turns that were still waiting for extraction when they were exported
// (a key never set, an endpoint down) are extracted after an import: the
// workers get them at once, and the catch-up loop finds them too, however
// long ago they were said, since they count from the import.
func TestImport_TurnsWaitingForExtractionAreQueued(t *testing.T) {
	ctx := context.Background()
	cfg := extractCfg()
	cfg.Extraction.Sync = false
	src, _, _ := newQueueRig(t, cfg)
	a, st := src.write(t, "I moved to Lisbon in spring", "u1")
	b, _ := src.write(t, "My sister is called Ana", "u1")
	if st != memory.StatusPending {
		t.Fatalf("a write without an answer from the model is %s, want pending", st)
	}
	var file bytes.Buffer
	if _, err := src.svc.Export(ctx, &file, memory.ExportInput{}); err != nil {
		t.Fatal(err)
	}
	later := func(r *rig) {
		r.clock.mu.Lock()
		r.clock.now = r.clock.now.Add(30 * 24 * time.Hour) // a month after they were said
		r.clock.mu.Unlock()
	}
	t.Run("pro", func(t *testing.T) {
		dst, x, q := newQueueRig(t, cfg)
		later(dst)
		if _, err := dst.svc.Import(ctx, bytes.NewReader(file.Bytes())); err != nil {
			t.Fatal(err)
		}
		if got, want := slices.Sorted(slices.Values(q.ids())), slices.Sorted(slices.Values([]string{a.ID, b.ID})); !slices.Equal(got, want) {
			t.Errorf("queued after the import: %v, want %v", got, want)
		}
		x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) { return memory.ExtractPlan{}, nil })
		dst.clock.mu.Lock()
		dst.clock.now = dst.clock.now.Add(memory.CatchUpMinAge + time.Minute)
		dst.clock.mu.Unlock()
		res, err := dst.svc.CatchUp(ctx, 168*time.Hour) // the default window, a week
		if err != nil || res.Tried != 2 || res.Done != 2 {
			t.Errorf("catch-up after the import: %+v %v, want both turns tried and done", res, err)
		}
	})
	t.Run("lite", func(t *testing.T) {
		dst, _, q := newQueueRig(t, memory.Config{Mode: memory.ModeLite})
		later(dst)
		if _, err := dst.svc.Import(ctx, bytes.NewReader(file.Bytes())); err != nil {
			t.Fatal(err)
		}
		if got := q.ids(); len(got) != 0 {
			t.Errorf("lite mode queued %v for extraction", got)
		}
	})
}
