package llm

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

const (
	schemaRejected = `{"error":{"message":"response_format type 'json_schema' is not supported by this server","type":"invalid_request_error"}}`
	objectRejected = `{"detail":"'response_format.type' must be 'json_schema' or 'text'"}`
)

func TestNegotiation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		first    []step // the first call
		second   step   // the second call's single request
		outcomes []string
		noSchema bool
	}{
		{name: "json_schema rejected, json_object remembered",
			first: []step{
				{format: "json_schema", status: 400, raw: schemaRejected},
				{format: "json_object", content: goodJSON},
			},
			second:   step{format: "json_object", content: goodJSON},
			outcomes: []string{"http_error", "ok", "ok"}},
		{name: "both rejected, plain remembered",
			first: []step{
				{format: "json_schema", status: 422, raw: schemaRejected},
				{format: "json_object", status: 400, raw: objectRejected},
				{format: "none", content: goodJSON},
			},
			second:   step{format: "none", content: goodJSON},
			outcomes: []string{"http_error", "http_error", "ok", "ok"}},
		{name: "no schema starts with json_object",
			first:    []step{{format: "json_object", content: goodJSON}},
			second:   step{format: "json_object", content: goodJSON},
			outcomes: []string{"ok", "ok"}, noSchema: true},
		{name: "accepted schema stays",
			first:    []step{{format: "json_schema", content: goodJSON}},
			second:   step{format: "json_schema", content: goodJSON},
			outcomes: []string{"ok", "ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, bearer, append(tc.first, tc.second)...)
			r := newRig(config(f))
			req := extractReq()
			if tc.noSchema {
				req.Schema = nil
			}
			for i := range 2 {
				if err := r.CompleteJSON(context.Background(), req, &plan{}); err != nil {
					t.Fatalf("call %d: %v", i+1, err)
				}
			}
			if o := r.outcomes(); !reflect.DeepEqual(o, tc.outcomes) {
				t.Errorf("outcomes %v, want %v", o, tc.outcomes)
			}
			if len(r.sleeps) != 0 {
				t.Errorf("negotiation slept %v", r.sleeps)
			}
		})
	}
}

func TestNegotiationIsPerEndpoint(t *testing.T) {
	f := newFake(t, bearer,
		step{format: "json_schema", status: 400, raw: schemaRejected},
		step{format: "json_object", content: goodJSON},
		step{model: "other", format: "json_schema", content: goodJSON})
	cfg := config(f)
	r := newRig(cfg)
	if err := r.CompleteJSON(context.Background(), extractReq(), &plan{}); err != nil {
		t.Fatal(err)
	}
	cfg.Primary.Model = "other"
	r2 := newRig(cfg) // a new client remembers nothing; and the map is keyed by model
	if err := r2.CompleteJSON(context.Background(), extractReq(), &plan{}); err != nil {
		t.Fatal(err)
	}
}

func TestFallbackKey(t *testing.T) {
	fbKey := func(context.Context) (string, error) { return "fb-key", nil }
	for _, tc := range []struct {
		name     string
		sameHost bool
		base     string // for same-host cases: "" or the primary's base
		model    string
		key      func(context.Context) (string, error)
		wantAuth string
	}{
		{name: "other host gets no key", wantAuth: ""},
		{name: "other host with its own key", key: fbKey, wantAuth: "Bearer fb-key"},
		{name: "same host, empty base, gets primary key", sameHost: true, model: "small", wantAuth: bearer},
		{name: "same host, explicit base, gets primary key", sameHost: true, base: "primary", model: "small", wantAuth: bearer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fail := step{status: 503, raw: "overloaded"}
			good := step{content: goodJSON, model: tc.model}
			var p, fb *fake
			if tc.sameHost {
				p = newFake(t, bearer, fail, good)
				if tc.wantAuth != bearer {
					t.Fatal("bad case")
				}
			} else {
				p = newFake(t, bearer, fail)
				fb = newFake(t, tc.wantAuth, good)
			}
			cfg := config(p)
			cfg.Retries = -1
			cfg.Fallback = &Endpoint{Model: tc.model, Key: tc.key}
			switch {
			case fb != nil:
				cfg.Fallback.Base = fb.base()
			case tc.base == "primary":
				cfg.Fallback.Base = p.base()
			}
			r := newRig(cfg)
			if err := r.CompleteJSON(context.Background(), extractReq(), &plan{}); err != nil {
				t.Fatal(err)
			}
			if o := r.outcomes(); !reflect.DeepEqual(o, []string{"http_error", "ok"}) {
				t.Errorf("outcomes %v", o)
			}
		})
	}
}

func TestBothEndpointsFail(t *testing.T) {
	p := newFake(t, bearer, step{status: 500})
	fb := newFake(t, "", step{status: 401, raw: "unauthorized"})
	cfg := config(p)
	cfg.Retries = -1
	cfg.Fallback = &Endpoint{Base: fb.base()}
	err := newRig(cfg).CompleteJSON(context.Background(), extractReq(), &plan{})
	if !errors.Is(err, memory.ErrProvider) {
		t.Fatalf("err %v", err)
	}
	for _, s := range []string{p.host(), fb.host(), "HTTP 500", "HTTP 401", "fallback"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

func TestLedgerSeesEveryRequestNeverTheKey(t *testing.T) {
	p := newFake(t, bearer,
		step{format: "json_schema", status: 400, raw: schemaRejected},
		step{format: "json_object", status: 500, raw: `{"error":{"message":"key ` + testKey + ` overloaded"}}`},
		step{format: "json_object", content: "not json"},
		step{format: "json_object", content: goodJSON, lastUser: reinforceJSON})
	cfg := config(p)
	r := newRig(cfg)
	if err := r.CompleteJSON(context.Background(), extractReq(), &plan{}); err != nil {
		t.Fatal(err)
	}
	calls, reqs := r.ledger(), p.requests()
	want := []struct {
		status  int
		outcome string
	}{{400, "http_error"}, {500, "http_error"}, {200, "unparseable"}, {200, "ok"}}
	if len(calls) != len(want) || len(reqs) != len(want) {
		t.Fatalf("ledger %d calls, server %d requests, want %d", len(calls), len(reqs), len(want))
	}
	for i, c := range calls {
		if c.Status != want[i].status || c.Outcome != want[i].outcome || c.Host != p.host() ||
			c.Model != testModel || c.Purpose != "extract" || c.At.IsZero() || c.Duration <= 0 {
			t.Errorf("call %d: %+v, want %+v", i, c, want[i])
		}
		if c.BytesOut != reqs[i].reqBytes || c.BytesIn != reqs[i].respBytes || c.BytesOut == 0 || c.BytesIn == 0 {
			t.Errorf("call %d: bytes out/in %d/%d, server saw %d/%d", i, c.BytesOut, c.BytesIn, reqs[i].reqBytes, reqs[i].respBytes)
		}
		if strings.Contains(fmt.Sprintf("%#v", c), testKey) {
			t.Errorf("call %d carries the key", i)
		}
	}
}

// An endpoint that echoes the key in its error (some gateways do) never
// gets it into HyAtlas's errors, which reach the log, the status and the
// Settings page: not whole, and not its first part where a long message is
// cut short.
func TestErrorsScrubKey(t *testing.T) {
	long := "Incorrect API key provided: " + strings.Repeat("x", 152)
	tests := []struct{ name, message string }{
		{"the key in the message", "key " + testKey + " is not allowed"},
		{"the key across the cut at 200 characters", long + testKey + " is not valid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, bearer, step{status: 403, raw: `{"error":{"message":"` + tc.message + `"}}`})
			err := newRig(config(f)).CompleteJSON(context.Background(), extractReq(), &plan{})
			if !errors.Is(err, memory.ErrProvider) || strings.Contains(err.Error(), testKey[:12]) || !strings.Contains(err.Error(), "[redacted]") {
				t.Fatalf("err %v", err)
			}
		})
	}
}

func TestDefaultUserAgentAndReasoningModel(t *testing.T) {
	f := newFake(t, "", step{model: "o3-mini", content: goodJSON})
	f.ua = defaultUA
	cfg := config(f)
	cfg.UserAgent = ""
	cfg.Primary = Endpoint{Base: f.base(), Model: "o3-mini",
		Key: func(context.Context) (string, error) { return "", nil }}
	if err := New(cfg).CompleteJSON(context.Background(), extractReq(), &plan{}); err != nil {
		t.Fatal(err)
	}
	if tp := f.requests()[0].temperature; tp != nil {
		t.Errorf("temperature %v sent to a reasoning model", *tp)
	}
}
