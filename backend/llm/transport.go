package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

type message = openai.ChatCompletionMessage

// maxBody bounds a response body read into memory.
const maxBody = 32 << 20

// probeKey carries a *probe in a request's context so the transport can
// report what went over the wire for the ledger and for negotiation.
type probeKey struct{}

type probe struct {
	sent    bool
	out, in int
	status  int
	header  http.Header
	body    []byte
	cut     bool // the connection dropped while the body was read
	// onConn is called once, when the request has its connection and
	// before its body is written, with the body's size.
	onConn func(size int)
	once   sync.Once
}

// transport sets the User-Agent and reads each response body whole, so
// its size, status, headers and text are known whatever go-openai does
// with it.
type transport struct {
	base http.RoundTripper
	ua   string
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	p, _ := r.Context().Value(probeKey{}).(*probe)
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", t.ua)
	if p != nil {
		// A call is ledgered from here on; its body counts as sent once a
		// connection to the endpoint exists (the whole body: what left
		// before a reset cannot be known, and the ledger must not count
		// less than went out). A refused connection sent nothing.
		p.sent = true
		size := int(max(r.ContentLength, 0))
		r = r.WithContext(httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{
			GotConn: func(httptrace.GotConnInfo) {
				p.out = size
				if p.onConn != nil {
					p.once.Do(func() { p.onConn(size) })
				}
			},
		}))
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	if p != nil {
		p.status, p.header, p.in, p.body, p.cut = resp.StatusCode, resp.Header, len(data), data, rerr != nil
	}
	if rerr != nil {
		return nil, rerr
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

// exchangeResult is one HTTP request's result. call.At is zero when no
// request went out; err is key-free and names the host and model.
type exchangeResult struct {
	text      string
	call      Call
	status    int
	header    http.Header
	body      []byte
	err       error
	retryable bool
	// rejected: the endpoint refused this request itself (400, 413, 422:
	// too long, filtered), which asking again or elsewhere will not fix.
	rejected bool
	// down: the failure says nothing about this request (no connection,
	// the key, the account, the model's name, a rate limit): any request
	// would have failed the same way.
	down bool
}

// exchange makes exactly one HTTP request (or none, when the key or the
// request cannot be had).
func (c *Client) exchange(ctx context.Context, ep *endpoint, purpose string, creq openai.ChatCompletionRequest) exchangeResult {
	var r exchangeResult
	where := fmt.Sprintf("%s (model %s)", ep.host, ep.model)
	key := ""
	if ep.key != nil {
		k, err := ep.key(ctx)
		if err != nil {
			r.err = fmt.Errorf("%s: reading the key: %v", where, err)
			r.down = true
			return r
		}
		key = k
	}
	scrub := redactor(key)
	cfg := openai.DefaultConfig(key)
	cfg.BaseURL = ep.base
	cfg.HTTPClient = c.hc
	p := &probe{}
	start := time.Now()
	var finish func(Call)
	if c.cfg.LedgerStart != nil {
		p.onConn = func(size int) {
			finish = c.cfg.LedgerStart(Call{At: start, Host: ep.host, Model: ep.model, Purpose: purpose,
				BytesOut: size, Outcome: "in_flight"})
		}
	}
	resp, err := openai.NewClientWithConfig(cfg).CreateChatCompletion(context.WithValue(ctx, probeKey{}, p), creq)
	r.status, r.header, r.body = p.status, p.header, p.body
	if err == nil && (p.status >= 300 || p.status < 200) {
		// go-openai reads a 3xx's body as an answer: a redirect, not
		// followed, fails the call, whatever its body holds.
		err = fmt.Errorf("HTTP %d", p.status)
	}
	if p.sent {
		r.call = Call{At: start, Host: ep.host, Model: ep.model, Purpose: purpose,
			BytesOut: p.out, BytesIn: p.in, Status: p.status, Duration: time.Since(start), finish: finish}
	}
	switch {
	case err == nil:
		r.call.Outcome = "ok"
		// An endpoint that echoes the key in its reply (a gateway's
		// "your key is ...") never gets it into a memory or Settings. A
		// short key is a placeholder a local server wants ("ollama",
		// "x"), no secret: scrubbing it would cut words out of replies.
		r.text = replyText(resp, p.body)
		if len(key) >= minSecretKey {
			r.text = scrub(r.text)
		}
	case ctx.Err() != nil:
		r.call.Outcome = "network_error"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			r.call.Outcome = "timeout"
		}
		r.err = fmt.Errorf("%s: %v", where, ctx.Err())
	case !p.sent:
		r.err = fmt.Errorf("%s: the request could not be made: %s", where, scrub(err.Error()))
		r.down = true
	case p.cut: // dropped mid-answer: asked again, like a connection dropped before it
		r.call.Outcome = "network_error"
		r.err = fmt.Errorf("%s: the connection dropped during the answer (HTTP %d, %d bytes read)", where, p.status, p.in)
		r.retryable = true
	case p.status >= 300 || (p.status > 0 && p.status < 200):
		r.call.Outcome = "http_error"
		r.err = fmt.Errorf("%s: HTTP %d: %s", where, p.status, serverMessage(err, scrub))
		r.retryable = p.status == http.StatusRequestTimeout || p.status == http.StatusTooManyRequests || p.status >= 500
		// Only a refusal of this request's content counts against the row;
		// any other status (401, 402 out of credits, 404, 409, 423, ...)
		// is about the endpoint or the account, and a later call can work.
		r.rejected = p.status == http.StatusBadRequest || p.status == http.StatusRequestEntityTooLarge ||
			p.status == http.StatusUnprocessableEntity
		r.down = p.status >= 400 && p.status < 500 && !r.rejected && p.status != http.StatusRequestTimeout
	case p.status != 0: // a 2xx whose body is no chat completion: the endpoint answered, unreadably
		r.call.Outcome = "unparseable"
		r.err = fmt.Errorf("%s: HTTP %d with a body that is not a chat completion", where, p.status)
	default:
		r.call.Outcome = "network_error"
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		r.err = fmt.Errorf("%s: %s", where, scrub(err.Error()))
		r.retryable = true
		// No connection at all is the endpoint; one dropped mid-answer may
		// be a runner that crashed on this very request.
		var oe *net.OpError
		r.down = errors.As(err, &oe) && oe.Op == "dial"
	}
	return r
}

// replyText is the first choice's content or, when that is empty, its
// reasoning (reasoning_content, or the raw "reasoning" field some servers use).
func replyText(resp openai.ChatCompletionResponse, raw []byte) string {
	if len(resp.Choices) == 0 {
		return ""
	}
	m := resp.Choices[0].Message
	if strings.TrimSpace(m.Content) != "" {
		return m.Content
	}
	if strings.TrimSpace(m.ReasoningContent) != "" {
		return m.ReasoningContent
	}
	var alt struct {
		Choices []struct {
			Message struct {
				Reasoning string `json:"reasoning"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(raw, &alt) == nil && len(alt.Choices) > 0 {
		return alt.Choices[0].Message.Reasoning
	}
	return ""
}

// serverMessage is a short, single-line form of an endpoint's error body,
// scrubbed (of the key) before it is cut short, so no part of a key the
// endpoint echoed survives at the cut.
func serverMessage(err error, scrub func(string) string) string {
	msg := ""
	var ae *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &ae):
		msg = ae.Message
	case errors.As(err, &re):
		msg = string(re.Body)
	}
	msg = strings.Join(strings.Fields(scrub(msg)), " ")
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:200]) + "…"
	}
	if msg == "" {
		msg = "no message"
	}
	return msg
}

// rawSchema sends a JSON schema verbatim.
type rawSchema map[string]any

func (s rawSchema) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]any(s)) }

func buildRequest(model string, req Request, msgs []message, f format) openai.ChatCompletionRequest {
	cr := openai.ChatCompletionRequest{Model: model, Messages: msgs, Temperature: req.Temperature}
	switch f {
	case formatSchema:
		cr.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: schemaName(req.SchemaName), Schema: rawSchema(req.Schema), Strict: true,
			},
		}
	case formatObject:
		cr.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	// go-openai refuses, before sending, a temperature for the reasoning
	// models it knows (o1, o3, gpt-5…); those take their fixed default.
	if openai.NewReasoningValidator().Validate(cr) != nil {
		cr.Temperature = 0
	}
	return cr
}

// schemaName keeps to the characters OpenAI accepts (a-z, 0-9, _ and -).
func schemaName(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "reply"
	}
	return string(b[:min(len(b), 64)])
}

func baseMessages(req Request) []message {
	var msgs []message
	if req.System != "" {
		msgs = append(msgs, message{Role: openai.ChatMessageRoleSystem, Content: req.System})
	}
	return append(msgs, message{Role: openai.ChatMessageRoleUser, Content: req.User})
}

// reinforced adds the reminder as a final user message after the previous
// answer; with no usable previous answer it is appended to the last user
// message so roles still alternate for strict chat templates.
func reinforced(msgs []message, prev string, jsonMode bool) []message {
	note := reinforceText
	if jsonMode {
		note = reinforceJSON
	}
	out := slices.Clone(msgs)
	prev = strings.TrimSpace(stripThink(prev))
	if r := []rune(prev); len(r) > 4000 {
		prev = string(r[:4000])
	}
	if prev != "" {
		return append(out, message{Role: openai.ChatMessageRoleAssistant, Content: prev},
			message{Role: openai.ChatMessageRoleUser, Content: note})
	}
	out[len(out)-1].Content += "\n\n" + note
	return out
}
