package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
	"hyatlas/backend/config"
	"hyatlas/backend/engine"
	"hyatlas/backend/memory"
	"hyatlas/backend/secrets"
)

const (
	extractWrites = 300 // timed writes per mode
	extractWarmup = 30
)

// noKeyring is an empty keyring, so the bench never touches the user's.
type noKeyring struct{}

func (noKeyring) Get(string, string) (string, error) { return "", secrets.ErrNotFound }
func (noKeyring) Set(string, string, string) error   { return errors.New("the bench keeps no key") }
func (noKeyring) Delete(string, string) error        { return nil }

// instantModel is an OpenAI-compatible endpoint on loopback that answers
// every extraction at once with two facts (one a preference, so a profile
// mirror too), an intention and an entity page.
func instantModel() (base string, stop func(), err error) {
	reply, _ := json.Marshal(map[string]any{
		"facts": []any{
			map[string]any{"text": "The user prefers short release notes", "label": "user_preferences", "event_at": nil, "replaces": []string{}, "updates": nil},
			map[string]any{"text": "Project Foxtrot moved its launch to 2026-12-04", "label": "project_state", "event_at": "2026-12-04", "replaces": []string{}, "updates": nil},
		},
		"intentions":      []any{map[string]any{"goal": "Ship Foxtrot 1.0", "due_at": "2026-12-04"}},
		"intentions_done": []any{},
		"entities":        []any{map[string]any{"name": "Foxtrot", "kind": "project", "state": map[string]string{"launch": "2026-12-04"}, "summary": "The billing service"}},
		"experiences":     []any{},
	})
	body, _ := json.Marshal(map[string]any{"id": "bench", "object": "chat.completion", "model": "bench",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": string(reply)}}}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/v1", func() { _ = srv.Close() }, nil
}

// addLatencies opens an engine with cfg and times n sequential adds of
// one user over loopback, after a warm-up, in milliseconds, sorted.
func addLatencies(ctx context.Context, cfg config.Config, n int) ([]float64, error) {
	eng, err := engine.Open(ctx, cfg, engine.Options{Logger: quiet(), Keyring: noKeyring{}})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	if _, err := eng.Listen(); err != nil {
		return nil, err
	}
	c := client.New(eng.BaseURL(), eng.Token)
	corp := newCorpus(7)
	var lats []float64
	for i := range n + extractWarmup {
		text := corp.text(8, 40)
		t0 := time.Now()
		res, err := c.Add(ctx, api.AddRequest{Text: &text, UserID: "bench"})
		if err != nil {
			return nil, err
		}
		if cfg.Mode.UsesLLM() && res.ExtractionStatus != memory.StatusDone {
			return nil, fmt.Errorf("write %d was not extracted: %s", i, res.ExtractionStatus)
		}
		if i >= extractWarmup {
			lats = append(lats, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	sort.Float64s(lats)
	return lats, nil
}

// benchExtraction measures what a blocking (sync) extraction adds to a
// write beyond the model's own latency: the same sequential writes in lite
// mode and in pro mode against a model that answers at once. The
// difference includes the loopback round trip to the model, so it
// over-states the overhead slightly.
func benchExtraction(ctx context.Context, tmp string, writes int) ([]row, error) {
	base, stop, err := instantModel()
	if err != nil {
		return nil, err
	}
	defer stop()
	lite, err := addLatencies(ctx, benchConfig(tmp+"/extract-lite"), writes)
	if err != nil {
		return nil, err
	}
	cfg := benchConfig(tmp + "/extract-pro")
	cfg.Mode = memory.ModePro
	sync := true
	cfg.SyncExtract = &sync
	cfg.LLM = config.LLMConfig{Base: base, Model: "bench", Timeout: 30 * time.Second, Workers: 1,
		DedupeScore: 0.92, EpisodeGap: 30 * time.Minute, NowEvery: 15 * time.Minute}
	pro, err := addLatencies(ctx, cfg, writes)
	if err != nil {
		return nil, err
	}
	over50 := percentile(pro, 50) - percentile(lite, 50)
	over99 := percentile(pro, 99) - percentile(lite, 50)
	return []row{
		{measure: fmt.Sprintf("sync extraction overhead per write, model answering at once (%d writes; p50, p99)", writes),
			result: fmt.Sprintf("%.2f ms, %.2f ms", over50, over99), target: "≤ 20 ms", ok: over99 <= 20},
		{measure: "write latency lite vs pro sync (p50)",
			result: fmt.Sprintf("%.2f ms vs %.2f ms", percentile(lite, 50), percentile(pro, 50)), target: "-", ok: true},
	}, nil
}
