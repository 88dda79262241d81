package memory

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
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
	held   atomic.Bool // a pause kept the (scheduled) pass from a call
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
// pass this call starts. A pass asked for this way (hyatlas digest, Run a
// pass now) runs while extraction is paused: when the pass it waited for
// was a scheduled one a pause held back, it then runs one of its own.
func (s *Service) Consolidate(ctx context.Context) (ConsolidationReport, error) {
	return s.consolidate(ctx, false)
}

// ConsolidateScheduled runs a pass as the schedule does: as Consolidate,
// except that a pass it starts makes no call while extraction is paused,
// checked before each call (a pause during the pass stops it; the topics
// not called stay due, uncharged, and no cross-topic call is made).
func (s *Service) ConsolidateScheduled(ctx context.Context) (ConsolidationReport, error) {
	return s.consolidate(ctx, true)
}

func (s *Service) consolidate(ctx context.Context, scheduled bool) (ConsolidationReport, error) {
	if !s.HasSlowPath() {
		return ConsolidationReport{}, Errorf(EUNAVAILABLE, "consolidation runs only in ultra mode with an extraction endpoint (mode is %s)", s.cfg.Mode)
	}
	s.consol.mu.Lock()
	f := s.consol.running
	if f == nil {
		f = &passFlight{done: make(chan struct{})}
		s.consol.running = f
		s.consol.mu.Unlock()
		held := func() bool {
			h := scheduled && s.pausedNow()
			if h {
				f.held.Store(true)
			}
			return h
		}
		f.report, f.err = s.runPass(ctx, held)
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
	if passJoined != nil {
		passJoined()
	}
	select {
	case <-f.done:
		if !scheduled && f.held.Load() {
			return s.consolidate(ctx, false) // asked for: the pause does not hold it
		}
		return f.report, f.err
	case <-ctx.Done():
		return ConsolidationReport{}, ctx.Err()
	}
}

// runPass is one consolidation pass over every owner; it makes no call
// while held() says so (a scheduled pass while extraction is paused).
func (s *Service) runPass(ctx context.Context, held func() bool) (ConsolidationReport, error) {
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
		endpointDown = s.runJobs(ctx, jobs, states, start, held, &rep)
	}
	if s.llmState() == LLMOK && !rep.ProviderDown && !endpointDown && s.generation() == gen {
		for _, o := range owners {
			if held() {
				break
			}
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

// passJoined, when set (tests), runs when a call waits for the pass
// already running.
var passJoined func()
