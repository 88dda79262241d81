package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestCompleteJSONReplies(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   step
	}{
		{"good JSON", step{content: goodJSON}},
		{"fenced JSON", step{content: "```json\n" + goodJSON + "\n```"}},
		{"bare fence", step{content: "```" + goodJSON + "```"}},
		{"prose then JSON", step{content: "Sure! Here is the object:\n" + goodJSON + "\nHope this helps."}},
		{"think then JSON", step{content: "<think>The user {moved}, so…</think>\n" + goodJSON}},
		{"unclosed think", step{content: "<think>\n" + goodJSON}},
		{"reasoning_content only", step{reasoning: goodJSON}},
		{"reasoning field only", step{raw: `{"choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning":` +
			fmt.Sprintf("%q", goodJSON) + `}}]}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.st.format = "json_schema"
			f := newFake(t, bearer, tc.st)
			r := newRig(config(f))
			var got plan
			if err := r.CompleteJSON(context.Background(), extractReq(), &got); err != nil {
				t.Fatal(err)
			}
			if want := (plan{Facts: []string{"moved to Lyon"}}); !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if o := r.outcomes(); !reflect.DeepEqual(o, []string{"ok"}) {
				t.Errorf("ledger outcomes %v", o)
			}
			if tp := f.requests()[0].temperature; tp == nil || *tp < 0.099 || *tp > 0.101 {
				t.Errorf("temperature %v, want 0.1", tp)
			}
		})
	}
}

func TestEmptyReplyTriesFallback(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   step
	}{
		{"empty content", step{content: ""}},
		{"no choices", step{raw: `{"choices":[]}`}},
		{"whitespace", step{content: " \n "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newFake(t, bearer, tc.st)
			fb := newFake(t, "", step{content: goodJSON})
			cfg := config(p)
			cfg.Fallback = &Endpoint{Base: fb.base()}
			r := newRig(cfg)
			var got plan
			if err := r.CompleteJSON(context.Background(), extractReq(), &got); err != nil {
				t.Fatal(err)
			}
			calls := r.ledger()
			if len(calls) != 2 || calls[0].Outcome != "empty" || calls[0].Host != p.host() ||
				calls[1].Outcome != "ok" || calls[1].Host != fb.host() {
				t.Errorf("ledger %+v", calls)
			}
		})
	}
}

func TestEmptyReplyWithoutFallbackIsProviderError(t *testing.T) {
	f := newFake(t, bearer, step{content: ""})
	err := newRig(config(f)).CompleteJSON(context.Background(), extractReq(), &plan{})
	if !errors.Is(err, memory.ErrProvider) || !strings.Contains(err.Error(), "empty reply") {
		t.Fatalf("err %v, want ErrProvider for an empty reply", err)
	}
}

func TestUnparseable(t *testing.T) {
	t.Run("invalid twice", func(t *testing.T) {
		p := newFake(t, bearer,
			step{content: "I cannot do that."},
			step{content: `{"facts": "oops"`, lastUser: reinforceJSON})
		fb := newFake(t, "") // must never be asked
		cfg := config(p)
		cfg.Fallback = &Endpoint{Base: fb.base()}
		r := newRig(cfg)
		err := r.CompleteJSON(context.Background(), extractReq(), &plan{})
		if !errors.Is(err, memory.ErrUnparseable) || errors.Is(err, memory.ErrProvider) {
			t.Fatalf("err %v, want ErrUnparseable only", err)
		}
		if o := r.outcomes(); !reflect.DeepEqual(o, []string{"unparseable", "unparseable"}) {
			t.Errorf("ledger outcomes %v", o)
		}
		msgs := p.requests()[1].messages
		if len(msgs) != 4 || msgs[2].Role != "assistant" || msgs[2].Content != "I cannot do that." {
			t.Errorf("second try messages %+v", msgs)
		}
		if n := len(fb.requests()); n != 0 {
			t.Errorf("fallback asked %d times", n)
		}
	})
	t.Run("wrong type then good", func(t *testing.T) {
		f := newFake(t, bearer, step{content: `{"facts":"one"}`}, step{content: goodJSON, lastUser: reinforceJSON})
		r := newRig(config(f))
		got := plan{Facts: []string{"untouched"}}
		if err := r.CompleteJSON(context.Background(), extractReq(), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Facts) != 1 || got.Facts[0] != "moved to Lyon" {
			t.Errorf("got %+v", got)
		}
	})
}

func TestRetries(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name      string
		steps     []step
		wantErr   error
		errHas    string
		sleeps    []time.Duration
		checkWait func(d time.Duration) bool
		outcomes  []string
		timeout   time.Duration
	}{
		{name: "500,500,good", steps: []step{{status: 500, raw: `{"error":{"message":"boom"}}`}, {status: 500}, {content: goodJSON}},
			sleeps: []time.Duration{ms, 2 * ms}, outcomes: []string{"http_error", "http_error", "ok"}},
		{name: "429 Retry-After seconds", steps: []step{{status: 429, header: map[string]string{"Retry-After": "1"}}, {content: goodJSON}},
			sleeps: []time.Duration{time.Second}, outcomes: []string{"http_error", "ok"}},
		{name: "503 Retry-After date", steps: []step{{status: 503, header: map[string]string{
			"Retry-After": time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)}}, {content: goodJSON}},
			checkWait: func(d time.Duration) bool { return d > time.Second && d <= 3*time.Second }, outcomes: []string{"http_error", "ok"}},
		{name: "Retry-After capped at 60s", steps: []step{{status: 429, header: map[string]string{"Retry-After": "3600"}}, {content: goodJSON}},
			sleeps: []time.Duration{time.Minute}, outcomes: []string{"http_error", "ok"}, timeout: 5 * time.Minute},
		{name: "connection dropped", steps: []step{{hangup: true}, {content: goodJSON}},
			sleeps: []time.Duration{ms}, outcomes: []string{"network_error", "ok"}},
		{name: "401 no retry", steps: []step{{status: 401, raw: `{"error":{"message":"Incorrect API key provided: ` + testKey + `"}}`}},
			wantErr: memory.ErrProvider, errHas: "HTTP 401", outcomes: []string{"http_error"}},
		{name: "404 no retry", steps: []step{{status: 404, raw: "model not found"}},
			wantErr: memory.ErrProvider, errHas: "HTTP 404", outcomes: []string{"http_error"}},
		{name: "400 unrelated is no negotiation, and rejects this request", steps: []step{{status: 400, raw: `{"error":{"message":"maximum context length exceeded"}}`}},
			wantErr: memory.ErrRejected, errHas: "HTTP 400", outcomes: []string{"http_error"}},
		{name: "422 content filter rejects this request", steps: []step{{status: 422, raw: `{"error":{"message":"content filtered"}}`}},
			wantErr: memory.ErrRejected, errHas: "HTTP 422", outcomes: []string{"http_error"}},
		{name: "413 too long rejects this request", steps: []step{{status: 413, raw: `{"error":{"message":"too large"}}`}},
			wantErr: memory.ErrRejected, errHas: "HTTP 413", outcomes: []string{"http_error"}},
		{name: "402 out of credits is the account, not this request", steps: []step{{status: 402, raw: `{"error":{"message":"insufficient balance"}}`}},
			wantErr: memory.ErrProvider, errHas: "HTTP 402", outcomes: []string{"http_error"}},
		{name: "409 from a proxy is the endpoint, not this request", steps: []step{{status: 409}},
			wantErr: memory.ErrProvider, errHas: "HTTP 409", outcomes: []string{"http_error"}},
		{name: "500 four times", steps: []step{{status: 500}, {status: 502}, {status: 503}, {status: 500}},
			wantErr: memory.ErrProvider, errHas: "after 4 attempts", sleeps: []time.Duration{ms, 2 * ms, 4 * ms},
			outcomes: []string{"http_error", "http_error", "http_error", "http_error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, bearer, tc.steps...)
			cfg := config(f)
			cfg.Timeout = cmp(tc.timeout, cfg.Timeout)
			r := newRig(cfg)
			err := r.CompleteJSON(context.Background(), extractReq(), &plan{})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			// Only a failure any request would meet (the key, the account,
			// the model's name, a rate limit) is the endpoint being down.
			down := len(tc.steps) > 0 && slices.Contains([]int{401, 402, 404, 409, 429}, tc.steps[len(tc.steps)-1].status)
			if errors.Is(err, memory.ErrEndpointDown) != down {
				t.Errorf("down = %v, want %v: %v", errors.Is(err, memory.ErrEndpointDown), down, err)
			}
			if err != nil {
				if msg := err.Error(); !strings.Contains(msg, tc.errHas) || !strings.Contains(msg, f.host()) || strings.Contains(msg, testKey) {
					t.Errorf("error %q: want %q and the host, never the key", msg, tc.errHas)
				}
			}
			if tc.checkWait != nil {
				if len(r.sleeps) != 1 || !tc.checkWait(r.sleeps[0]) {
					t.Errorf("sleeps %v", r.sleeps)
				}
			} else if !reflect.DeepEqual(r.sleeps, tc.sleeps) {
				t.Errorf("sleeps %v, want %v", r.sleeps, tc.sleeps)
			}
			if o := r.outcomes(); !reflect.DeepEqual(o, tc.outcomes) {
				t.Errorf("outcomes %v, want %v", o, tc.outcomes)
			}
			if n := int(r.keyReads.Load()); n != len(tc.steps) {
				t.Errorf("key read %d times for %d requests", n, len(tc.steps))
			}
		})
	}
}

// The ledger counts a request's body as sent only when a connection was
// made: a refused one sent nothing, and says so.
func TestLedgerCountsOnlyWhatLeft(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	refused := down.Listener.Addr().String()
	down.Close() // nothing listens there now: connecting is refused at once
	key := func(context.Context) (string, error) { return testKey, nil }
	r := newRig(Config{Primary: Endpoint{Base: "http://" + refused + "/v1", Model: testModel, Key: key},
		UserAgent: testUA, Backoff: time.Millisecond, Timeout: 10 * time.Second})
	if err := r.CompleteJSON(context.Background(), extractReq(), &plan{}); !errors.Is(err, memory.ErrProvider) {
		t.Fatalf("err %v, want a provider error", err)
	}
	calls := r.ledger()
	if len(calls) != 4 {
		t.Fatalf("%d calls ledgered, want every attempt (4)", len(calls))
	}
	for _, c := range calls {
		if c.Outcome != "network_error" || c.BytesOut != 0 || c.BytesIn != 0 || c.Host != refused {
			t.Errorf("refused call ledgered as %+v, want a network error with nothing sent", c)
		}
	}

	f := newFake(t, bearer, step{content: goodJSON})
	r = newRig(config(f))
	if err := r.CompleteJSON(context.Background(), extractReq(), &plan{}); err != nil {
		t.Fatal(err)
	}
	if c := r.ledger(); len(c) != 1 || c[0].BytesOut == 0 || c[0].BytesIn == 0 {
		t.Errorf("answered call ledgered as %+v, want its bytes both ways", c)
	}
}

func TestRealBackoffSleeps(t *testing.T) {
	f := newFake(t, bearer, step{status: 500}, step{content: goodJSON})
	cfg := config(f)
	cfg.Backoff = 50 * time.Millisecond
	start := time.Now()
	if err := New(cfg).CompleteJSON(context.Background(), extractReq(), &plan{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("took %v, want a 50ms backoff", d)
	}
}

func TestRetryAfterBeyondBudgetGivesUp(t *testing.T) {
	f := newFake(t, bearer, step{status: 429, header: map[string]string{"Retry-After": "30"}})
	cfg := config(f)
	cfg.Timeout = 2 * time.Second
	r := newRig(cfg)
	err := r.CompleteJSON(context.Background(), extractReq(), &plan{})
	if !errors.Is(err, memory.ErrProvider) || len(r.sleeps) != 0 {
		t.Fatalf("err %v sleeps %v: want ErrProvider without waiting", err, r.sleeps)
	}
}

func TestTimeout(t *testing.T) {
	t.Run("alone", func(t *testing.T) {
		f := newFake(t, bearer, step{delay: 10 * time.Second})
		cfg := config(f)
		cfg.Timeout = 200 * time.Millisecond
		r := newRig(cfg)
		err := r.CompleteJSON(context.Background(), extractReq(), &plan{})
		if !errors.Is(err, memory.ErrProvider) || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want ErrProvider", err)
		}
		if o := r.outcomes(); !reflect.DeepEqual(o, []string{"timeout"}) {
			t.Errorf("outcomes %v", o)
		}
	})
	t.Run("primary gets two thirds, then fallback", func(t *testing.T) {
		p := newFake(t, bearer, step{delay: 10 * time.Second})
		fb := newFake(t, "", step{content: goodJSON})
		cfg := config(p)
		cfg.Timeout = 900 * time.Millisecond
		cfg.Fallback = &Endpoint{Base: fb.base()}
		r := newRig(cfg)
		if err := r.CompleteJSON(context.Background(), extractReq(), &plan{}); err != nil {
			t.Fatal(err)
		}
		calls := r.ledger()
		if len(calls) != 2 || calls[0].Outcome != "timeout" || calls[1].Outcome != "ok" {
			t.Fatalf("ledger %+v", calls)
		}
		// The fallback answered inside the one budget: the primary was cut
		// short (it would have taken 10s), which is all a test can assert
		// without depending on timing.
	})
}

func TestCallerContext(t *testing.T) {
	t.Run("cancelled during the call", func(t *testing.T) {
		f := newFake(t, bearer, step{delay: 10 * time.Second})
		fb := newFake(t, "")
		cfg := config(f)
		cfg.Fallback = &Endpoint{Base: fb.base()}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		err := newRig(cfg).CompleteJSON(ctx, extractReq(), &plan{})
		if !errors.Is(err, context.Canceled) || errors.Is(err, memory.ErrProvider) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		f := newFake(t, bearer)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := newRig(config(f)).Complete(ctx, extractReq()); !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("caller deadline", func(t *testing.T) {
		f := newFake(t, bearer, step{delay: 10 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		err := newRig(config(f)).CompleteJSON(ctx, extractReq(), &plan{})
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, memory.ErrProvider) {
			t.Fatalf("err %v, want the caller's DeadlineExceeded", err)
		}
	})
}

func TestComplete(t *testing.T) {
	t.Run("plain text, no response_format", func(t *testing.T) {
		f := newFake(t, bearer, step{format: "none", content: "<think>hmm</think>\n A short summary. "})
		got, err := newRig(config(f)).Complete(context.Background(), extractReq())
		if err != nil || got != "A short summary." {
			t.Fatalf("got %q, %v", got, err)
		}
	})
	t.Run("only thinking, then text", func(t *testing.T) {
		f := newFake(t, bearer, step{content: "<think>only thinking</think>"}, step{format: "none", content: "Summary.", lastUser: reinforceText})
		got, err := newRig(config(f)).Complete(context.Background(), extractReq())
		if err != nil || got != "Summary." {
			t.Fatalf("got %q, %v", got, err)
		}
		if msgs := f.requests()[1].messages; len(msgs) != 2 {
			t.Errorf("reminder should join the user message so roles alternate: %+v", msgs)
		}
	})
	t.Run("only thinking twice", func(t *testing.T) {
		f := newFake(t, bearer, step{content: "<think>a</think>"}, step{content: "<think>b</think>"})
		if _, err := newRig(config(f)).Complete(context.Background(), extractReq()); !errors.Is(err, memory.ErrUnparseable) {
			t.Fatalf("err %v", err)
		}
	})
}

// TestLedger_A200ThatIsNoCompletionIsUnparseable: an endpoint answering 200
// with a body that is not a chat completion is in the ledger as an
// unreadable answer, not as an HTTP error with status 200.
func TestLedger_A200ThatIsNoCompletionIsUnparseable(t *testing.T) {
	f := newFake(t, bearer, step{raw: "this is not JSON at all"})
	r := newRig(config(f))
	_ = r.CompleteJSON(context.Background(), extractReq(), &plan{})
	calls := r.ledger()
	if len(calls) == 0 {
		t.Fatal("no call in the ledger")
	}
	for _, c := range calls {
		if c.Status != 200 || c.Outcome != "unparseable" {
			t.Errorf("ledger row %+v, want status 200 and outcome unparseable", c)
		}
	}
}

// TestRedirectsAreNotFollowed: an endpoint that answers with a redirect
// (to another host, or another port of its own host, where Go would send
// the key along) gets that answer back as a failed call, ledgered with its
// status; the address it points to receives nothing.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
	}))
	t.Cleanup(other.Close)
	for _, code := range []int{301, 302, 307, 308} {
		redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, code)
		}))
		key := func(context.Context) (string, error) { return testKey, nil }
		r := newRig(Config{Primary: Endpoint{Base: redirect.URL + "/v1", Model: testModel, Key: key},
			UserAgent: testUA, Backoff: time.Millisecond, Retries: -1, Timeout: 10 * time.Second})
		if err := r.CompleteJSON(context.Background(), extractReq(), &plan{}); err == nil {
			t.Errorf("%d: the call succeeded", code)
		}
		if calls := r.ledger(); len(calls) != 1 || calls[0].Status != code {
			t.Errorf("%d: ledger %+v, want one call with that status", code, calls)
		}
		redirect.Close()
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the redirect's target was reached %d times", n)
	}
}

// TestNoConnectionIsTheEndpointDown: an endpoint nothing listens on fails
// every request alike (memory.ErrEndpointDown), unlike a connection that
// drops mid-answer, which may be a runner crashing on this very request.
func TestNoConnectionIsTheEndpointDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close()
	key := func(context.Context) (string, error) { return testKey, nil }
	r := newRig(Config{Primary: Endpoint{Base: base, Model: testModel, Key: key}, UserAgent: testUA,
		Backoff: time.Millisecond, Timeout: 5 * time.Second})
	err = r.CompleteJSON(context.Background(), extractReq(), &plan{})
	if !errors.Is(err, memory.ErrEndpointDown) {
		t.Errorf("err %v, want the endpoint down", err)
	}
	f := newFake(t, bearer, step{hangup: true}, step{hangup: true}, step{hangup: true}, step{hangup: true})
	err = newRig(config(f)).CompleteJSON(context.Background(), extractReq(), &plan{})
	if !errors.Is(err, memory.ErrProvider) || errors.Is(err, memory.ErrEndpointDown) {
		t.Errorf("connections dropped mid-answer: %v, want unavailable but not down", err)
	}
}

// A redirect whose body is a chat completion is not taken as the answer
// (go-openai reads a 3xx's body as one): the call fails, an http_error in
// the ledger, and nothing of that body is used.
func TestARedirectWithACompletionFails(t *testing.T) {
	body := `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"facts\":[\"moved to Lyon\"]}"},"finish_reason":"stop"}]}`
	for _, code := range []int{300, 301, 302, 303, 307, 308} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "http://elsewhere.invalid/v1/chat/completions")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_, _ = io.WriteString(w, body)
		}))
		key := func(context.Context) (string, error) { return testKey, nil }
		r := newRig(Config{Primary: Endpoint{Base: srv.URL + "/v1", Model: testModel, Key: key},
			UserAgent: testUA, Backoff: time.Millisecond, Retries: -1, Timeout: 10 * time.Second})
		var p plan
		if err := r.CompleteJSON(context.Background(), extractReq(), &p); err == nil || len(p.Facts) != 0 {
			t.Errorf("%d: err %v, plan %+v; want a failure and nothing read", code, err, p)
		}
		if calls := r.ledger(); len(calls) != 1 || calls[0].Status != code || calls[0].Outcome != "http_error" {
			t.Errorf("%d: ledger %+v, want one http_error with that status", code, calls)
		}
		srv.Close()
	}
}

// A connection that drops while the answer's body comes is a network
// error, asked again like one that drops before it; it was taken for an
// unreadable answer, and not asked again.
func TestAnAnswerCutShortIsAskedAgain(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Content-Length", "5000")
			w.WriteHeader(200)
			_, _ = io.WriteString(w, `{"id":"c1","choices":[{"message":{"content":"`)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c2","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"facts\":[\"moved to Lyon\"]}"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	key := func(context.Context) (string, error) { return testKey, nil }
	r := newRig(Config{Primary: Endpoint{Base: srv.URL + "/v1", Model: testModel, Key: key},
		UserAgent: testUA, Backoff: time.Millisecond, Retries: 2, Timeout: 10 * time.Second})
	var p plan
	if err := r.CompleteJSON(context.Background(), extractReq(), &p); err != nil || len(p.Facts) != 1 {
		t.Fatalf("err %v, plan %+v; want the second answer", err, p)
	}
	if got := r.outcomes(); len(got) != 2 || got[0] != "network_error" || got[1] != "ok" {
		t.Errorf("ledger outcomes %q, want network_error then ok", got)
	}
}
