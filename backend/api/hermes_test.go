package api_test

import (
	"errors"
	"strings"
	"testing"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
)

// fakeHermes records calls; the installer itself is tested in backend/hermes.
type fakeHermes struct {
	calls []string
	fail  error
}

func (f *fakeHermes) verb(name, profile string) (api.HermesState, error) {
	f.calls = append(f.calls, name+":"+profile)
	if f.fail != nil {
		return api.HermesState{}, f.fail
	}
	return api.HermesState{HermesHome: "/h/" + profile, Installed: name != "uninstall", Active: name == "install"}, nil
}
func (f *fakeHermes) Status(p string) (api.HermesState, error)    { return f.verb("status", p) }
func (f *fakeHermes) Install(p string) (api.HermesState, error)   { return f.verb("install", p) }
func (f *fakeHermes) Uninstall(p string) (api.HermesState, error) { return f.verb("uninstall", p) }

func TestHermesEndpoints(t *testing.T) {
	h := &fakeHermes{}
	a := newAPI(t, rigOpts{hermes: h})
	st := a.do(req{path: "/api/v1/hermes"}).json(t)
	if st["installed"] != true || st["last_contact"] != nil {
		t.Errorf("status before any plugin call = %v", st)
	}
	// A call from the plugin (its User-Agent) is the last contact.
	a.do(req{path: "/healthz", headers: map[string]string{"User-Agent": "hyatlas-hermes/1.0.0"}})
	if st = a.do(req{path: "/api/v1/hermes?profile=coder"}).json(t); st["last_contact"] == nil || st["hermes_home"] != "/h/coder" {
		t.Errorf("status after a plugin call = %v", st)
	}
	if r := a.post("/api/v1/hermes/install", map[string]string{"profile": "work"}, 200); r["active"] != true {
		t.Errorf("install = %v", r)
	}
	a.post("/api/v1/hermes/uninstall", nil, 200)
	if got := strings.Join(h.calls, ","); got != "status:,status:coder,install:work,uninstall:" {
		t.Errorf("calls = %s", got)
	}
	for _, c := range []struct {
		body string
		want int
	}{{`{"profile": 3}`, 400}, {`{"profile": "x", "extra": 1}`, 400}, {`[1]`, 400}} {
		if r := a.do(req{method: "POST", path: "/api/v1/hermes/install", body: c.body}); r.status != c.want {
			t.Errorf("install %s: %d %s", c.body, r.status, r.body)
		}
	}
	h.fail = errors.New("config.yaml writes memory on one line; set memory.provider: hyatlas there by hand")
	r := a.do(req{method: "POST", path: "/api/v1/hermes/install", body: `{}`})
	if r.status != 409 || !strings.Contains(string(r.body), "by hand") {
		t.Errorf("failed install: %d %s", r.status, r.body)
	}
	// The installer's own refusals keep their status: a bad profile name is
	// 422, a profile Hermes does not have is 404 (not a conflict).
	for _, c := range []struct {
		err  error
		want int
	}{{memory.Errorf(memory.EINVALID, "profile \"../x\" is not a valid Hermes profile name"), 422},
		{memory.Errorf(memory.ENOTFOUND, "no such Hermes profile \"cdoer\""), 404}} {
		h.fail = c.err
		if r := a.do(req{method: "POST", path: "/api/v1/hermes/install", body: `{"profile":"x"}`}); r.status != c.want {
			t.Errorf("%v: %d %s", c.err, r.status, r.body)
		}
	}
	if r := newAPI(t, rigOpts{}).do(req{path: "/api/v1/hermes"}); r.status != 503 {
		t.Errorf("without an installer: %d", r.status)
	}
}

func TestSessionEnd(t *testing.T) {
	a := newAPI(t, rigOpts{})
	if r := a.post("/api/v1/session/end", map[string]string{"user_id": "u1", "agent_id": "hermes", "session_id": "s"}, 200); r["closed"] != false {
		t.Errorf("session end with no episode = %v", r)
	}
	for _, body := range []string{`{"user_id": 1}`, `{"who": "x"}`, `nope`} {
		if r := a.do(req{method: "POST", path: "/api/v1/session/end", body: body}); r.status != 400 {
			t.Errorf("%s: %d %s", body, r.status, r.body)
		}
	}
}

func TestTokenForSignedInCallersOnly(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	r := a.do(req{path: "/api/v1/token"})
	if r.status != 200 || !strings.Contains(string(r.body), testToken) || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("signed in: %d %s", r.status, r.body)
	}
	if r := a.do(req{path: "/api/v1/token", noAuth: true}); r.status != 401 || strings.Contains(string(r.body), testToken) {
		t.Errorf("without the token: %d %s", r.status, r.body)
	}
}
