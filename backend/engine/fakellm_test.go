package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// fakeLLM is an OpenAI-compatible chat completions server: it records
// every request and answers from the test's script.
type fakeLLM struct {
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []llmRequest
	reply func(llmRequest) (status int, content string)
}

// llmRequest is what the fake saw of one request.
type llmRequest struct {
	Model, System, User, Auth, Format, UserAgent string
}

// extraction guesses from the system prompt that the call is a write's
// extraction; consolidation tells the slow path's calls.
func (r llmRequest) extraction() bool {
	return strings.HasPrefix(r.System, "You keep the long-term memory")
}

func (r llmRequest) consolidation() bool { return strings.HasPrefix(r.System, "You consolidate") }

func newFakeLLM(t *testing.T) *fakeLLM {
	t.Helper()
	f := &fakeLLM{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// remoteBase is an endpoint that looks remote (so it needs a key); the
// client from httpClient takes its requests to the fake.
const remoteBase = "http://llm.test/v1"

func (f *fakeLLM) base() string { return f.srv.URL + "/v1" }

// httpClient dials the fake whatever host a request names.
func (f *fakeLLM) httpClient() *http.Client {
	addr := f.srv.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	return &http.Client{Transport: tr}
}

func (f *fakeLLM) setReply(r func(llmRequest) (int, string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reply = r
}

func (f *fakeLLM) requests() []llmRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llmRequest(nil), f.reqs...)
}

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != "POST" || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "no such endpoint", http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var in struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	req := llmRequest{Model: in.Model, Auth: r.Header.Get("Authorization"), UserAgent: r.Header.Get("User-Agent")}
	if in.ResponseFormat != nil {
		req.Format = in.ResponseFormat.Type
	}
	for _, m := range in.Messages {
		switch m.Role {
		case "system":
			req.System = m.Content
		case "user":
			req.User += m.Content
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	reply := f.reply
	f.mu.Unlock()
	status, content := http.StatusOK, `{}`
	if reply != nil {
		status, content = reply(req)
	}
	if status != http.StatusOK {
		w.Header().Set("Retry-After", "0")
		http.Error(w, content, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": in.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
	})
}

var listedID = regexp.MustCompile(`(?m)^- (m\d{14}[0-9a-f]{8}),`)

// listedIDs returns the ids the prompt offered, in order.
func listedIDs(user string) []string {
	var ids []string
	for _, m := range listedID.FindAllStringSubmatch(user, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// planJSON renders an extraction reply.
func planJSON(facts, intentions []map[string]any) string {
	if facts == nil {
		facts = []map[string]any{}
	}
	if intentions == nil {
		intentions = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"facts": facts, "intentions": intentions, "intentions_done": []string{},
		"entities": []any{}, "experiences": []any{}})
	return string(b)
}

func fact(text, label string, extra ...any) map[string]any {
	m := map[string]any{"text": text, "label": label, "event_at": nil, "replaces": []string{}, "updates": nil}
	for i := 0; i+1 < len(extra); i += 2 {
		m[fmt.Sprint(extra[i])] = extra[i+1]
	}
	return m
}
