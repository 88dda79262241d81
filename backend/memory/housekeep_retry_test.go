package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// summaryCalls counts the calls of one kind the scripted extractor was asked.
func (x *scriptedExtractor) summaryCalls(kind memory.SummaryKind) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, req := range x.summaries {
		if req.Kind == kind {
			n++
		}
	}
	return n
}

// A Now page call that fails leaves no page, and is still not asked again
// before NowEvery has passed since it went out: not on every pass, nor on
// every new fact.
func TestNow_FailedCallWaitsNowEvery(t *testing.T) {
	r, x := newExtractRig(t, extractCfg()) // NowEvery 15m
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user is moving house", Label: "project_state"}}}))
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		return "", fmt.Errorf("503 from endpoint: %w", memory.ErrProvider)
	}
	ctx := context.Background()
	r.write(t, "moving house next month", "u1")
	for i := range 5 {
		if i == 2 {
			r.write(t, "the removal van is booked", "u1") // a new fact marks the page again
		}
		_, _ = r.svc.Housekeep(ctx)
		r.advance(time.Minute)
	}
	if n := x.summaryCalls(memory.SummaryNow); n != 1 {
		t.Fatalf("%d Now page calls in 5 minutes of failures, want 1", n)
	}
	x.summarize = func(req memory.SummaryRequest) (string, error) { return "moving house", nil }
	r.advance(15 * time.Minute)
	if res, err := r.svc.Housekeep(ctx); err != nil || res.NowPages != 1 {
		t.Fatalf("after NowEvery: %+v, %v; want the page", res, err)
	}
	if n := x.summaryCalls(memory.SummaryNow); n != 2 {
		t.Fatalf("%d Now page calls, want 2", n)
	}
}

// failOnce is an embedder that fails once for a text holding trigger, as
// an embedding endpoint that times out.
type failOnce struct {
	memory.Embedder
	mu      sync.Mutex
	trigger string
	failed  bool
}

func (f *failOnce) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	f.mu.Lock()
	fail := !f.failed && slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, f.trigger) })
	f.failed = f.failed || fail
	f.mu.Unlock()
	if fail {
		return nil, errors.New("embedding endpoint timed out")
	}
	return f.Embedder.Embed(ctx, texts, p)
}

// newFailOnceRig is an extraction rig whose embedder fails once for a text
// holding trigger.
func newFailOnceRig(t *testing.T, cfg memory.Config, trigger string) (*rig, *scriptedExtractor) {
	t.Helper()
	x, emb := &scriptedExtractor{}, &failOnce{trigger: trigger}
	r := newRig(t, cfg, func(d *memory.Deps) {
		d.Extractor = x
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
		emb.Embedder = d.Embedder
		d.Embedder = emb
	})
	return r, x
}

// An episode summary the model wrote but that could not be embedded or
// stored is not lost: the episode stays due and a later pass writes it.
func TestEpisode_SummaryNotStoredIsWrittenLater(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.NowOff = true
	r, x := newFailOnceRig(t, cfg, "episode summary")
	x.summarize = func(req memory.SummaryRequest) (string, error) { return "episode summary of the move", nil }
	ctx := context.Background()
	r.write(t, "packing the kitchen", "u1")
	r.write(t, "the kitchen is packed", "u1")
	r.advance(time.Hour) // the episode ended
	if res, err := r.svc.Housekeep(ctx); err == nil || res.Episodes != 0 {
		t.Fatalf("a pass whose summary could not be embedded: %+v, %v; want the failure reported", res, err)
	}
	r.advance(time.Minute)
	_, _ = r.svc.Housekeep(ctx)
	if n := x.summaryCalls(memory.SummaryEpisode); n != 1 {
		t.Fatalf("asked again a minute later: %d calls", n)
	}
	r.advance(15 * time.Minute)
	if res, err := r.svc.Housekeep(ctx); err != nil || res.Episodes != 1 {
		t.Fatalf("a later pass: %+v, %v; want the episode summarised", res, err)
	}
	if got := r.live(t, memory.LayerSummary, "u1"); len(got) != 1 || got[0].Category != memory.CategoryEpisode {
		t.Fatalf("summaries: %+v", got)
	}
}

// An episode whose call fails at the endpoint is not asked for again on
// every pass: at most once per episodeRetry (15 minutes).
func TestEpisode_FailedCallIsNotAskedEveryMinute(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.NowOff = true
	r, x := newExtractRig(t, cfg)
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		return "", fmt.Errorf("503 from endpoint: %w", memory.ErrProvider)
	}
	ctx := context.Background()
	r.write(t, "packing the kitchen", "u1")
	r.write(t, "the kitchen is packed", "u1")
	r.advance(time.Hour)
	for range 5 {
		if _, err := r.svc.Housekeep(ctx); !errors.Is(err, memory.ErrProvider) && err != nil {
			t.Fatal(err)
		}
		r.advance(time.Minute)
	}
	if n := x.summaryCalls(memory.SummaryEpisode); n != 1 {
		t.Fatalf("%d episode calls in 5 minutes of failures, want 1", n)
	}
	x.summarize = func(req memory.SummaryRequest) (string, error) { return "episode summary", nil }
	r.advance(15 * time.Minute)
	if res, err := r.svc.Housekeep(ctx); err != nil || res.Episodes != 1 {
		t.Fatalf("after the wait: %+v, %v; want the episode summarised", res, err)
	}
}

// A Now page the model wrote but that could not be stored leaves the
// owner marked: a later pass builds it without waiting for a new fact.
func TestNow_PageNotStoredIsBuiltLater(t *testing.T) {
	r, x := newFailOnceRig(t, extractCfg(), "now page")
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user is moving house", Label: "project_state"}}}))
	x.summarize = func(req memory.SummaryRequest) (string, error) { return "now page: moving house", nil }
	ctx := context.Background()
	r.write(t, "moving house next month", "u1")
	if res, err := r.svc.Housekeep(ctx); err == nil || res.NowPages != 0 {
		t.Fatalf("a pass whose page could not be embedded: %+v, %v; want the failure reported", res, err)
	}
	r.advance(15 * time.Minute)
	if res, err := r.svc.Housekeep(ctx); err != nil || res.NowPages != 1 {
		t.Fatalf("a later pass: %+v, %v; want the page", res, err)
	}
}

// A person's own episode is summarised from their writes however many
// their agent wrote in between: the agent's writes are its own episode.
func TestEpisode_OwnWritesNotCrowdedOutByAnAgent(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.NowOff = true
	r, x := newExtractRig(t, cfg)
	var shown []string
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		shown = req.Texts
		return "episode summary", nil
	}
	ctx := context.Background()
	r.write(t, "packing the kitchen", "u1")
	for i := range 200 {
		r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: fmt.Sprintf("agent note %d", i),
			Owner: memory.Owner{UserID: "u1", AgentID: "hermes"}, Extraction: memory.ExtractDone})
	}
	r.write(t, "the kitchen is packed", "u1")
	r.advance(time.Hour)
	if res, err := r.svc.Housekeep(ctx); err != nil || res.Episodes != 1 {
		t.Fatalf("pass: %+v, %v; want the person's episode summarised", res, err)
	}
	if !slices.Equal(shown, []string{"packing the kitchen", "the kitchen is packed"}) {
		t.Fatalf("the summary was asked from %q", shown)
	}
}
