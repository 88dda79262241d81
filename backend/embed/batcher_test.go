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

// TestBatcher_CloseAnswersEveryCaller: callers queued at Close get an
// answer (their vectors or an error), never a hang; later calls fail.
func TestBatcher_CloseAnswersEveryCaller(t *testing.T) {
	h, _ := NewHash(16)
	b := NewBatcher(&countingEmbedder{inner: h}, 1)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, _ = b.Embed(context.Background(), []string{fmt.Sprint("text ", i)}, memory.PurposeDocument)
		}(i)
	}
	b.Close()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("callers still waiting after Close")
	}
	if _, err := b.Embed(context.Background(), []string{"late"}, memory.PurposeDocument); memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Errorf("a call after Close: %v", err)
	}
}

// TestBatcher_BigCallUsesEveryWorker: a call of 128 texts is split across
// the workers and comes back in order.
func TestBatcher_BigCallUsesEveryWorker(t *testing.T) {
	h, _ := NewHash(16)
	inner := &countingEmbedder{inner: h}
	b := NewBatcher(inner, 2)
	defer b.Close()
	texts := make([]string, 128)
	for i := range texts {
		texts[i] = fmt.Sprintf("text number %d", i)
	}
	got, err := b.Embed(context.Background(), texts, memory.PurposeDocument)
	if err != nil || len(got) != 128 {
		t.Fatalf("%d vectors, %v", len(got), err)
	}
	want, _ := h.Embed(context.Background(), texts, memory.PurposeDocument)
	for i := range want {
		if cos(got[i], want[i]) < 0.9999 {
			t.Fatalf("vector %d is out of order", i)
		}
	}
	if inner.calls.Load() < 2 {
		t.Errorf("one model call for a split batch")
	}
}
