package engine

import (
	"context"
	"time"

	"hyatlas/backend/memory"
)

// consolidateStartDelay is how long a start with consolidation work due
// waits before its first pass (extraction catch-up goes first). A
// variable only so a test can shorten it before opening an engine.
var consolidateStartDelay = 30 * time.Second

// consolidator is what the Service gets for the slow path: nil outside
// ultra or without an endpoint.
func (e *Engine) consolidator() memory.Consolidator {
	if e.Config.Mode != memory.ModeUltra || e.x.client == nil {
		return nil
	}
	return e.x.memoryExtractor().(extractor)
}

// consolidateLoop runs the slow path on its schedule: a pass every
// HYATLAS_CONSOLIDATE_EVERY, or every HYATLAS_CONSOLIDATE_CATCHUP while
// clusters are still due. A start with work due begins with a pass.
// pausedRecheck is how often a scheduled pass held by a pause looks again.
const pausedRecheck = time.Minute

func (e *Engine) consolidateLoop(ctx context.Context) {
	cfg := e.Config.Consolidate
	wait := cfg.Every
	if due, err := e.Memory.ConsolidationDue(ctx); err != nil {
		e.log.Warn("could not tell whether consolidation is due", "err", err)
	} else if due {
		wait = consolidateStartDelay
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if e.x.paused.Load() {
			timer.Reset(pausedRecheck) // paused: the scheduled pass waits for the resume
			continue
		}
		rep, err := e.Memory.ConsolidateScheduled(ctx) // a pause during the pass stops its calls too
		wait = cfg.Every
		switch {
		case err != nil && ctx.Err() == nil:
			e.log.Error("consolidation pass failed; it runs again later", "err", err, "retry_in", cfg.Catchup)
			wait = cfg.Catchup
		case err == nil:
			e.log.Info("consolidation pass", "clusters_run", rep.ClustersRun, "clusters_pending", rep.ClustersPending,
				"merged", rep.Merged, "dropped", rep.Dropped, "schemas", rep.Schemas, "edges", rep.Edges,
				"errors", len(rep.Errors), "took_ms", rep.DurationMS)
			if rep.ClustersPending > 0 {
				wait = cfg.Catchup
			}
		}
		timer.Reset(wait)
	}
}

// Digest runs a consolidation pass now (or joins the one running) in the
// engine's background, detached from the caller: a client that hangs up
// does not stop the pass. It returns the pass's report, or ctx's error
// when the caller stops waiting.
func (e *Engine) Digest(ctx context.Context) (memory.ConsolidationReport, error) {
	type result struct {
		rep memory.ConsolidationReport
		err error
	}
	done := make(chan result, 1)
	if !e.background(func(bg context.Context) {
		rep, err := e.Memory.Consolidate(bg)
		done <- result{rep, err}
	}) {
		return memory.ConsolidationReport{}, memory.Errorf(memory.EUNAVAILABLE, "the engine is shutting down")
	}
	select {
	case r := <-done:
		return r.rep, r.err
	case <-ctx.Done():
		return memory.ConsolidationReport{}, ctx.Err()
	}
}
