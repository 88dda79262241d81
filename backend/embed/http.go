package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"hyatlas/backend/memory"
)

// HTTP embeds through an OpenAI-compatible endpoint: POST {base}/embeddings
// with {"model", "input": [texts]}. Text leaves the machine: only when the
// user sets HYATLAS_EMBED_BASE to a URL. The key is sent as a bearer token
// and never logged or returned.
type HTTP struct {
	base, model, key string
	userAgent        string
	client           *http.Client
	info             memory.EmbedderInfo
	record           func(memory.EgressCall)
}

// NewHTTP probes the endpoint once to learn the vector length. record,
// when set, is called once per request made (the egress ledger): every
// text sent leaves the machine.
func NewHTTP(ctx context.Context, base, model, key string, userAgent string, record func(memory.EgressCall)) (*HTTP, error) {
	h := &HTTP{base: strings.TrimRight(base, "/"), model: model, key: key, userAgent: userAgent, record: record,
		client: &http.Client{Timeout: 60 * time.Second,
			// Texts go only to the address the user chose: a redirect is an error.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	h.info = memory.EmbedderInfo{Name: model + " at " + hostOf(base), Semantic: true, MinScore: httpMinScore,
		GateScore: httpMinScore}
	vecs, err := h.Embed(ctx, []string{"dimension probe"}, memory.PurposeDocument)
	if err != nil {
		return nil, fmt.Errorf("embedding endpoint %s: %w", hostOf(base), err)
	}
	h.info.Dims = len(vecs[0])
	h.info.ID = fmt.Sprintf("http-%s-%s-%d", hostOf(base), model, h.info.Dims)
	return h, nil
}

// httpMinScore is the floor for hosted models (OpenAI's text-embedding-3
// cosines run lower than BGE's).
const httpMinScore = 0.3

func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

// scrub takes the key out of text an endpoint sent (some echo a key they
// refuse), before anything of it is kept or cut short: an error reaches
// the log, the terminal and the start-failed window.
func (h *HTTP) scrub(text string) string {
	if h.key == "" {
		return text
	}
	return strings.ReplaceAll(text, h.key, "[redacted]")
}

// Info describes the endpoint's model.
func (h *HTTP) Info() memory.EmbedderInfo { return h.info }

// Embed implements memory.Embedder. Each request is recorded (see
// NewHTTP), whatever its outcome.
func (h *HTTP) Embed(ctx context.Context, texts []string, _ memory.EmbedPurpose) (vecs [][]float32, err error) {
	if len(texts) == 0 {
		return nil, ctx.Err()
	}
	body, _ := json.Marshal(map[string]any{"model": h.model, "input": texts})
	call := memory.EgressCall{At: time.Now().UTC(), Host: hostOf(h.base), Model: h.model, Purpose: "embed", Outcome: "ok"}
	start := time.Now()
	defer func() {
		if h.record == nil {
			return
		}
		call.Duration = time.Since(start).Milliseconds()
		if err != nil && call.Outcome == "ok" {
			call.Outcome = "unparseable"
		}
		h.record(call)
	}()
	req, err := http.NewRequestWithContext(ctx, "POST", h.base+"/embeddings", bytes.NewReader(body))
	if err != nil {
		call.Outcome = "network_error"
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", h.userAgent)
	if h.key != "" {
		req.Header.Set("Authorization", "Bearer "+h.key)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		call.Outcome = "network_error"
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			call.Outcome = "timeout"
		} else if !sentNothing(err) {
			call.BytesOut = len(body)
		}
		return nil, fmt.Errorf("embeddings request: %w", err)
	}
	defer resp.Body.Close()
	call.BytesOut, call.Status = len(body), resp.StatusCode
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	call.BytesIn = len(data)
	if err != nil {
		call.Outcome = "network_error"
		return nil, fmt.Errorf("embeddings answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		call.Outcome = "http_error"
		return nil, fmt.Errorf("embeddings answered HTTP %d: %.200s", resp.StatusCode, h.scrub(string(data)))
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("embeddings answer is not the expected JSON: %w", err)
	}
	if len(out.Data) != len(texts) {
		return nil, fmt.Errorf("embeddings answered %d vectors for %d texts", len(out.Data), len(texts))
	}
	vecs = make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil {
			return nil, fmt.Errorf("embeddings answer has a bad index %d", d.Index)
		}
		v, ok := unit(d.Embedding)
		if !ok || (h.info.Dims != 0 && len(v) != h.info.Dims) {
			return nil, fmt.Errorf("embeddings answer has a malformed vector")
		}
		vecs[d.Index] = v
	}
	return vecs, nil
}

// sentNothing reports whether a request failed before any byte left: the
// connection was refused or the name did not resolve.
func sentNothing(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// unit returns v scaled to unit length, or false for a zero or non-finite
// vector.
func unit(v []float32) ([]float32, bool) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if len(v) == 0 || sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil, false
	}
	inv := float32(1 / math.Sqrt(sum))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out, true
}

var _ memory.Embedder = (*HTTP)(nil)
