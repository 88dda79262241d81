// Package llm is a small chat client for memory extraction over any
// OpenAI-compatible endpoint (hosted APIs, Ollama, llama.cpp, LM Studio,
// vLLM). It negotiates structured output, reads replies tolerantly, retries
// what is worth retrying, falls back to a second endpoint when the first is
// unavailable and reports every HTTP request to a ledger.
//
// Errors wrap memory.ErrProvider (the endpoint could not be used),
// memory.ErrRejected (it refused this request: 400, 413, 422) or
// memory.ErrUnparseable (the model answered twice with something unreadable);
// when the caller's own context ends, the error wraps ctx.Err() instead.
// No error, ledger entry or log ever carries an API key.
package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"hyatlas/backend/memory"
)

// Endpoint is one OpenAI-compatible chat completions service.
type Endpoint struct {
	// Base is the API root the path /chat/completions is appended to, e.g.
	// https://api.example.com/v1 or http://127.0.0.1:11434/v1.
	Base string
	// Model is sent as the request's model.
	Model string
	// Key is called on every HTTP request. A nil func, or one that returns
	// "", sends no Authorization header; an error fails the endpoint as
	// unavailable.
	Key func(ctx context.Context) (string, error)
}

// Config configures a Client. Zero values take the documented defaults.
type Config struct {
	Primary Endpoint
	// Fallback is tried only when the primary fails as unavailable (provider
	// error after retries, empty reply, timeout), never for an unparseable
	// reply. Base "" means the primary's base, Model "" the primary's model.
	// A nil Key borrows the primary's key only when Base has the same
	// scheme, host and port as the primary's; elsewhere no key is sent.
	Fallback *Endpoint
	// Timeout is one call's whole budget (default 300s), retries, backoff and
	// fallback included. With a fallback the primary gets 2/3 of it.
	Timeout time.Duration
	// UserAgent is sent on every request (default "HyAtlas (+memory
	// extraction)"); Go's default User-Agent is never sent.
	UserAgent string
	// Ledger, when set, is called once per HTTP request made, success or
	// not, from the calling goroutine.
	Ledger func(Call)
	// LedgerStart, when set, is called as a request leaves (its connection
	// made, before its body is written), with Outcome "in_flight"; the
	// function it returns takes that request's final Call instead of
	// Ledger. A request is then in the ledger even if the process dies
	// before its answer.
	LedgerStart func(Call) func(Call)
	// HTTPClient is copied, never modified; its Transport is wrapped.
	HTTPClient *http.Client
	// Retries is how many times one endpoint is asked again after HTTP 408,
	// 429, 5xx or a connection error (default 3; negative means none).
	Retries int
	// Backoff is the first wait before a retry (default 1s), doubling and
	// capped at 30s. A Retry-After header (seconds or HTTP date) wins, capped
	// at 60s; a wait that would outlast the endpoint's remaining budget ends
	// the endpoint's tries at once instead.
	Backoff time.Duration
}

// Call is one HTTP request as the ledger sees it.
type Call struct {
	At       time.Time
	Host     string // host[:port] of the endpoint, never the full URL
	Model    string
	Purpose  string
	BytesOut int // request body
	BytesIn  int // response body
	Status   int // HTTP status, 0 when none was received
	// Outcome is ok, http_error, network_error, timeout, unparseable (also a
	// 2xx whose body is no chat completion) or empty.
	Outcome  string
	Duration time.Duration
	// finish records this call's end in the row LedgerStart made.
	finish func(Call)
}

// Request is one chat exchange.
type Request struct {
	Purpose string // recorded in the ledger, e.g. "extract" or "summary"
	System  string // "" sends no system message
	User    string
	// Schema is the JSON schema of the reply object for CompleteJSON; nil
	// asks for any JSON object. Complete ignores it.
	Schema      map[string]any
	SchemaName  string  // default "reply"
	Temperature float32 // 0 means 0.1
}

const (
	defaultTimeout = 300 * time.Second
	defaultBackoff = time.Second
	maxBackoff     = 30 * time.Second
	maxRetryAfter  = 60 * time.Second
	defaultUA      = "HyAtlas (+memory extraction)"

	reinforceJSON = "Your previous reply was not valid JSON for the required schema. Reply with only the JSON object."
	reinforceText = "Your previous reply was empty. Reply with only the requested text."
)

// Client is safe for concurrent use. It remembers, for its lifetime, which
// structured output form each endpoint (Base+Model) accepts.
type Client struct {
	cfg      Config
	hc       *http.Client
	primary  endpoint
	fallback *endpoint
	sleep    func(ctx context.Context, d time.Duration) error

	mu      sync.Mutex
	formats map[string]format
}

type endpoint struct {
	base, model, host string
	key               func(ctx context.Context) (string, error)
}

// New returns a Client for cfg.
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.Retries == 0 {
		cfg.Retries = 3
	} else if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = defaultBackoff
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = defaultUA
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		cp := *cfg.HTTPClient
		hc = &cp
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &transport{base: base, ua: cfg.UserAgent}
	// A redirect is answered as what it is, not followed: following it
	// would send the text (and, to another port of the same host, the key)
	// to an address the user never chose, unledgered.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	c := &Client{cfg: cfg, hc: hc, sleep: sleepCtx, formats: map[string]format{}}
	c.primary = newEndpoint(cfg.Primary.Base, cfg.Primary.Model, cfg.Primary.Key)
	if f := cfg.Fallback; f != nil {
		b, m, k := f.Base, f.Model, f.Key
		if b == "" {
			b = cfg.Primary.Base
		}
		if m == "" {
			m = cfg.Primary.Model
		}
		if k == nil && SameOrigin(b, cfg.Primary.Base) {
			k = cfg.Primary.Key
		}
		fb := newEndpoint(b, m, k)
		c.fallback = &fb
	}
	return c
}

func newEndpoint(base, model string, key func(context.Context) (string, error)) endpoint {
	host := base
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		host = u.Host
	}
	return endpoint{base: base, model: model, host: host, key: key}
}

// SameOrigin reports whether two URLs have the same scheme, host and port
// (the port a scheme implies when none is written).
func SameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil || ua.Hostname() == "" {
		return false
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		switch strings.ToLower(u.Scheme) {
		case "http":
			return "80"
		case "https":
			return "443"
		}
		return ""
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) &&
		strings.EqualFold(ua.Hostname(), ub.Hostname()) &&
		port(ua) == port(ub)
}

// CompleteJSON asks for a JSON object and decodes it into out, a non-nil
// pointer. The reply is read tolerantly (think blocks, code fences and
// surrounding prose are dropped); if it still does not decode, the same
// endpoint is asked once more with a reminder, and a second failure
// returns an error wrapping memory.ErrUnparseable.
func (c *Client) CompleteJSON(ctx context.Context, req Request, out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("llm: CompleteJSON needs a non-nil pointer")
	}
	return c.run(ctx, req, true, func(text string) error { return decodeInto(text, out) })
}

// Complete asks for plain text (no response_format) and returns it with
// any leading think block removed. An answer that is empty after that
// cleanup is asked for once more, then fails with memory.ErrUnparseable.
func (c *Client) Complete(ctx context.Context, req Request) (string, error) {
	var s string
	err := c.run(ctx, req, false, func(text string) error {
		t := strings.TrimSpace(stripThink(text))
		if t == "" {
			return errors.New("no text after removing the reasoning")
		}
		s = t
		return nil
	})
	return s, err
}

// providerError is one endpoint's failure as unavailable.
type providerError struct {
	msg  string
	down bool // it says nothing about the request (see exchangeResult.down)
}

func (e *providerError) Error() string { return e.msg }

func (c *Client) run(ctx context.Context, req Request, jsonMode bool, accept func(string) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	if req.Temperature == 0 {
		req.Temperature = 0.1
	}
	callCtx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()

	eps := []*endpoint{&c.primary}
	if c.fallback != nil {
		eps = append(eps, c.fallback)
	}
	var fails []string
	down := true // every endpoint failed in a way that says nothing about the request
	for i, ep := range eps {
		epCtx, epCancel := callCtx, context.CancelFunc(func() {})
		if i == 0 && len(eps) > 1 {
			epCtx, epCancel = context.WithTimeout(callCtx, c.cfg.Timeout*2/3)
		}
		err := c.onEndpoint(epCtx, ep, req, jsonMode, accept)
		epCancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("llm: %w", ctx.Err())
		}
		var pe *providerError
		if !errors.As(err, &pe) {
			return err // unparseable: a model problem, not an availability one
		}
		down = down && pe.down
		if i > 0 {
			fails = append(fails, "fallback "+pe.msg)
		} else {
			fails = append(fails, pe.msg)
		}
		if callCtx.Err() != nil {
			break
		}
	}
	if down {
		return fmt.Errorf("llm: %s: %w", strings.Join(fails, "; "), memory.ErrEndpointDown)
	}
	return fmt.Errorf("llm: %s: %w", strings.Join(fails, "; "), memory.ErrProvider)
}

// onEndpoint asks one endpoint, with one reinforced retry for a reply that
// cannot be read.
func (c *Client) onEndpoint(ctx context.Context, ep *endpoint, req Request, jsonMode bool, accept func(string) error) error {
	msgs := baseMessages(req)
	for try := 0; ; try++ {
		text, call, err := c.send(ctx, ep, req, msgs, jsonMode)
		if err != nil {
			return err
		}
		aerr := accept(text)
		if aerr == nil {
			call.Outcome = "ok"
			c.record(call)
			return nil
		}
		call.Outcome = "unparseable"
		c.record(call)
		if try == 1 {
			return fmt.Errorf("llm: %s (model %s): %w: %v", ep.host, ep.model, memory.ErrUnparseable, aerr)
		}
		msgs = reinforced(msgs, text, jsonMode)
	}
}

// send makes one logical request: it negotiates the response format and
// retries transient failures. On success the returned Call is not yet
// recorded; its outcome depends on whether the text can be read.
func (c *Client) send(ctx context.Context, ep *endpoint, req Request, msgs []message, jsonMode bool) (string, Call, error) {
	retries := 0
	for {
		f := formatNone
		if jsonMode {
			f = c.format(ep, req.Schema != nil)
		}
		x := c.exchange(ctx, ep, req.Purpose, buildRequest(ep.model, req, msgs, f))
		switch {
		case x.err == nil && strings.TrimSpace(x.text) != "":
			return x.text, x.call, nil
		case x.err == nil:
			x.call.Outcome = "empty"
			c.record(x.call)
			return "", x.call, &providerError{msg: fmt.Sprintf("%s (model %s): empty reply", ep.host, ep.model)}
		case !x.call.At.IsZero():
			c.record(x.call)
		}
		if x.call.Outcome == "timeout" || ctx.Err() != nil {
			return "", x.call, &providerError{msg: fmt.Sprintf("%s (model %s): timed out", ep.host, ep.model)}
		}
		if jsonMode && f != formatNone && rejectsFormat(x.status, x.body) {
			c.demote(ep, f)
			continue // negotiation, not a failure
		}
		if x.rejected {
			// Not the endpoint's availability: this request. The row
			// counts a try instead of holding up the queue.
			return "", x.call, fmt.Errorf("llm: %s: %w", x.err, memory.ErrRejected)
		}
		if !x.retryable || retries >= c.cfg.Retries {
			if retries > 0 {
				return "", x.call, &providerError{msg: fmt.Sprintf("%s after %d attempts", x.err, retries+1), down: x.down}
			}
			return "", x.call, &providerError{msg: x.err.Error(), down: x.down}
		}
		wait := min(c.cfg.Backoff<<retries, maxBackoff)
		if ra, ok := retryAfter(x.header); ok {
			wait = min(ra, maxRetryAfter)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
			return "", x.call, &providerError{msg: fmt.Sprintf("%s; the next try (in %s) would outlast the time budget", x.err, wait.Round(time.Millisecond)), down: x.down}
		}
		if err := c.sleep(ctx, wait); err != nil {
			return "", x.call, &providerError{msg: fmt.Sprintf("%s (model %s): timed out", ep.host, ep.model)}
		}
		retries++
	}
}

func (c *Client) record(call Call) {
	if f := call.finish; f != nil {
		call.finish = nil
		f(call)
		return
	}
	if c.cfg.Ledger != nil {
		c.cfg.Ledger(call)
	}
}

// format is the structured output form sent to an endpoint.
type format int

const (
	formatSchema format = iota // response_format json_schema
	formatObject               // response_format json_object
	formatNone                 // no response_format
)

func (c *Client) format(ep *endpoint, haveSchema bool) format {
	c.mu.Lock()
	f := c.formats[ep.base+"\x00"+ep.model]
	c.mu.Unlock()
	if !haveSchema && f < formatObject {
		f = formatObject
	}
	return f
}

func (c *Client) demote(ep *endpoint, rejected format) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := ep.base + "\x00" + ep.model
	if c.formats[k] <= rejected {
		c.formats[k] = rejected + 1
	}
}

// rejectsFormat reports whether an HTTP error says the response_format
// sent is not supported.
func rejectsFormat(status int, body []byte) bool {
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return false
	}
	b := strings.ToLower(string(body))
	for _, s := range []string{"response_format", "json_schema", "json_object", "not supported", "unsupported", "structured output"} {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

// retryAfter reads a Retry-After header given in seconds or as an HTTP date.
func retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	var secs int
	if _, err := fmt.Sscanf(v, "%d", &secs); err == nil && fmt.Sprint(secs) == v {
		return max(time.Duration(secs)*time.Second, 0), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
