package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// The guard and the token against DNS rebinding, cross-site and opaque
// origins, simple cross-origin writes, CORS preflights and unclean paths.
func TestGuardAndTokenHoldAgainstTheWeb(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	port := a.srv.URL[strings.LastIndex(a.srv.URL, ":")+1:]
	// DNS rebinding: names that resolve to loopback but are not ours.
	for _, host := range []string{"127.0.0.1.nip.io", "localhost.evil.example", "0.0.0.0", "127.1", "evil.example"} {
		if r := a.do(req{path: "/api/v1/status", headers: map[string]string{"Host": host + ":" + port}}); r.status != 403 {
			t.Errorf("Host %s: %d, want 403", host, r.status)
		}
	}
	// Cross-site and opaque origins, even with the right token.
	for _, h := range []map[string]string{{"Origin": "null"}, {"Origin": "https://evil.example"}, {"Origin": "file://"},
		{"Origin": "http://localhost@evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": ""}} {
		if r := a.do(req{path: "/api/v1/status", headers: h}); r.status != 403 {
			t.Errorf("%v: %d, want 403", h, r.status)
		}
	}
	// A browser may open the dashboard's page from elsewhere (the tray's
	// sign-in page is a local file): a top-level GET of its page, and
	// nothing else, passes cross-site.
	nav := map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
	if r := a.do(req{path: "/dashboard/?code=abc", noAuth: true, headers: nav}); r.status != 200 {
		t.Errorf("opening the dashboard from a local page: %d %s", r.status, r.body)
	}
	for _, q := range []req{
		{path: "/api/v1/status", headers: nav},
		{method: "POST", path: "/dashboard/session", body: `{"code":"abc"}`, noAuth: true, headers: nav},
		{path: "/dashboard/", noAuth: true, headers: map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"}},
		{path: "/dashboard/", noAuth: true, headers: map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "script"}},
		{path: "/dashboardx", noAuth: true, headers: nav},
	} {
		if r := a.do(q); r.status != 403 {
			t.Errorf("%s %s %v: %d, want 403", q.method, q.path, q.headers, r.status)
		}
	}
	// A simple (no-preflight) write from another local origin is refused.
	if r := a.do(req{method: "POST", path: "/api/v1/add", body: `{"text":"x"}`,
		headers: map[string]string{"Origin": "http://localhost:3000", "Content-Type": "text/plain"}}); r.status != 403 {
		t.Errorf("text/plain from another origin: %d", r.status)
	}
	// No CORS is ever granted, so another origin cannot read an answer.
	r := a.do(req{method: "OPTIONS", path: "/api/v1/token", noAuth: true,
		headers: map[string]string{"Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET"}})
	if r.header.Get("Access-Control-Allow-Origin") != "" || r.status < 400 {
		t.Errorf("preflight answered %d %v", r.status, r.header)
	}
	// Unclean paths do not skip the token check (they redirect or 404).
	for _, p := range []string{"//api/v1/token", "/./api/v1/token", "/x/../api/v1/token", "/%61pi/v1/token"} {
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		hr, _ := http.NewRequest("GET", a.srv.URL, nil)
		hr.URL.Opaque = p
		res, err := c.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			t.Errorf("%s without a token: 200", p)
		}
	}
	// A wrong token of the right length, and a prefix, are refused.
	for _, tok := range []string{strings.Repeat("0", 64), testToken[:32], testToken + "0"} {
		if r := a.do(req{path: "/api/v1/status", noAuth: true, headers: map[string]string{"Authorization": "Bearer " + tok}}); r.status != 401 {
			t.Errorf("token %q: %d", tok, r.status)
		}
	}
}
