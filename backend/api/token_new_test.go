package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"hyatlas/backend/api"
)

// signIn opens a dashboard session through a one-time link (as the page
// does: it trades the link's code) and returns the session id.
func (a *apiRig) signIn() string {
	a.t.Helper()
	link := a.api.DashboardURL(a.srv.URL)
	code := link[strings.Index(link, "code=")+5:]
	r := a.do(req{method: "POST", path: "/dashboard/session", noAuth: true, body: `{"code":"` + code + `"}`})
	session, _ := r.json(a.t)["session"].(string)
	if r.status != 200 || session == "" {
		a.t.Fatalf("sign-in: %d %s", r.status, r.body)
	}
	return session
}

// statusWith is the status of GET /api/v1/status sent with a bearer token
// or a dashboard session.
func (a *apiRig) statusWith(token, session string) int {
	a.t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	if session != "" {
		h[api.SessionHeader] = session
	}
	return a.do(req{path: "/api/v1/status", noAuth: true, headers: h}).status
}

// POST /api/v1/token makes a new token: the old one stops working at once,
// the file holds the new one, and every dashboard session but the
// caller's ends.
func TestNewToken_ReplacesTheTokenAtOnce(t *testing.T) {
	dir := t.TempDir()
	a := newAPI(t, rigOpts{auth: true, tokenDir: dir})
	caller, other := a.signIn(), a.signIn()
	r := a.do(req{method: "POST", path: "/api/v1/token", noAuth: true, headers: map[string]string{api.SessionHeader: caller}})
	tok, _ := r.json(t)["token"].(string)
	if r.status != 200 || len(tok) != 64 || tok == testToken || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("new token: %d %s", r.status, r.body)
	}
	for _, tc := range []struct {
		name           string
		token, session string
		want           int
	}{
		{"the old token", testToken, "", 401},
		{"the new token", tok, "", 200},
		{"the caller's session", "", caller, 200},
		{"another session", "", other, 401},
	} {
		if got := a.statusWith(tc.token, tc.session); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	path := filepath.Join(dir, api.TokenFile)
	b, err := os.ReadFile(path)
	if err != nil || strings.TrimSpace(string(b)) != tok {
		t.Errorf("token file %q, %v; want the new token", b, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*"+api.TokenFile+".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	r = a.do(req{path: "/api/v1/token", noAuth: true, headers: map[string]string{"Authorization": "Bearer " + tok}})
	if !strings.Contains(string(r.body), tok) {
		t.Errorf("GET /api/v1/token after: %s", r.body)
	}
	if r := a.do(req{method: "POST", path: "/api/v1/token", noAuth: true}); r.status != 401 {
		t.Errorf("a new token without being signed in: %d", r.status)
	}
}

// A token written to the file by another process (hyatlas token --new)
// is in force at the next request and ends the dashboard sessions; a file
// that goes missing or is damaged leaves the last good token in force.
func TestNewToken_FromTheFileTakesEffect(t *testing.T) {
	dir := t.TempDir()
	a := newAPI(t, rigOpts{auth: true, tokenDir: dir})
	session := a.signIn()
	if a.statusWith("", session) != 200 {
		t.Fatal("no session to begin with")
	}
	tok, err := api.NewToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.statusWith("", session); got != 401 {
		t.Errorf("a session opened before the change, as the first request after it: %d", got)
	}
	if got := a.statusWith(testToken, ""); got != 401 {
		t.Errorf("the old token after the file changed: %d", got)
	}
	if got := a.statusWith(tok, ""); got != 200 {
		t.Errorf("the new token: %d", got)
	}
	path := filepath.Join(dir, api.TokenFile)
	for _, tc := range []struct {
		name   string
		damage func() error
	}{
		{"damaged", func() error { return os.WriteFile(path, []byte("short\n"), 0o600) }},
		{"missing", func() error { return os.Remove(path) }},
	} {
		if err := tc.damage(); err != nil {
			t.Fatal(err)
		}
		if got := a.statusWith(tok, ""); got != 200 {
			t.Errorf("token file %s: the last good token gets %d", tc.name, got)
		}
	}
}

// TestToken_TwoRotationsAtOnceLeaveTheFilesTokenInForce: the Settings
// page's New token (POST /api/v1/token) and `hyatlas token --new` at the
// same moment: afterwards the token in the file is the one accepted (the
// Hermes plugin and the CLI read the file), and the POST answered it.
func TestToken_TwoRotationsAtOnceLeaveTheFilesTokenInForce(t *testing.T) {
	dir := t.TempDir()
	a := newAPI(t, rigOpts{auth: true, tokenDir: dir})
	tok := testToken
	for i := range 200 {
		var wg sync.WaitGroup
		var posted string
		wg.Add(2)
		go func() {
			defer wg.Done()
			hr, _ := http.NewRequest("POST", a.srv.URL+"/api/v1/token", nil)
			hr.Header.Set("Authorization", "Bearer "+tok)
			res, err := http.DefaultClient.Do(hr)
			if err == nil {
				var out map[string]string
				_ = json.NewDecoder(res.Body).Decode(&out)
				posted = out["token"]
				res.Body.Close()
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := api.NewToken(dir); err != nil {
				t.Error(err)
			}
		}()
		wg.Wait()
		file := fileToken(t, dir)
		if code := a.statusWith(file, ""); code != 200 {
			t.Fatalf("round %d: the token in the file is refused (HTTP %d); the one POST answered gets HTTP %d", i, code, a.statusWith(posted, ""))
		}
		if posted != "" && posted != file && a.statusWith(posted, "") == 200 {
			t.Fatalf("round %d: a token the file does not hold is accepted", i)
		}
		tok = file
	}
}

func fileToken(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, api.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
