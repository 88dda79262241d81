package engine

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/api/client"
	"hyatlas/backend/config"
	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
	"hyatlas/backend/secrets"
)

// memKeyring is an OS keyring held in memory.
type memKeyring struct {
	mu sync.Mutex
	m  map[string]string
}

func (k *memKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[service+"/"+user]
	if !ok {
		return "", secrets.ErrNotFound
	}
	return v, nil
}

func (k *memKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]string{}
	}
	k.m[service+"/"+user] = secret
	return nil
}

func (k *memKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, service+"/"+user)
	return nil
}

// testClock is a settable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// llmRig is a listening engine in pro mode over a fake LLM endpoint, with
// an in-memory keyring, a settable clock and captured logs.
type llmRig struct {
	eng   *Engine
	c     *client.Client
	fake  *fakeLLM
	kr    secrets.Keyring
	clock *testClock
	logs  *syncBuffer
	cfg   config.Config
}

// today is the rig's date: 2026-11-30, a Monday.
var today = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func newLLMRig(t *testing.T, mutate func(*config.Config)) *llmRig {
	t.Helper()
	return newLLMRigWith(t, &memKeyring{}, mutate)
}

// newLLMRigWith is newLLMRig over the given keyring.
func newLLMRigWith(t *testing.T, kr secrets.Keyring, mutate func(*config.Config)) *llmRig {
	t.Helper()
	fake := newFakeLLM(t)
	cfg := testConfig(t)
	cfg.Mode = memory.ModePro
	cfg.Embed = config.EmbedConfig{Choice: config.EmbedGloVe, ORTLib: proctest.ORTLib()}
	cfg.LLM = config.LLMConfig{Base: remoteBase, Model: "test-model", Timeout: 20 * time.Second,
		CatchupMaxAge: 168 * time.Hour, EpisodeGap: 30 * time.Minute, NowEvery: 15 * time.Minute,
		DedupeScore: 0.92, Workers: 2}
	if mutate != nil {
		mutate(&cfg)
	}
	return openLLMRig(t, cfg, fake, kr, &testClock{now: today})
}

func openLLMRig(t *testing.T, cfg config.Config, fake *fakeLLM, kr secrets.Keyring, clock *testClock) *llmRig {
	t.Helper()
	logs := &syncBuffer{}
	eng, err := Open(context.Background(), cfg, Options{Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Keyring: kr, Now: clock.Now, LLMHTTPClient: fake.httpClient()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	if _, err := eng.Listen(); err != nil {
		t.Fatal(err)
	}
	return &llmRig{eng: eng, c: client.New(eng.BaseURL(), eng.Token), fake: fake, kr: kr, clock: clock, logs: logs, cfg: cfg}
}

// waitIdle waits until no extraction is queued or running.
func (r *llmRig) waitIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !r.eng.ExtractionIdle() {
		if time.Now().After(deadline) {
			t.Fatal("extraction still busy after 30s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// live lists a layer's live rows.
// waitExtracted waits (at most 20 s) until the write id is extracted;
// what names the write in the failure.
func (r *llmRig) waitExtracted(t *testing.T, id, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, err := r.c.Get(context.Background(), id)
		if err == nil && d.Extraction == string(memory.ExtractDone) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not extracted (llm %s): %+v %v", what, r.eng.x.state(), d, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *llmRig) live(t *testing.T, layer memory.Layer) []memory.Memory {
	t.Helper()
	rows, err := r.eng.Memory.List(context.Background(), memory.ListInput{Layer: string(layer), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return rows.Memories
}

func (r *llmRig) do(t *testing.T, method, path string, body, out any) error {
	t.Helper()
	return r.c.Do(context.Background(), method, path, body, out)
}
