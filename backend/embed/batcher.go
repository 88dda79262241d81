package embed

import (
	"context"
	"sync"

	"hyatlas/backend/memory"
)

// Batcher coalesces Embed calls that arrive together into shared model
// runs: each of its workers takes the oldest waiting call and every other
// call already waiting (up to maxBatch texts of the same purpose), runs
// them as one batch and hands each caller its vectors. An idle batcher
// adds no delay: a lone call runs at once. Calls of maxBatch texts or more
// bypass the queue.
type Batcher struct {
	inner memory.Embedder
	reqs  chan *batchReq
	stop  chan struct{}
	wg    sync.WaitGroup
}

type batchReq struct {
	ctx     context.Context
	texts   []string
	purpose memory.EmbedPurpose
	done    chan batchRes
}

type batchRes struct {
	vecs [][]float32
	err  error
}

// NewBatcher wraps inner with workers goroutines (at least 1).
func NewBatcher(inner memory.Embedder, workers int) *Batcher {
	b := &Batcher{inner: inner, reqs: make(chan *batchReq, 1024), stop: make(chan struct{})}
	for range max(1, workers) {
		b.wg.Add(1)
		go b.work()
	}
	return b
}

// Info describes the wrapped embedder.
func (b *Batcher) Info() memory.EmbedderInfo { return b.inner.Info() }

// Inner is the wrapped embedder.
func (b *Batcher) Inner() memory.Embedder { return b.inner }

// Embed implements memory.Embedder.
func (b *Batcher) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	if len(texts) >= maxBatch || len(texts) == 0 {
		return b.inner.Embed(ctx, texts, p)
	}
	r := &batchReq{ctx: ctx, texts: texts, purpose: p, done: make(chan batchRes, 1)}
	select {
	case b.reqs <- r:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-b.stop:
		return nil, memory.Errorf(memory.EUNAVAILABLE, "the embedder is closed")
	}
	select {
	case res := <-r.done:
		return res.vecs, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close stops the workers once the queued calls are answered.
func (b *Batcher) Close() {
	close(b.stop)
	b.wg.Wait()
}

func (b *Batcher) work() {
	defer b.wg.Done()
	for {
		var first *batchReq
		select {
		case first = <-b.reqs:
		case <-b.stop:
			return
		}
		group, n := []*batchReq{first}, len(first.texts)
	drain:
		for n < maxBatch {
			select {
			case r := <-b.reqs:
				group, n = append(group, r), n+len(r.texts)
			default:
				break drain
			}
		}
		for _, p := range []memory.EmbedPurpose{memory.PurposeDocument, memory.PurposeQuery} {
			b.run(group, p)
		}
	}
}

// run embeds the group's calls of one purpose in one call to inner.
func (b *Batcher) run(group []*batchReq, p memory.EmbedPurpose) {
	var mine []*batchReq
	var texts []string
	for _, r := range group {
		if r.purpose == p && r.ctx.Err() == nil {
			mine = append(mine, r)
			texts = append(texts, r.texts...)
		} else if r.purpose == p {
			r.done <- batchRes{err: r.ctx.Err()}
		}
	}
	if len(mine) == 0 {
		return
	}
	vecs, err := b.inner.Embed(context.Background(), texts, p)
	for _, r := range mine {
		if err != nil {
			r.done <- batchRes{err: err}
			continue
		}
		r.done <- batchRes{vecs: vecs[:len(r.texts):len(r.texts)]}
		vecs = vecs[len(r.texts):]
	}
}

var _ memory.Embedder = (*Batcher)(nil)
