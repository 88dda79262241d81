package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestExtractJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"  ```json\n{\"a\":1}\n```  ", `{"a":1}`},
		{"```\n{\"a\":1}\n```", `{"a":1}`},
		{"Here you go: {\"a\":{\"b\":2}} done", `{"a":{"b":2}}`},
		{"<think>maybe {x}</think>{\"a\":1}", `{"a":1}`},
		{"<think>a</think><think>b</think>\n```json\n{\"a\":1}\n```", `{"a":1}`},
		{"<think>{\"a\":1}", `{"a":1}`},
		{"no object here", ""},
		{"} backwards {", ""},
	} {
		if got := extractJSON(tc.in); got != tc.want {
			t.Errorf("extractJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://api.x.com/v1", "https://api.x.com/v2", true},
		{"https://API.x.com/v1", "https://api.x.com:443/v1", true},
		{"http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1", true},
		{"http://127.0.0.1:11434/v1", "http://127.0.0.1:8080/v1", false},
		{"http://localhost:11434/v1", "http://127.0.0.1:11434/v1", false},
		{"http://api.x.com/v1", "https://api.x.com/v1", false},
		{"https://api.x.com/v1", "https://evil.example/v1", false},
		{"", "", false},
	} {
		if got := SameOrigin(tc.a, tc.b); got != tc.want {
			t.Errorf("SameOrigin(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	h := func(v string) http.Header { return http.Header{"Retry-After": {v}} }
	if d, ok := retryAfter(h("7")); !ok || d != 7*time.Second {
		t.Errorf("seconds: %v %v", d, ok)
	}
	if d, ok := retryAfter(h(time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat))); !ok || d != 0 {
		t.Errorf("past date: %v %v", d, ok)
	}
	for _, v := range []string{"", "soon", "1.5", "-3"} {
		if d, ok := retryAfter(h(v)); ok && d != 0 {
			t.Errorf("%q: %v", v, d)
		}
	}
}

func TestRejectsFormat(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{400, schemaRejected, true},
		{422, objectRejected, true},
		{400, `{"error":"Structured outputs are not supported"}`, true},
		{400, `{"error":"maximum context length exceeded"}`, false},
		{500, schemaRejected, false},
		{401, "response_format", false},
	} {
		if got := rejectsFormat(tc.status, []byte(tc.body)); got != tc.want {
			t.Errorf("rejectsFormat(%d, %q) = %v", tc.status, tc.body, got)
		}
	}
}
