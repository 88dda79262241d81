package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// An export reads one moment of the store: a row retired while it runs is
// either live without its retirement or retired with it, never retired
// without the history line that says why (the import would refuse that).
func TestScanExport_ReadsOneMoment(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	const n = 200
	var rows []memory.NewRow
	for i := range n {
		rows = append(rows, row(fmt.Sprintf("m%03d", i), fmt.Sprintf("memory %d", i), noVector))
	}
	if err := s.Insert(ctx, rows...); err != nil {
		t.Fatal(err)
	}
	// Many history lines make the history read long enough for a retire
	// to fall between it and the rows' read, were they two moments.
	for i := range n / 2 {
		id := fmt.Sprintf("m%03d", i)
		for j := range 4 {
			if _, _, err := s.Retire(ctx, id, memory.Retirement{How: memory.RetiredDropped, Reason: "r", At: t0.Add(time.Duration(j) * time.Minute)}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.Restore(ctx, id, t0.Add(time.Duration(j)*time.Minute+time.Second)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := n - 1; i >= n/2; i-- {
			select {
			case <-stop:
				return
			default:
			}
			_, _, _ = s.Retire(ctx, fmt.Sprintf("m%03d", i), memory.Retirement{How: memory.RetiredDropped, Reason: "late", At: t0.Add(time.Hour)})
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for try := range 40 {
		err := s.ScanExport(ctx, memory.Scope{}, false, func(r memory.ExportRow) error {
			if r.Memory.Live() {
				return nil
			}
			if len(r.History) == 0 || r.History[len(r.History)-1].Action != memory.HistoryRetired {
				return fmt.Errorf("try %d: %s is retired, but its history does not say so: %+v", try, r.Memory.ID, r.History)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
