package memory_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// scriptedConsolidator answers consolidation calls from test functions
// and keeps every request.
type scriptedConsolidator struct {
	mu       sync.Mutex
	plan     func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error)
	cross    func(memory.CrossSchemaRequest) ([]memory.PlannedSchema, error)
	requests []memory.ConsolidateRequest
	crosses  []memory.CrossSchemaRequest
}

func (c *scriptedConsolidator) Consolidate(_ context.Context, req memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
	c.mu.Lock()
	c.requests = append(c.requests, req)
	f := c.plan
	c.mu.Unlock()
	if f == nil {
		return memory.ConsolidatePlan{}, nil
	}
	return f(req)
}

func (c *scriptedConsolidator) CrossSchemas(_ context.Context, req memory.CrossSchemaRequest) ([]memory.PlannedSchema, error) {
	c.mu.Lock()
	c.crosses = append(c.crosses, req)
	f := c.cross
	c.mu.Unlock()
	if f == nil {
		return nil, nil
	}
	return f(req)
}

func (c *scriptedConsolidator) set(f func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.plan = f
}

func (c *scriptedConsolidator) calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.requests)
}

// reply answers every call with p.
func reply(p memory.ConsolidatePlan) func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
	return func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) { return p, nil }
}

// consolidateCfg is ultra with the slow path's defaults (cross-topic off
// unless a test turns it on).
func consolidateCfg() memory.Config {
	cfg := extractCfg()
	cfg.Mode = memory.ModeUltra
	cfg.Consolidate = memory.ConsolidateConfig{Batch: 50, Parallel: 2, Budget: 10 * time.Minute, Graph: true}
	return cfg
}

// newConsolidateRig is an ultra rig with a scripted consolidator whose
// endpoint is ready; opts may change the dependencies further.
func newConsolidateRig(t *testing.T, cfg memory.Config, opts ...func(*memory.Deps)) (*rig, *scriptedConsolidator) {
	t.Helper()
	c := &scriptedConsolidator{}
	r := newRig(t, cfg, append([]func(*memory.Deps){func(d *memory.Deps) {
		d.Extractor = &scriptedExtractor{}
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
		d.Consolidator = c
		d.GraphStore = d.ExtractStore.(memory.GraphStore)
		d.ConsolidationStore = d.ExtractStore.(memory.ConsolidationStore)
	}}, opts...)...)
	return r, c
}

// turn stores a raw turn (already extracted) for user u.
func (r *rig) turn(t *testing.T, text, u string) memory.Memory {
	t.Helper()
	return r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: text, Owner: memory.Owner{UserID: u},
		Extraction: memory.ExtractDone})
}

// fact stores an L3 fact extracted from turn src, dated at.
func (r *rig) fact(t *testing.T, text, u string, src memory.Memory, at time.Time) memory.Memory {
	t.Helper()
	return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: text, Owner: memory.Owner{UserID: u},
		Category: memory.LabelProjectState, SourceIDs: []string{src.ID}, EventAt: at})
}

// consolidate runs a pass and fails the test on error.
func (r *rig) consolidate(t *testing.T) memory.ConsolidationReport {
	t.Helper()
	rep, err := r.svc.Consolidate(context.Background())
	if err != nil {
		t.Fatalf("consolidate: %v", err)
	}
	return rep
}

// advance moves the rig's clock forward.
func (r *rig) advance(d time.Duration) {
	r.clock.mu.Lock()
	defer r.clock.mu.Unlock()
	r.clock.now = r.clock.now.Add(d)
}

func date(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}
