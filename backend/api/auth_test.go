package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hyatlas/backend/api"
)

func TestGuard_AllowsLocalClients(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true, hosts: []string{"memory.lan"}})
	port := a.srv.URL[strings.LastIndex(a.srv.URL, ":")+1:]
	tests := []struct {
		name    string
		headers map[string]string
	}{
		{"no Origin (curl, agents)", nil},
		{"localhost Host", map[string]string{"Host": "localhost:" + port}},
		{"IPv6 loopback Host", map[string]string{"Host": "[::1]:" + port}},
		{"allowlisted Host", map[string]string{"Host": "Memory.LAN:" + port}},
		{"loopback Origin", map[string]string{"Origin": "http://localhost:5173"}},
		{"same Origin", map[string]string{"Origin": a.srv.URL}},
		{"allowlisted Origin", map[string]string{"Origin": "https://memory.lan"}},
		{"same-site fetch", map[string]string{"Sec-Fetch-Site": "same-origin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := a.do(req{path: "/api/v1/status", headers: tt.headers}); r.status != 200 {
				t.Errorf("status %d: %s", r.status, r.body)
			}
		})
	}
}

func TestAuth(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	if r := a.do(req{path: "/healthz", noAuth: true}); r.status != 200 {
		t.Errorf("healthz needs no token: %d", r.status)
	}
	if r := a.do(req{path: "/api/v1/status", noAuth: true}); r.status != 401 || r.header.Get("WWW-Authenticate") == "" {
		t.Errorf("no token: %d %v", r.status, r.header)
	}
	if r := a.do(req{path: "/api/v1/status", noAuth: true, headers: map[string]string{"Authorization": "bearer " + testToken}}); r.status != 200 {
		t.Errorf("scheme is case-insensitive: %d", r.status)
	}

	// A one-time dashboard link's code becomes a session, once; the page
	// sends it as a header (a cookie would reach every port of the host).
	link := a.api.DashboardURL(a.srv.URL)
	code := link[strings.Index(link, "code=")+5:]
	if r := a.do(req{path: "/dashboard/?code=" + code, noAuth: true}); r.status != 200 || len(r.header.Values("Set-Cookie")) != 0 {
		t.Fatalf("the sign-in page: %d, cookies %v", r.status, r.header.Values("Set-Cookie"))
	}
	r := a.do(req{method: "POST", path: "/dashboard/session", noAuth: true, body: `{"code":"` + code + `"}`})
	session, _ := r.json(t)["session"].(string)
	if r.status != 200 || len(session) < 32 || strings.Contains(session, testToken) {
		t.Fatalf("sign-in: %d %s", r.status, r.body)
	}
	for name, h := range map[string]map[string]string{
		"no Origin":        {api.SessionHeader: session},
		"own Origin":       {api.SessionHeader: session, "Origin": a.srv.URL, "Sec-Fetch-Site": "same-origin"},
		"typed in the tab": {api.SessionHeader: session, "Sec-Fetch-Site": "none"},
	} {
		if r := a.do(req{path: "/api/v1/status", noAuth: true, headers: h}); r.status != 200 {
			t.Errorf("session, %s: %d", name, r.status)
		}
	}
	for name, h := range map[string]map[string]string{
		"other loopback Origin": {api.SessionHeader: session, "Origin": "http://127.0.0.1:1"},
		"same-site fetch":       {api.SessionHeader: session, "Sec-Fetch-Site": "same-site"},
		"as a cookie":           {"Cookie": "hyatlas_session=" + session},
	} {
		if r := a.do(req{path: "/api/v1/status", noAuth: true, headers: h}); r.status != 401 {
			t.Errorf("session, %s: %d, want 401", name, r.status)
		}
	}
	if r := a.do(req{method: "POST", path: "/dashboard/session", noAuth: true, body: `{"code":"` + code + `"}`}); r.status != 401 {
		t.Errorf("a used sign-in code worked twice: %d %s", r.status, r.body)
	}
	for _, body := range []string{`{}`, `{"code":""}`, `{"code":5}`, `not json`} {
		if r := a.do(req{method: "POST", path: "/dashboard/session", noAuth: true, body: body}); r.status != 400 {
			t.Errorf("sign-in with %s: %d, want 400", body, r.status)
		}
	}
	if r := a.do(req{path: "/api/v1/status", noAuth: true, headers: map[string]string{api.SessionHeader: "forged"}}); r.status != 401 {
		t.Errorf("forged session: %d", r.status)
	}
}

func TestAuthOff(t *testing.T) {
	a := newAPI(t, rigOpts{auth: false})
	// A page on another local port can send a "simple" POST without a
	// preflight; it must not write.
	simple := req{method: "POST", path: "/api/v1/add", body: `{"text":"from a web page"}`, noAuth: true,
		headers: map[string]string{"Origin": "http://127.0.0.1:8000", "Content-Type": "text/plain"}}
	if r := a.do(simple); r.status != 403 {
		t.Errorf("cross-origin text/plain POST: %d, want 403", r.status)
	}
	if st, _ := a.mem.Stats(t.Context()); st.Writes != 0 {
		t.Errorf("it wrote: %+v", st)
	}
	if r := a.do(req{method: "POST", path: "/api/v1/add", body: `{"text":"no token needed"}`, noAuth: true}); r.status != 200 {
		t.Errorf("HYATLAS_AUTH=off: %d %s", r.status, r.body)
	}
	if r := a.do(req{path: "/api/v1/status", noAuth: true, headers: map[string]string{"Host": "evil.example"}}); r.status != 403 {
		t.Errorf("the guard still applies with auth off: %d", r.status)
	}
}

// TestInProcess: the desktop window's requests skip the guard and token
// (they never touch the network) but keep the body limit.
func TestInProcess(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	h := a.api.InProcessHandler()
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "http://wails.localhost/api/v1/status", nil)
	r.Header.Set("Origin", "wails://wails")
	h.ServeHTTP(rec, r)
	if rec.Code != 200 {
		t.Errorf("in-process status: %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "http://wails.localhost/api/v1/add",
		strings.NewReader(`{"text":"`+strings.Repeat("z", 9<<20)+`"}`)))
	if rec.Code != 413 {
		t.Errorf("in-process 9 MiB body: %d", rec.Code)
	}
}

func TestDashboardFiles(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Get(a.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/dashboard/" {
		t.Errorf("/ -> %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	for path, want := range map[string]string{
		"/dashboard/":              "HyAtlas test page",
		"/dashboard/assets/app.js": "console.log",
		"/dashboard/atlas/view":    "HyAtlas test page", // client-side route
		"/dashboard/assets/":       "HyAtlas test page", // never a directory listing
	} {
		r := a.do(req{path: path, noAuth: true})
		if r.status != 200 || !strings.Contains(string(r.body), want) {
			t.Errorf("%s: %d %q", path, r.status, r.body)
		}
	}
	if r := a.do(req{path: "/dashboard/", noAuth: true}); !strings.Contains(r.header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("dashboard has no CSP: %v", r.header)
	}
}

// TestAuth_SessionsOutliveARestart: the server a restart builds in the
// same process, handed the same SignIns, or in a new process, handed them
// over (hashes only), keeps an open dashboard signed in (it showed "signed
// out" after every Restart from Settings); one built with another token
// ends the sessions, as a new token does.
func TestAuth_SessionsOutliveARestart(t *testing.T) {
	shared := &api.SignIns{}
	first := api.New(api.Config{BindHost: "127.0.0.1", Auth: true, Token: testToken, SignIns: shared}, nil, nil)
	link := first.DashboardURL("http://127.0.0.1:1")
	srv := httptest.NewServer(first.Handler())
	res, err := http.Post(srv.URL+"/dashboard/session", "application/json",
		strings.NewReader(`{"code":"`+link[strings.Index(link, "code=")+5:]+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var signedIn struct{ Session string }
	err = json.NewDecoder(res.Body).Decode(&signedIn)
	res.Body.Close()
	srv.Close()
	session := signedIn.Session
	if err != nil || session == "" {
		t.Fatalf("no session from the sign-in link: %v", err)
	}
	handover := shared.Handover() // what a restart that replaces the process passes on
	if strings.Contains(handover, session) || strings.Contains(handover, testToken) {
		t.Fatalf("the handover carries the session or the token itself: %q", handover)
	}
	for _, tc := range []struct {
		token string
		want  int
	}{{testToken, 200}, {strings.Repeat("f", 64), 401}} {
		for _, how := range []string{"same process", "new process", "new process, handover damaged"} {
			signIns := shared
			if how != "same process" {
				signIns = &api.SignIns{}
				text := handover
				if how == "new process, handover damaged" {
					text = strings.Replace(handover, " ", " zz", 1)
				}
				signIns.Receive(text)
			}
			want := tc.want
			if how == "new process, handover damaged" {
				want = 401
			}
			next := api.New(api.Config{BindHost: "127.0.0.1", Auth: true, Token: tc.token, SignIns: signIns}, nil, nil)
			srv := httptest.NewServer(next.Handler())
			r, err := http.NewRequest("GET", srv.URL+"/api/v1/token", nil)
			if err != nil {
				t.Fatal(err)
			}
			r.Header.Set(api.SessionHeader, session)
			res, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			srv.Close()
			if res.StatusCode != want {
				t.Errorf("%s, after a restart with the token %.4s…: %d, want %d", how, tc.token, res.StatusCode, want)
			}
		}
	}
}
