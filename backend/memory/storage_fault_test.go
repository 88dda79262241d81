package memory_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"hyatlas/backend/memory"
	"hyatlas/backend/store"
)

// refusingDisk is the real store behind a disk that can be made to refuse
// writes, as a full disk does (the store's own detection of SQLite's
// errors is tested in the store package).
type refusingDisk struct {
	*store.Store
	mu       sync.Mutex
	refusing bool
	fault    error
	probes   int
}

func (d *refusingDisk) refuse(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refusing = on
}

// check is what a write meets: the fault while refusing, else nil (and the
// fault clears, as at the real store once a write commits).
func (d *refusingDisk) check() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refusing {
		d.fault = memory.StorageFault("the disk holding HyAtlas's data is full: nothing was stored")
		return d.fault
	}
	d.fault = nil
	return nil
}

func (d *refusingDisk) Insert(ctx context.Context, rows ...memory.NewRow) error {
	if err := d.check(); err != nil {
		return err
	}
	return d.Store.Insert(ctx, rows...)
}

func (d *refusingDisk) Probe(ctx context.Context) error {
	d.mu.Lock()
	d.probes++
	d.mu.Unlock()
	if err := d.check(); err != nil {
		return err
	}
	return d.Store.Probe(ctx)
}

func (d *refusingDisk) WriteFault() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fault
}

// TestStorageFault_StatusSaysSoUntilTheDiskTakesWritesAgain: after a
// write the disk refused, the write pipeline's health says why (ahead of
// an extraction error) and keeps saying it while the disk refuses, probing
// it again at most every ten seconds; once the disk takes writes, the
// status clears by itself even if no write comes.
func TestStorageFault_StatusSaysSoUntilTheDiskTakesWritesAgain(t *testing.T) {
	ctx := context.Background()
	var disk *refusingDisk
	r := newRig(t, memory.Config{}, func(d *memory.Deps) {
		disk = &refusingDisk{Store: d.Store.(*store.Store)}
		d.Store = disk
	})
	if p := r.svc.WritePipeline(ctx); p != "ok" {
		t.Fatalf("a fresh store: %q", p)
	}
	disk.refuse(true)
	_, err := r.svc.Add(ctx, memory.AddInput{Text: "a write the disk refuses"})
	if !errors.Is(err, memory.ErrStorage) || memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("a refused write: %v", err)
	}
	for i := 0; i < 30; i++ { // the rig's clock moves a second per reading
		if p := r.svc.WritePipeline(ctx); !strings.HasPrefix(p, "degraded: the disk holding HyAtlas's data is full") {
			t.Fatalf("while the disk refuses, call %d: %q", i, p)
		}
	}
	if disk.probes < 1 || disk.probes > 4 {
		t.Errorf("30 status reads over about 30 s probed the disk %d times, want 1-4", disk.probes)
	}
	disk.refuse(false)
	cleared := false
	for i := 0; i < 30 && !cleared; i++ {
		cleared = r.svc.WritePipeline(ctx) == "ok" && r.svc.StorageFault(ctx) == nil
	}
	if !cleared {
		t.Fatal("the status still reports the fault once the disk takes writes")
	}
	if _, err := r.svc.Add(ctx, memory.AddInput{Text: "room again"}); err != nil {
		t.Fatal(err)
	}
}
