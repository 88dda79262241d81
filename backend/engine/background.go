package engine

import (
	"context"
	"log/slog"
	"time"

	"hyatlas/backend/memory"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
)

// reembedRetry is how long a failed re-embedding pass waits to run again.
const reembedRetry = time.Minute

// background runs f in a goroutine the engine waits for at Close; its
// context ends when the engine closes. After Close it runs nothing and
// returns false.
func (e *Engine) background(f func(context.Context)) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return false
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		f(e.ctx)
	}()
	return true
}

// decayEvery is how often neglected memories are faded (each fades at
// most once per HYATLAS_STRENGTH_DECAY_AFTER, so the run's frequency only
// sets how late a fade may come).
const decayEvery = time.Hour

// decayLoop fades neglected memories and compacts facts over the
// threshold: once a minute after the start, then hourly.
func (e *Engine) decayLoop(ctx context.Context) {
	timer := time.NewTimer(time.Minute)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if n, err := e.Memory.DecayStrength(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("fading neglected memories failed; it runs again in an hour", "err", err)
		} else if n > 0 {
			e.log.Info("neglected memories faded", "count", n)
		}
		if n, err := e.Memory.Compact(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("compaction failed; it runs again in an hour", "err", err)
		} else if n > 0 {
			e.log.Info("facts compacted (retired, restorable)", "count", n)
		}
		timer.Reset(decayEvery)
	}
}

// kickReembed asks the re-embedding loop for a pass.
func (e *Engine) kickReembed() {
	select {
	case e.reembedKick <- struct{}{}:
	default:
	}
}

// reembedLoop runs a re-embedding pass whenever asked (at start, after a
// switch of embedder) and again a minute after a pass that failed.
func (e *Engine) reembedLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.reembedKick:
		}
		err := e.Memory.Reembed(ctx)
		if err != nil && ctx.Err() == nil {
			e.log.Warn("re-embedding stopped; it will resume", "err", err, "retry_in", reembedRetry)
			time.AfterFunc(reembedRetry, e.kickReembed)
		}
	}
}

// switchEmbedder opens the embedder the configuration now asks for (after
// a model was installed or removed); if it differs from the one in use, it
// switches, the new index built from the vectors already saved for it, and
// a re-embedding pass gives the remaining rows their vectors. Switches run
// one at a time. The old model is closed once no call uses it any more.
func (e *Engine) switchEmbedder(ctx context.Context) error {
	e.switchMu.Lock()
	defer e.switchMu.Unlock()
	emb, closer, err := e.embedders.openEmbedder(ctx)
	if err != nil {
		return err
	}
	if emb.Info().ID == e.Memory.EmbedderInfo().ID {
		return closer.Close()
	}
	retire, err := e.Memory.SwitchEmbedder(ctx, emb, func(ctx context.Context) (memory.VectorIndex, error) {
		return buildIndex(ctx, e.store, emb, e.log)
	})
	if err != nil {
		_ = closer.Close()
		return err
	}
	e.mu.Lock()
	old := e.closer
	e.closer = closer
	e.mu.Unlock()
	e.background(func(context.Context) {
		retire()
		if old != nil {
			_ = old.Close()
		}
	})
	e.log.Info("embedder switched", "embedder", emb.Info().ID)
	e.publish("embedder.switched", emb.Info())
	e.kickReembed()
	return nil
}

// buildIndex loads the saved vectors of emb's model into a new index.
func buildIndex(ctx context.Context, st *store.Store, emb memory.Embedder, log *slog.Logger) (*vector.Index, error) {
	info := emb.Info()
	index := vector.New(info.Dims)
	skipped, err := loadIndex(ctx, st, index, info.ID, info.Dims)
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		log.Warn("saved vectors that cannot be indexed were dropped; the rows are kept", "rows", len(skipped))
	}
	return index, nil
}

func (e *Engine) publish(kind string, data any) {
	e.bus.Publish(memory.Event{Type: kind, At: time.Now().UTC(), Data: data})
}
