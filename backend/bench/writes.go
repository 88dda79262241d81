package bench

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
	"hyatlas/backend/engine"
)

const (
	writeClients  = 8
	writeDuration = 5 * time.Second
)

// benchWrites runs a real server on a loopback port and has 8 clients add
// memories as fast as they are acknowledged.
func benchWrites(ctx context.Context, tmp string) ([]row, error) {
	eng, err := engine.Open(ctx, benchConfig(tmp+"/writes"), engine.Options{Logger: quiet()})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	if _, err := eng.Listen(); err != nil {
		return nil, err
	}
	var (
		mu   sync.Mutex
		lats []float64
		wg   sync.WaitGroup
		errs = make(chan error, writeClients)
	)
	deadline := time.Now().Add(writeDuration)
	start := time.Now()
	for w := range writeClients {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := client.New(eng.BaseURL(), eng.Token)
			corp := newCorpus(int64(100 + w))
			var mine []float64
			for time.Now().Before(deadline) {
				text := corp.text(8, 40)
				t0 := time.Now()
				if _, err := c.Add(ctx, api.AddRequest{Text: &text, UserID: fmt.Sprint("bench", w)}); err != nil {
					errs <- err
					return
				}
				mine = append(mine, float64(time.Since(t0).Microseconds())/1000)
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	sort.Float64s(lats)
	rate := float64(len(lats)) / elapsed.Seconds()
	return []row{
		{measure: "acknowledged adds/s, 8 concurrent clients over loopback",
			result: fmt.Sprintf("%.0f/s (%d in %.1f s)", rate, len(lats), elapsed.Seconds()),
			target: "≥ 500/s", ok: rate >= 500},
		{measure: "add latency p50 (p99)",
			result: fmt.Sprintf("%.2f ms (%.2f ms)", percentile(lats, 50), percentile(lats, 99)),
			target: "-", ok: true},
	}, nil
}
