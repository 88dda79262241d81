package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// consolidationRuns is the single-flight state of the slow path and what
// status reports about it since the process started.
type consolidationRuns struct {
	mu        sync.Mutex
	running   *passFlight
	passes    int
	last      *ConsolidationReport
	durations []time.Duration // recent successful calls
}

type passFlight struct {
	done   chan struct{}
	report ConsolidationReport
	err    error
}

// ConsolidationStatus is what status shows: Passes is -1 when the mode
// has no slow path.
type ConsolidationStatus struct {
	Passes int
	Last   *ConsolidationReport
}

// HasSlowPath reports whether this service consolidates (ultra with a
// consolidator and a place to keep clusters).
func (s *Service) HasSlowPath() bool {
	return s.cfg.Mode == ModeUltra && s.consolidator != nil && s.cstore != nil
}

// ConsolidationStatus reports the passes run since start and the last one.
func (s *Service) ConsolidationStatus() ConsolidationStatus {
	if !s.HasSlowPath() {
		return ConsolidationStatus{Passes: -1}
	}
	s.consol.mu.Lock()
	defer s.consol.mu.Unlock()
	st := ConsolidationStatus{Passes: s.consol.passes}
	if s.consol.last != nil {
		r := *s.consol.last
		st.Last = &r
	}
	return st
}

// Consolidate runs one pass now, or, when one is running, waits for it
// and returns its report (single flight). ctx bounds the wait and the
// pass this call starts.
func (s *Service) Consolidate(ctx context.Context) (ConsolidationReport, error) {
	if !s.HasSlowPath() {
		return ConsolidationReport{}, Errorf(EUNAVAILABLE, "consolidation runs only in ultra mode with an extraction endpoint (mode is %s)", s.cfg.Mode)
	}
	s.consol.mu.Lock()
	f := s.consol.running
	if f == nil {
		f = &passFlight{done: make(chan struct{})}
		s.consol.running = f
		s.consol.mu.Unlock()
		f.report, f.err = s.runPass(ctx)
		s.consol.mu.Lock()
		s.consol.running = nil
		if f.err == nil {
			s.consol.passes++
			r := f.report
			s.consol.last = &r
		}
		s.consol.mu.Unlock()
		close(f.done)
		return f.report, f.err
	}
	s.consol.mu.Unlock()
	select {
	case <-f.done:
		return f.report, f.err
	case <-ctx.Done():
		return ConsolidationReport{}, ctx.Err()
	}
}

// runPass is one consolidation pass over every owner.
func (s *Service) runPass(ctx context.Context) (ConsolidationReport, error) {
	start := s.now().UTC()
	rep := ConsolidationReport{StartedAt: start, Errors: []string{}}
	if s.cannotStore(ctx) {
		rep.Errors = append(rep.Errors, "nothing can be stored now ("+ErrorMessage(s.store.WriteFault())+"): no topic was sent to the model")
		return rep, nil
	}
	s.events.Publish(Event{Type: "consolidate.started", At: start})
	s.consolidating.Store(&ConsolidationProgress{Running: true})
	defer s.consolidating.Store(nil)
	gen := s.generation()
	owners, err := s.factsByOwner(ctx, true)
	if err != nil {
		return rep, err
	}
	var perOwner [][]*clusterJob
	states := map[string]*ownerState{}
	for _, o := range owners {
		rep.FactsIn += len(o.facts)
		st, due, skipped, err := s.prepareOwner(ctx, o, gen, start)
		if err != nil {
			return rep, err
		}
		states[o.key] = st
		perOwner = append(perOwner, due)
		for _, c := range skipped {
			rep.Errors = append(rep.Errors, fmt.Sprintf("owner %s: cluster %s skipped after %d failed passes in a row (last: %s); it is tried again when a fact joins it or a day after its last failure",
				o.key, c.ID, c.Fails, c.LastErr))
		}
		switch {
		case len(due) > 0:
			rep.OwnersRun++
		case len(skipped) > 0:
			rep.SkippedOwners++
			rep.SkippedOwnerKeys = append(rep.SkippedOwnerKeys, o.key)
		default:
			rep.OwnersUnchanged++
		}
	}
	jobs := takeTurns(perOwner)
	endpointDown := false // a call came back refused for any request: no more calls this pass
	if len(jobs) > 0 && s.llmState() != LLMOK {
		rep.Errors = append(rep.Errors, fmt.Sprintf("no call made: the extraction endpoint is %s", s.llmState()))
		rep.ClustersPending = len(jobs)
	} else if len(jobs) > 0 {
		s.consolidating.Store(&ConsolidationProgress{Running: true, Total: len(jobs)})
		endpointDown = s.runJobs(ctx, jobs, states, start, &rep)
	}
	if s.llmState() == LLMOK && !rep.ProviderDown && !endpointDown && s.generation() == gen {
		for _, o := range owners {
			s.crossTopic(ctx, o, states[o.key], &rep)
		}
	}
	if err := s.pruneRaw(ctx, start, &rep); err != nil {
		rep.Errors = append(rep.Errors, "raw retention: "+err.Error())
	}
	rep.DurationMS = s.now().Sub(start).Milliseconds()
	s.events.Publish(Event{Type: "consolidate.done", At: s.now().UTC(), Data: rep})
	return rep, nil
}

// takeTurns queues the owners' due clusters one owner after another, a
// cluster each turn, so a pass whose budget runs out has called some of
// every owner's, not all of the first owners' and none of the rest.
func takeTurns(perOwner [][]*clusterJob) []*clusterJob {
	var out []*clusterJob
	for turn := 0; ; turn++ {
		took := false
		for _, due := range perOwner {
			if turn < len(due) {
				out, took = append(out, due[turn]), true
			}
		}
		if !took {
			return out
		}
	}
}

// ownerState is an owner's clusters during a pass; mu guards saving them.
type ownerState struct {
	mu  sync.Mutex
	key string
	gen uint64 // the store generation the pass read the owner's facts in
	st  OwnerClusters
}

// saveCluster writes the owner's clusters after changing one with f,
// unless a restore replaced the store since the pass read them.
func (s *Service) saveCluster(ctx context.Context, own *ownerState, id string, f func(*Cluster)) error {
	own.mu.Lock()
	defer own.mu.Unlock()
	for i := range own.st.Clusters {
		if own.st.Clusters[i].ID == id {
			f(&own.st.Clusters[i])
		}
	}
	return s.writeGen(own.gen, func() error { return s.cstore.SaveClusters(ctx, own.key, own.st) })
}

// prepareOwner brings an owner's clusters up to date with their facts,
// saves them, and returns the due clusters as jobs and the resting ones.
func (s *Service) prepareOwner(ctx context.Context, o ownerFacts, gen uint64, now time.Time) (*ownerState, []*clusterJob, []Cluster, error) {
	st, carry, err := s.loadOwnerClusters(ctx, o, gen)
	if err != nil {
		return nil, nil, nil, err
	}
	live := make([]string, len(o.facts))
	byID := make(map[string]Memory, len(o.facts))
	for i, f := range o.facts {
		live[i], byID[f.ID] = f.ID, f
	}
	nearest := s.nearestFacts(ctx, o.scope)
	batch := max(s.cfg.Consolidate.Batch, 2)
	if r := s.cfg.Consolidate.Recluster; r > 0 && !st.ClusteredAt.IsZero() && now.Sub(st.ClusteredAt) >= r {
		recluster(&st, live, nearest, batch, now)
	} else {
		clusterFacts(&st, live, nearest, batch)
	}
	if st.ClusteredAt.IsZero() {
		st.ClusteredAt = now
	}
	carry.finish(&st)
	if err := s.writeGen(gen, func() error { return s.cstore.SaveClusters(ctx, o.key, st) }); err != nil {
		return nil, nil, nil, fmt.Errorf("save clusters of %s: %w", o.key, err)
	}
	if carry.clear != "" {
		if err := s.writeGen(gen, func() error { return s.cstore.SaveClusters(ctx, carry.clear, OwnerClusters{}) }); err != nil {
			return nil, nil, nil, fmt.Errorf("empty the old clusters of %s: %w", o.key, err)
		}
	}
	own := &ownerState{key: o.key, gen: gen, st: st}
	var jobs []*clusterJob
	var skipped []Cluster
	for _, c := range st.Clusters {
		due, skip := clusterDue(c, now)
		if skip {
			skipped = append(skipped, c)
		}
		if !due {
			continue
		}
		job := &clusterJob{owner: o.key, gen: gen, scope: o.scope, person: o.person, cluster: c, facts: map[string]Memory{}}
		for _, id := range c.Members {
			f := byID[id]
			job.facts[id] = f
			job.order = append(job.order, id)
		}
		sort.SliceStable(job.order, func(i, j int) bool {
			return job.facts[job.order[i]].CreatedAt.Before(job.facts[job.order[j]].CreatedAt)
		})
		job.rowOwner = job.facts[job.order[len(job.order)-1]].Owner
		jobs = append(jobs, job)
	}
	return own, jobs, skipped, nil
}

// nearestFacts ranks an owner's facts by similarity to one of them, using
// the vector index; a fact without a vector has no neighbours.
func (s *Service) nearestFacts(ctx context.Context, scope Scope) nearestFunc {
	return func(id string) []string {
		cur := s.acquire()
		defer cur.done()
		v, ok := cur.index.Vector(id)
		if !ok {
			return nil
		}
		hits, err := cur.index.Search(ctx, v, 8, VectorFilter{Layers: []Layer{LayerFact}, Scope: scope})
		if err != nil {
			return nil
		}
		var out []string
		for _, h := range hits {
			if h.ID != id && h.Score >= ClusterJoin {
				out = append(out, h.ID)
			}
		}
		return out
	}
}

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
// limit: any request would fail), or after two failed with none
// succeeding. The clusters not called stay due, uncharged, and count as
// pending. It returns whether a call came back ErrEndpointDown.
func (s *Service) runJobs(ctx context.Context, jobs []*clusterJob, states map[string]*ownerState, start time.Time, rep *ConsolidationReport) bool {
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
	endpointDown := func() bool { return downErr != nil || (len(failed) >= 2 && succeeded == 0) } // under mu
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
				if endpointDown() {
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
		case downErr != nil:
			why = "the endpoint refused a call as it would any (no connection, the key, the account, a rate limit)"
		case endpointDown():
			why = "the first calls all failed"
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
