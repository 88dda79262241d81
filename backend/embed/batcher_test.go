package embed

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// countingEmbedder counts calls and texts; it holds each call a moment so
// that concurrent callers queue up.
type countingEmbedder struct {
	inner memory.Embedder
	calls atomic.Int64
	texts atomic.Int64
	mixed atomic.Bool
}

func (c *countingEmbedder) Info() memory.EmbedderInfo { return c.inner.Info() }

func (c *countingEmbedder) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	c.calls.Add(1)
	c.texts.Add(int64(len(texts)))
	time.Sleep(2 * time.Millisecond)
	return c.inner.Embed(ctx, texts, p)
}

// TestBatcher_CoalescesAndKeepsResults: 64 concurrent single-text calls
// run in fewer model calls, and every caller gets its own text's vector.
func TestBatcher_CoalescesAndKeepsResults(t *testing.T) {
	h, _ := NewHash(64)
	inner := &countingEmbedder{inner: h}
	b := NewBatcher(inner, 2)
	defer b.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			text := fmt.Sprintf("text number %d", i)
			p := memory.PurposeDocument
			if i%3 == 0 {
				p = memory.PurposeQuery
			}
			got, err := b.Embed(context.Background(), []string{text}, p)
			if err != nil {
				errs <- err
				return
			}
			want, _ := h.Embed(context.Background(), []string{text}, p)
			if cos(got[0], want[0]) < 0.9999 {
				errs <- fmt.Errorf("caller %d got another text's vector", i)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if c := inner.calls.Load(); c >= 64 || inner.texts.Load() != 64 {
		t.Errorf("%d model calls for 64 concurrent texts (%d texts)", c, inner.texts.Load())
	}
}

func TestBatcher_CancelledCaller(t *testing.T) {
	h, _ := NewHash(16)
	b := NewBatcher(h, 1)
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Embed(ctx, []string{"x"}, memory.PurposeDocument); err == nil {
		t.Error("a cancelled call succeeded")
	}
	if v, err := b.Embed(context.Background(), []string{"x"}, memory.PurposeDocument); err != nil || len(v) != 1 {
		t.Errorf("after a cancel: %v %v", v, err)
	}
}
