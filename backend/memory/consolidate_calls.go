package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// callResult is how one cluster's call went.
type callResult struct {
	job *clusterJob
	err error
}

// runJobs calls the due clusters, Parallel at a time, starting none when
// less of the budget is left than a call is expected to take. Each
// success is saved at once; failures are charged at the end, unless the
// provider was down (two or more failed and none succeeded).
//
// No call starts once the endpoint is seen to be down: after a call came
// back ErrEndpointDown (no connection, the key, the account, a rate
// limit: any request would fail), or after two went unanswered (a
// timeout, a 5xx) with none succeeding. A reply the model did give but
// that cannot be read or was refused is the topic's own, so the pass goes
// on past it: two bad topics first in the queue must not keep the others
// from ever being called. Nor does one start while held() says the pass is held (a
// scheduled pass while extraction is paused). The clusters not called
// stay due, uncharged, and count as pending. It returns whether a call
// came back ErrEndpointDown.
func (s *Service) runJobs(ctx context.Context, jobs []*clusterJob, states map[string]*ownerState, start time.Time,
	held func() bool, rep *ConsolidationReport) bool {
	deadline := start.Add(s.cfg.Consolidate.Budget)
	work := make(chan *clusterJob, len(jobs))
	for _, job := range jobs {
		work <- job
	}
	close(work)
	var mu sync.Mutex
	var failed []callResult
	var downErr error // the first ErrEndpointDown a call came back with
	succeeded, done, started := 0, 0, 0
	paused := false
	// unanswered counts calls failed as an endpoint fails (a timeout, a
	// 5xx), not by a reply of their own.
	unanswered := 0
	endpointDown := func() bool { return downErr != nil || unanswered >= 2 && succeeded == 0 } // under mu
	var wg sync.WaitGroup
	for range max(1, min(s.cfg.Consolidate.Parallel, 4)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range work {
				// The budget is checked as each call starts, not as it queues.
				// A restore since the pass read the facts leaves the rest
				// for the next pass, on the restored data.
				if ctx.Err() != nil || s.now().Add(s.callEstimate()).After(deadline) || s.generation() != job.gen {
					continue
				}
				mu.Lock()
				if held() {
					paused = true
				}
				if paused || endpointDown() {
					mu.Unlock()
					continue
				}
				started++
				mu.Unlock()
				out, err := s.runCluster(ctx, job, states[job.owner])
				mu.Lock()
				done++
				if err != nil {
					failed = append(failed, callResult{job, err})
					if errors.Is(err, ErrEndpointDown) && downErr == nil {
						downErr = err
					}
					if !errors.Is(err, ErrUnparseable) && !errors.Is(err, ErrRejected) {
						unanswered++
					}
				} else {
					succeeded++
					rep.ClustersRun++
					rep.Merged += out.merged
					rep.Dropped += out.dropped
					rep.Schemas += out.schemas
					rep.Edges += out.edges
					rep.Arc += out.arc
					rep.ArcWritten = rep.Arc > 0
					rep.Refused += out.refused
					rep.Errors = append(rep.Errors, out.errs...)
				}
				s.events.Publish(Event{Type: "consolidate.progress", At: s.now().UTC(), Data: map[string]any{
					"done": done, "total": len(jobs), "cluster": job.cluster.ID, "ok": err == nil}})
				s.consolidating.Store(&ConsolidationProgress{Running: true, Done: done, Total: len(jobs)})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.ClustersPending = len(jobs) - started + len(failed)
	if started < len(jobs) {
		why := "the pass's time budget ran out"
		switch {
		case len(jobs) > 0 && s.generation() != jobs[0].gen:
			why = "a snapshot was restored during the pass"
		case paused:
			why = "extraction was paused"
		case downErr != nil:
			why = "the endpoint refused a call as it would any (no connection, the key, the account, a rate limit)"
		case endpointDown():
			why = "the first calls went unanswered (timeouts or server errors)"
		}
		rep.Errors = append(rep.Errors, fmt.Sprintf("%d clusters left for the next pass: %s", len(jobs)-started, why))
	}
	rep.ProviderDown = len(failed) >= 2 && succeeded == 0
	for _, f := range failed {
		rep.Errors = append(rep.Errors, fmt.Sprintf("owner %s: cluster %s: %v", f.job.owner, f.job.cluster.ID, f.err))
		// An endpoint that is down (no connection, the key, the account, a
		// rate limit: any request would have failed) is not the topic's
		// doing, even when it was the pass's only call; a failure of this
		// request (a timeout, a 5xx, an unreadable or refused reply) is.
		if rep.ProviderDown || errors.Is(f.err, ErrStoreReplaced) || errors.Is(f.err, ErrEndpointDown) || ctx.Err() != nil {
			continue
		}
		now := s.now().UTC()
		msg := clipText(f.err.Error(), maxReasonLen) // kept short, so the export of the topics imports
		if err := s.saveCluster(ctx, states[f.job.owner], f.job.cluster.ID, func(c *Cluster) {
			c.Fails, c.FailedAt, c.LastErr = c.Fails+1, now, msg
		}); err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("save cluster %s: %v", f.job.cluster.ID, err))
		}
	}
	if rep.ProviderDown {
		rep.Errors = append(rep.Errors, "every call failed: the provider is taken to be down and no cluster is charged")
	}
	return downErr != nil
}

// runCluster makes one cluster's call, applies the plan and saves the
// cluster's progress.
func (s *Service) runCluster(ctx context.Context, job *clusterJob, own *ownerState) (clusterOutcome, error) {
	req, err := s.clusterRequest(ctx, job)
	if err != nil {
		return clusterOutcome{}, err
	}
	began := s.now()
	plan, err := s.consolidator.Consolidate(ctx, req)
	if err != nil {
		return clusterOutcome{}, err
	}
	s.noteCall(s.now().Sub(began))
	out, err := s.applyPlan(ctx, job, plan)
	if err != nil {
		return out, err
	}
	now := s.now().UTC()
	if err := s.saveCluster(ctx, own, job.cluster.ID, func(c *Cluster) {
		c.Dirty, c.OKAt, c.Fails, c.LastErr = false, now, 0, ""
		c.Members = append(c.Members, out.joined...)
	}); err != nil {
		out.errs = append(out.errs, fmt.Sprintf("save cluster %s: %v", job.cluster.ID, err))
	}
	return out, nil
}

// clusterRequest builds what a cluster's call is shown.
func (s *Service) clusterRequest(ctx context.Context, job *clusterJob) (ConsolidateRequest, error) {
	req := ConsolidateRequest{Today: s.now().In(s.cfg.Extraction.Location), Graph: s.cfg.Consolidate.Graph}
	for _, id := range job.order {
		f := job.facts[id]
		req.Facts = append(req.Facts, ClusterFact{ID: f.ID, Text: truncateText(f.Content, consolidateText),
			EventAt: f.EventAt, Turns: f.SourceIDs})
	}
	schemas, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerSchema}, Scope: job.scope, Limit: maxClusterSchemas})
	if err != nil {
		return req, fmt.Errorf("read schemas: %w", err)
	}
	for _, m := range schemas {
		req.Schemas = append(req.Schemas, ShownSchema{ID: m.ID, Text: truncateText(m.Content, consolidateSchema)})
	}
	if req.Graph {
		if req.Arc, err = s.currentArc(ctx, job.scope); err != nil {
			return req, fmt.Errorf("read arc: %w", err)
		}
	}
	return req, nil
}

// truncateText keeps at most n runes of s.
func truncateText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// noteCall keeps a successful call's duration for the estimate.
func (s *Service) noteCall(d time.Duration) {
	s.consol.mu.Lock()
	defer s.consol.mu.Unlock()
	s.consol.durations = append(s.consol.durations, d)
	if len(s.consol.durations) > recentCalls {
		s.consol.durations = s.consol.durations[1:]
	}
}

// callEstimate is how long the next call is expected to take: 1.25 times
// the median of recent successful calls, at least minCallEstimate.
func (s *Service) callEstimate() time.Duration {
	s.consol.mu.Lock()
	d := slices.Clone(s.consol.durations)
	s.consol.mu.Unlock()
	if len(d) == 0 {
		return minCallEstimate
	}
	slices.Sort(d)
	return max(minCallEstimate, d[len(d)/2]*5/4)
}
