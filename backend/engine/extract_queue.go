package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"hyatlas/backend/memory"
)

// housekeepEvery is how often ended episodes are summarised and stale Now
// pages rebuilt.
const housekeepEvery = time.Minute

// extractQueue hands raw row ids to the extraction workers. It is only a
// hint of what to do first: every queued row is already pending in the
// store, so dropping the queue (after a provider error, or at exit) loses
// nothing; the catch-up loop finds those rows again.
type extractQueue struct {
	mu      sync.Mutex
	ids     []string
	queued  map[string]bool
	working int
	wake    chan struct{}
}

func newExtractQueue() *extractQueue {
	return &extractQueue{queued: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// push queues ids not already queued. It never blocks.
func (q *extractQueue) push(ids ...string) {
	q.mu.Lock()
	for _, id := range ids {
		if !q.queued[id] {
			q.queued[id] = true
			q.ids = append(q.ids, id)
		}
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns the next id, waiting until there is one or ctx ends.
func (q *extractQueue) take(ctx context.Context) (string, bool) {
	for {
		q.mu.Lock()
		if len(q.ids) > 0 {
			id := q.ids[0]
			q.ids = q.ids[1:]
			delete(q.queued, id)
			q.working++
			more := len(q.ids) > 0
			q.mu.Unlock()
			if more { // pass the wake-up on to another worker
				select {
				case q.wake <- struct{}{}:
				default:
				}
			}
			return id, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return "", false
		case <-q.wake:
		}
	}
}

func (q *extractQueue) done() {
	q.mu.Lock()
	q.working--
	q.mu.Unlock()
}

// drop forgets every queued id (they stay pending in the store).
func (q *extractQueue) drop() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(q.ids)
	q.ids, q.queued = nil, map[string]bool{}
	return n
}

// idle reports whether nothing is queued or being extracted.
func (q *extractQueue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.ids) == 0 && q.working == 0
}

// extractWorker extracts queued rows one at a time. A provider error drops
// the rest of the queue: the endpoint is down, and the catch-up loop will
// try again later rather than hammering it row by row. Unless the key
// changed during the call: the refusal may be the old key's, and the new
// one has queued every waiting row again, so the queue stays and the row
// goes back in it.
func (e *Engine) extractWorker(ctx context.Context) {
	for {
		if !e.waitUnpaused(ctx) {
			return
		}
		id, ok := e.x.queue.take(ctx)
		if !ok {
			return
		}
		if e.x.paused.Load() { // paused while this worker waited for a row
			e.x.queue.done()
			e.x.queue.push(id)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, e.Config.LLM.Timeout+30*time.Second)
		gen := e.x.keyGeneration()
		_, err := e.Memory.ExtractOne(cctx, id)
		cancel()
		e.x.queue.done()
		switch {
		case err == nil, ctx.Err() != nil:
		case errors.Is(err, memory.ErrProvider) && e.x.keyGeneration() != gen:
			e.x.queue.push(id)
		case errors.Is(err, memory.ErrProvider):
			if n := e.x.queue.drop(); n > 0 {
				e.log.Warn("extraction endpoint unavailable; queued rows wait for the catch-up loop",
					"waiting", n+1, "err", err)
			}
		default:
			e.log.Error("extraction failed", "id", id, "err", err)
		}
	}
}

// PauseExtraction holds (true) or resumes (false) extraction. While
// held, writes are stored and queued as always (one that would wait for
// its extraction answers pending); nothing is sent to the endpoint on its
// own (no extraction, episode summary, Now page or scheduled consolidation
// pass) until it is resumed. What the person asks for themselves (a
// connection test, Run a pass now) still runs. A restart resumes: only the
// tray can pause and resume, and a start without it (hyatlas serve, no
// tray host) must not be held for good.
func (e *Engine) PauseExtraction(paused bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.x.paused.Swap(paused) == paused {
		return
	}
	if !paused {
		close(e.x.resume)
		e.x.resume = make(chan struct{})
		e.x.kickCatchUp()
	}
	e.log.Info("background extraction", "paused", paused)
	e.publish("extraction.paused", map[string]bool{"paused": paused})
}

// ExtractionPaused reports whether background extraction is held.
func (e *Engine) ExtractionPaused() bool { return e.x.paused.Load() }

// waitUnpaused returns once extraction is not paused (true) or ctx ends.
func (e *Engine) waitUnpaused(ctx context.Context) bool {
	for e.x.paused.Load() {
		e.mu.Lock()
		ch := e.x.resume
		e.mu.Unlock()
		if !e.x.paused.Load() {
			break
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
	return ctx.Err() == nil
}

// CatchUpNow runs one catch-up pass and hands any backlog to the workers.
func (e *Engine) CatchUpNow(ctx context.Context) (memory.CatchUpResult, error) {
	e.x.refreshKey(ctx, 10*time.Second)
	res, err := e.Memory.CatchUp(ctx, e.Config.LLM.CatchupMaxAge)
	if err != nil {
		return res, err
	}
	if len(res.Backlog) > 0 {
		e.x.queue.push(res.Backlog...)
	}
	if res.Tried > 0 {
		e.log.Info("catch-up run", "tried", res.Tried, "done", res.Done, "failed", res.Failed,
			"backlog", len(res.Backlog), "stopped", errString(res.Stopped))
	}
	return res, nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ExtractionIdle reports whether no extraction is queued or running (for
// tests and for a clean exit).
func (e *Engine) ExtractionIdle() bool { return e.x.queue == nil || e.x.queue.idle() }

// catchUpLoop runs a catch-up pass every HYATLAS_CATCHUP_EVERY and
// whenever a key arrives. At start it queues every pending row inside the
// age window, whatever its age: nothing is in flight after a restart, so
// rows a crash interrupted are extracted at once.
func (e *Engine) catchUpLoop(ctx context.Context) {
	if ids, err := e.Memory.Unfinished(ctx, e.Config.LLM.CatchupMaxAge); err != nil {
		e.log.Error("could not list rows waiting for extraction", "err", err)
	} else if len(ids) > 0 && e.x.state() == memory.LLMOK {
		e.log.Info("resuming extraction", "rows", len(ids))
		e.x.queue.push(ids...)
	}
	var tick <-chan time.Time
	if every := e.Config.LLM.CatchupEvery; every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	refresh := time.NewTicker(keyRefresh)
	defer refresh.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-refresh.C:
			e.x.refreshKey(ctx, 10*time.Second) // a key file that appeared queues its writes
			continue
		case <-tick:
		case <-e.x.kick:
		}
		if e.x.paused.Load() {
			continue
		}
		if _, err := e.CatchUpNow(ctx); err != nil && ctx.Err() == nil {
			e.log.Error("catch-up run failed", "err", err)
		}
	}
}

// housekeepLoop summarises ended episodes and rebuilds stale Now pages.
func (e *Engine) housekeepLoop(ctx context.Context) {
	t := time.NewTicker(housekeepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if e.x.paused.Load() {
			continue // paused: no summary or Now page is asked for
		}
		res, err := e.Memory.Housekeep(ctx)
		if err != nil && ctx.Err() == nil {
			e.log.Warn("episode and Now page pass stopped; it will run again", "err", err)
		}
		if res.Episodes+res.NowPages > 0 {
			e.log.Info("episodes and Now pages", "episodes", res.Episodes, "now_pages", res.NowPages)
		}
	}
}
