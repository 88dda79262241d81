package embed

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"hyatlas/backend/memory"
)

// maxDiff is the largest difference between two vectors' numbers (+Inf
// for vectors of different lengths or a NaN).
func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		x := math.Abs(float64(a[i]) - float64(b[i]))
		if math.IsNaN(x) {
			return math.Inf(1)
		}
		d = max(d, x)
	}
	return d
}

// One model is shared by every caller with no lock around it, and its
// input tensors are made over Go memory: many callers at once, with the
// garbage collector running all the time, get exactly the vectors one
// caller gets alone (up to float rounding: a batch pads its texts to one
// length, which changes the order of the sums), directly and through a Batcher (as the engine uses
// it). A tensor whose memory moved or was freed under ORT would give
// other numbers or crash the test binary.
func TestSharedModelUnderGCGivesTheSameVectors(t *testing.T) {
	g := loadGloVe(t)
	texts := make([]string, 120)
	words := []string{"alice", "plays", "the", "guitar", "on", "sunday", "postgres", "database", "migration", "failed", "yesterday", "camping", "with", "kids", "beach"}
	for i := range texts {
		n := 1 + i%11
		text := ""
		for j := range n {
			text += words[(i*7+j*3)%len(words)] + " "
		}
		texts[i] = fmt.Sprintf("%s%d", text, i)
	}
	want := embedAll(t, g, texts...)

	b := NewBatcher(g, 2)
	t.Cleanup(b.Close)
	for _, c := range []struct {
		name string
		emb  memory.Embedder
	}{{"model", g}, {"batcher", b}} {
		t.Run(c.name, func(t *testing.T) {
			defer debug.SetGCPercent(debug.SetGCPercent(1))
			stop := make(chan struct{})
			var gc sync.WaitGroup
			gc.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
						runtime.GC()
					}
				}
			})
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for w := range 8 {
				wg.Go(func() {
					for round := range 4 {
						// Batches of 1 to 9 texts, each worker its own order.
						for at := 0; at < len(texts); {
							n := 1 + (w+round+at)%9
							end := min(at+n, len(texts))
							got, err := c.emb.Embed(context.Background(), texts[at:end], memory.PurposeDocument)
							if err != nil {
								errs <- err
								return
							}
							for i, v := range got {
								if d := maxDiff(v, want[at+i]); d > 1e-5 {
									errs <- fmt.Errorf("worker %d: %q got another vector (a number %g off)", w, texts[at+i], d)
									return
								}
							}
							at = end
						}
					}
				})
			}
			wg.Wait()
			close(stop)
			gc.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}
