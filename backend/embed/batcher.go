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
// adds no delay: a lone call runs at once. A call of maxBatch texts or more
// is split across the workers.
type Batcher struct {
	inner   memory.Embedder
	workers int
	reqs    chan *batchReq
	stop    chan struct{}
	wg      sync.WaitGroup

	closeMu sync.RWMutex // read-held while a call is queued or running
	closed  bool
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
	workers = max(1, workers)
	b := &Batcher{inner: inner, workers: workers, reqs: make(chan *batchReq, 1024), stop: make(chan struct{})}
	for range workers {
		b.wg.Add(1)
		go b.work()
	}
	return b
}

// Info describes the wrapped embedder.
func (b *Batcher) Info() memory.EmbedderInfo { return b.inner.Info() }

// Inner is the wrapped embedder.
func (b *Batcher) Inner() memory.Embedder { return b.inner }

// Embed implements memory.Embedder. A call of maxBatch texts or more is
// split across the workers, so that one big batch (a re-embedding step)
// still uses every core.
func (b *Batcher) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	b.closeMu.RLock()
	defer b.closeMu.RUnlock()
	if b.closed {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "the embedder is closed")
	}
	if len(texts) == 0 {
		return nil, ctx.Err()
	}
	size := len(texts)
	if size >= maxBatch {
		size = (len(texts) + b.workers - 1) / b.workers
	}
	var reqs []*batchReq
	for start := 0; start < len(texts); start += size {
		r := &batchReq{ctx: ctx, texts: texts[start:min(start+size, len(texts))], purpose: p, done: make(chan batchRes, 1)}
		select {
		case b.reqs <- r:
			reqs = append(reqs, r)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([][]float32, 0, len(texts))
	for _, r := range reqs {
		select {
		case res := <-r.done:
			if res.err != nil {
				return nil, res.err
			}
			out = append(out, res.vecs...)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// Close answers the calls still queued, waits for the workers, and makes
// later calls fail; it does not close the model under it.
func (b *Batcher) Close() {
	b.closeMu.Lock() // waits for calls in flight: they are answered first
	b.closed = true
	b.closeMu.Unlock()
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
