package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	testKey   = "sk-test-SECRET-0123456789abcdef"
	testUA    = "HyAtlas/test (+memory extraction)"
	testModel = "m1"
)

// step scripts one answer of a fake endpoint and what it expects to get.
type step struct {
	model     string // expected model; "" means the fake's default
	format    string // expected response_format type, "none" for absent; "" skips the check
	lastUser  string // expected substring of the last user message
	status    int    // default 200
	content   string
	reasoning string
	raw       string // whole response body, overriding content and reasoning
	header    map[string]string
	delay     time.Duration // answer after this long (or when the request ends)
	hangup    bool          // close the connection without answering
}

// seen is one request the fake received.
type seen struct {
	model, format, auth, ua string
	temperature             *float64
	messages                []struct{ Role, Content string }
	reqBytes, respBytes     int
}

// fake is an OpenAI-compatible endpoint answering from a script and
// asserting every request's path, model, format, Authorization and UA.
type fake struct {
	t     *testing.T
	srv   *httptest.Server
	model string
	auth  string // expected Authorization header; "" means it must be absent
	ua    string

	mu    sync.Mutex
	steps []step
	seen  []seen
}

func newFake(t *testing.T, auth string, steps ...step) *fake {
	t.Helper()
	f := &fake{t: t, model: testModel, auth: auth, ua: testUA, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.steps) > 0 {
			t.Errorf("fake %s: %d scripted answers left unused", f.srv.URL, len(f.steps))
		}
	})
	return f
}

func (f *fake) base() string { return f.srv.URL + "/v1" }
func (f *fake) host() string { return strings.TrimPrefix(f.srv.URL, "http://") }

func (f *fake) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model          string   `json:"model"`
		Temperature    *float64 `json:"temperature"`
		Messages       []struct{ Role, Content string }
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Name   string         `json:"name"`
				Strict bool           `json:"strict"`
				Schema map[string]any `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Errorf("request body is not JSON: %v", err)
	}
	s := seen{model: req.Model, format: "none", auth: r.Header.Get("Authorization"), ua: r.Header.Get("User-Agent"),
		temperature: req.Temperature, messages: req.Messages, reqBytes: len(body)}
	if rf := req.ResponseFormat; rf != nil {
		s.format = rf.Type
		if rf.Type == "json_schema" && (rf.JSONSchema == nil || rf.JSONSchema.Name == "" || !rf.JSONSchema.Strict || rf.JSONSchema.Schema == nil) {
			t.Errorf("json_schema response_format incomplete: %s", body)
		}
	}
	f.mu.Lock()
	if len(f.steps) == 0 {
		f.mu.Unlock()
		t.Errorf("fake %s: unexpected request %s", f.srv.URL, body)
		http.Error(w, "no script", http.StatusInternalServerError)
		return
	}
	st := f.steps[0]
	f.steps = f.steps[1:]
	f.mu.Unlock()

	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		t.Errorf("got %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if _, ok := r.Header["Authorization"]; f.auth == "" && ok {
		t.Errorf("fake %s: Authorization %q sent, want none", f.srv.URL, s.auth)
	} else if f.auth != "" && s.auth != f.auth {
		t.Errorf("fake %s: Authorization %q, want %q", f.srv.URL, s.auth, f.auth)
	}
	if s.ua != f.ua {
		t.Errorf("User-Agent %q, want %q", s.ua, f.ua)
	}
	if want := cmp(st.model, f.model); s.model != want {
		t.Errorf("model %q, want %q", s.model, want)
	}
	if st.format != "" && s.format != st.format {
		t.Errorf("response_format %q, want %q", s.format, st.format)
	}
	if st.lastUser != "" {
		last := req.Messages[len(req.Messages)-1]
		if last.Role != "user" || !strings.Contains(last.Content, st.lastUser) {
			t.Errorf("last message %+v, want a user message with %q", last, st.lastUser)
		}
	}
	if st.delay > 0 {
		select {
		case <-time.After(st.delay):
		case <-r.Context().Done():
			return
		}
	}
	if st.hangup {
		f.record(s)
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
		return
	}
	out := st.raw
	if out == "" {
		msg := map[string]any{"role": "assistant", "content": st.content}
		if st.reasoning != "" {
			msg["reasoning_content"] = st.reasoning
		}
		b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion", "model": s.model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
		out = string(b)
	}
	for k, v := range st.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(cmp(st.status, http.StatusOK))
	io.WriteString(w, out)
	s.respBytes = len(out)
	f.record(s)
}

func (f *fake) record(s seen) {
	f.mu.Lock()
	f.seen = append(f.seen, s)
	f.mu.Unlock()
}

func cmp[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// rig is a Client wired to record its ledger, its sleeps and its key reads.
type rig struct {
	*Client
	keyReads atomic.Int32
	mu       sync.Mutex
	calls    []Call
	sleeps   []time.Duration
}

func newRig(cfg Config) *rig {
	r := &rig{}
	cfg.Ledger = func(c Call) {
		r.mu.Lock()
		r.calls = append(r.calls, c)
		r.mu.Unlock()
	}
	if key := cfg.Primary.Key; key != nil {
		cfg.Primary.Key = func(ctx context.Context) (string, error) {
			r.keyReads.Add(1)
			return key(ctx)
		}
	}
	r.Client = New(cfg)
	r.Client.sleep = func(ctx context.Context, d time.Duration) error {
		r.mu.Lock()
		r.sleeps = append(r.sleeps, d)
		r.mu.Unlock()
		return ctx.Err()
	}
	return r
}

func (r *rig) ledger() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

func (r *rig) outcomes() []string {
	var out []string
	for _, c := range r.ledger() {
		out = append(out, c.Outcome)
	}
	return out
}

// config points a Config at f with the test key, UA and a tiny backoff.
func config(f *fake) Config {
	key := func(context.Context) (string, error) { return testKey, nil }
	return Config{Primary: Endpoint{Base: f.base(), Model: testModel, Key: key}, UserAgent: testUA,
		Backoff: time.Millisecond, Timeout: 10 * time.Second}
}

const bearer = "Bearer " + testKey

type plan struct {
	Facts []string `json:"facts"`
}

var planSchema = map[string]any{
	"type":                 "object",
	"properties":           map[string]any{"facts": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}},
	"required":             []string{"facts"},
	"additionalProperties": false,
}

func extractReq() Request {
	return Request{Purpose: "extract", System: "Reply with JSON.", User: "I moved to Lyon.", Schema: planSchema, SchemaName: "plan"}
}

const goodJSON = `{"facts":["moved to Lyon"]}`
