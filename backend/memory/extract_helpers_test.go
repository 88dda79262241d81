package memory_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// scriptedExtractor answers extraction calls from test functions and
// keeps every request it was shown.
type scriptedExtractor struct {
	mu        sync.Mutex
	extract   func(memory.ExtractRequest) (memory.ExtractPlan, error)
	summarize func(memory.SummaryRequest) (string, error)
	reconcile func([]memory.ReconcilePair) ([]memory.ReconcileDecision, error)
	requests  []memory.ExtractRequest
	summaries []memory.SummaryRequest
}

func (x *scriptedExtractor) Extract(_ context.Context, req memory.ExtractRequest) (memory.ExtractPlan, error) {
	x.mu.Lock()
	x.requests = append(x.requests, req)
	f := x.extract
	x.mu.Unlock()
	if f == nil {
		return memory.ExtractPlan{}, nil
	}
	return f(req)
}

func (x *scriptedExtractor) Summarize(_ context.Context, req memory.SummaryRequest) (string, error) {
	x.mu.Lock()
	x.summaries = append(x.summaries, req)
	f := x.summarize
	x.mu.Unlock()
	if f == nil {
		return "", nil
	}
	return f(req)
}

func (x *scriptedExtractor) Reconcile(_ context.Context, pairs []memory.ReconcilePair) ([]memory.ReconcileDecision, error) {
	x.mu.Lock()
	f := x.reconcile
	x.mu.Unlock()
	if f == nil {
		return nil, nil
	}
	return f(pairs)
}

func (x *scriptedExtractor) set(f func(memory.ExtractRequest) (memory.ExtractPlan, error)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.extract = f
}

func (x *scriptedExtractor) last() memory.ExtractRequest {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.requests[len(x.requests)-1]
}

// plan returns a function answering every call with p.
func plan(p memory.ExtractPlan) func(memory.ExtractRequest) (memory.ExtractPlan, error) {
	return func(memory.ExtractRequest) (memory.ExtractPlan, error) { return p, nil }
}

// extractCfg is pro mode, blocking extraction, with the defaults of the
// configuration except RelatedMin, lowered for the lexical test embedder.
func extractCfg() memory.Config {
	return memory.Config{Mode: memory.ModePro, Extraction: memory.ExtractionConfig{
		Sync: true, DedupeScore: 0.92, RelatedMin: 0.3, EpisodeGap: 30 * time.Minute,
		NowEvery: 15 * time.Minute, Location: time.UTC,
	}}
}

// newExtractRig is a rig with a scripted extractor whose endpoint is ready.
func newExtractRig(t *testing.T, cfg memory.Config) (*rig, *scriptedExtractor) {
	t.Helper()
	x := &scriptedExtractor{}
	r := newRig(t, cfg, func(d *memory.Deps) {
		d.Extractor = x
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
	})
	return r, x
}

// write adds text for user u and returns the raw row and its status.
func (r *rig) write(t *testing.T, text, u string) (memory.Memory, memory.ExtractionStatus) {
	t.Helper()
	res, err := r.svc.Add(context.Background(), memory.AddInput{Text: text, Owner: memory.Owner{UserID: u}})
	if err != nil {
		t.Fatalf("add %q: %v", text, err)
	}
	return res.Memory, res.ExtractionStatus
}

// live lists the live rows of a layer for user u, newest first.
func (r *rig) live(t *testing.T, layer memory.Layer, u string) []memory.Memory {
	t.Helper()
	rows, _, err := r.store.List(context.Background(), memory.ListFilter{Layers: []memory.Layer{layer},
		Scope: memory.Scope{UserIDs: []string{u}}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func (r *rig) get(t *testing.T, id string) memory.Memory {
	t.Helper()
	m, err := r.store.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
