package vector

import (
	"container/heap"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"hyatlas/backend/memory"
)

// parallelMin is the number of vectors below which a search runs on the
// calling goroutine only.
const parallelMin = 4 * chunkSize

// Search returns the k live vectors most similar to query (cosine) among
// the partitions the filter selects, best first. It scans every selected
// vector: exact, no approximation.
func (x *Index) Search(ctx context.Context, query []float32, k int, f memory.VectorFilter) ([]memory.VectorHit, error) {
	if len(query) != x.dims {
		return nil, fmt.Errorf("query has %d dimensions, the index holds %d", len(query), x.dims)
	}
	if k <= 0 {
		return nil, nil
	}
	q, ok := normalised(query)
	if !ok {
		return nil, fmt.Errorf("query vector is zero or not finite")
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	// The agent's rows, and with WithShared the rows of no agent too.
	// ExactAgent with no agent: the rows of no agent only.
	filtered := f.Scope.AgentID != "" || f.Scope.ExactAgent
	agent, agentKnown := uint32(0), true
	shared, sharedKnown := x.agents[""]
	sharedKnown = sharedKnown && f.Scope.WithShared
	if filtered {
		agent, agentKnown = x.agents[f.Scope.AgentID]
		if !agentKnown && !sharedKnown {
			return nil, nil
		}
	}
	work, total := x.selectChunks(f)
	scan := func(tk *topK, c *chunk) {
		for i := range c.ids {
			if filtered && !(agentKnown && c.agents[i] == agent) && !(sharedKnown && c.agents[i] == shared) {
				continue
			}
			tk.offer(c.ids[i], dot(q, c.vecs[i*x.dims:(i+1)*x.dims]))
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if total < parallelMin || workers < 2 {
		// Like the parallel path: stop between chunks once ctx is done,
		// and return no hits with the error.
		tk := newTopK(k)
		for _, c := range work {
			if ctx.Err() != nil {
				break
			}
			scan(tk, c)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return tk.sorted(), nil
	}
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		results = make([]*topK, workers)
	)
	for w := range workers {
		results[w] = newTopK(k)
		wg.Add(1)
		go func(tk *topK) {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(work) || ctx.Err() != nil {
					return
				}
				scan(tk, work[i])
			}
		}(results[w])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	merged := newTopK(k)
	for _, tk := range results {
		for _, h := range tk.items {
			merged.offer(h.ID, h.Score)
		}
	}
	return merged.sorted(), nil
}

// selectChunks lists the chunks of the partitions that match the filter.
func (x *Index) selectChunks(f memory.VectorFilter) ([]*chunk, int) {
	var work []*chunk
	total := 0
	for key, p := range x.parts {
		if len(f.Layers) > 0 && !slices.Contains(f.Layers, key.layer) {
			continue
		}
		if !f.Scope.All() && !slices.Contains(f.Scope.UserIDs, key.user) {
			continue
		}
		work = append(work, p.chunks...)
		total += p.n
	}
	return work, total
}

// topK keeps the k best rows in a min-heap. It is offered slot keys and
// keeps each row once, with the best score of its whole vector and its
// sentences.
type topK struct {
	k     int
	items []memory.VectorHit
	at    map[string]int // row id -> position in items
}

func newTopK(k int) *topK {
	return &topK{k: k, items: make([]memory.VectorHit, 0, k), at: make(map[string]int, k)}
}

func (t *topK) offer(key string, score float64) {
	if len(t.items) >= t.k && score <= t.items[0].Score {
		return
	}
	id := rowID(key)
	if i, ok := t.at[id]; ok {
		if score > t.items[i].Score {
			t.items[i].Score = score
			heap.Fix(t, i)
		}
		return
	}
	if len(t.items) < t.k {
		heap.Push(t, memory.VectorHit{ID: id, Score: score})
		return
	}
	delete(t.at, t.items[0].ID)
	t.items[0] = memory.VectorHit{ID: id, Score: score}
	t.at[id] = 0
	heap.Fix(t, 0)
}

// sorted returns the hits best first; equal scores order by id.
func (t *topK) sorted() []memory.VectorHit {
	out := append([]memory.VectorHit(nil), t.items...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// heap.Interface, keeping at in step with items.
func (t *topK) Len() int           { return len(t.items) }
func (t *topK) Less(i, j int) bool { return t.items[i].Score < t.items[j].Score }
func (t *topK) Swap(i, j int) {
	t.items[i], t.items[j] = t.items[j], t.items[i]
	t.at[t.items[i].ID], t.at[t.items[j].ID] = i, j
}
func (t *topK) Push(x any) {
	h := x.(memory.VectorHit)
	t.at[h.ID] = len(t.items)
	t.items = append(t.items, h)
}
func (t *topK) Pop() any {
	h := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	delete(t.at, h.ID)
	return h
}
