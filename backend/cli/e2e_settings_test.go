package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
)

// okChat is an OpenAI-compatible endpoint that answers every call "OK".
func okChat(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "OK"}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSettings_SaveTestAndRestart: the window's Settings through the API of
// a real `hyatlas serve`: bad values are refused and nothing is saved; good
// ones are saved and apply after POST /api/v1/restart, which starts the
// same process again; "test connection" makes one ledgered call.
func TestSettings_SaveTestAndRestart(t *testing.T) {
	chat := okChat(t)
	in := newInstance(t)
	in.Start("serve")
	c := in.Client()
	ctx := context.Background()
	var st map[string]any
	do := func(method, path string, body any, out any) error {
		return c.Do(ctx, method, path, body, out)
	}
	if err := do("GET", "/api/v1/settings", nil, &st); err != nil {
		t.Fatal(err)
	}
	if st["running"].(map[string]any)["mode"] != "ultra" || len(st["pinned"].([]any)) != 0 || st["can_restart"] != true {
		t.Fatalf("settings = %v", st)
	}
	file := filepath.Join(in.Home, "config", "settings.json")
	for _, bad := range []map[string]any{{"mode": "turbo"}, {"snapshot_keep": "0"}, {"llm_base": "ftp://x"},
		{"port": "1"}, {"mode": 3}, {}} {
		err := do("PUT", "/api/v1/settings", bad, nil)
		var ae *client.Error
		if !errors.As(err, &ae) || (ae.Status != 422 && ae.Status != 400) {
			t.Errorf("PUT %v: %v, want 400 or 422", bad, err)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Fatalf("PUT %v wrote settings.json", bad)
		}
	}
	var tr map[string]any
	if err := do("POST", "/api/v1/settings/test", map[string]string{"llm_base": chat.URL + "/v1", "llm_model": "m"}, &tr); err != nil {
		t.Fatal(err)
	}
	if tr["ok"] != true || tr["reply"] != "OK" || tr["local"] != true {
		t.Errorf("test connection = %v", tr)
	}
	if err := do("POST", "/api/v1/settings/test", map[string]string{"llm_base": "http://127.0.0.1:1/v1", "llm_model": "m"}, &tr); err != nil || tr["ok"] != false || tr["error"] == "" {
		t.Errorf("test of a dead endpoint = %v, %v", tr, err)
	}
	var eg struct {
		Calls []struct{ Purpose string } `json:"calls"`
	}
	if err := do("GET", "/api/v1/egress", nil, &eg); err != nil || len(eg.Calls) != 2 || eg.Calls[0].Purpose != "test" {
		t.Errorf("egress after two tests = %+v %v", eg, err)
	}

	err := do("PUT", "/api/v1/settings", map[string]string{"mode": "pro", "llm_base": chat.URL + "/v1", "llm_model": "m",
		"snapshot_keep": "3"}, &st)
	if err != nil || st["restart_required"] != true || st["next"].(map[string]any)["mode"] != "pro" {
		t.Fatalf("PUT = %v %v", st, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings.json: %v %v", fi, err)
	}
	session := dashboardSession(t, c)
	pid := in.Cmd.Process.Pid
	if err := do("POST", "/api/v1/restart", nil, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := c.Status(ctx)
		if err == nil && string(s.Mode) == "pro" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not back in pro mode after the restart: %+v %v\n%s", s, err, in.Out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if in.Cmd.ProcessState != nil || in.Cmd.Process.Pid != pid {
		t.Error("the restart was not the same process started again")
	}
	if err := do("GET", "/api/v1/settings", nil, &st); err != nil || st["restart_required"] != false {
		t.Errorf("after the restart: %v %v", st, err)
	}
	if !in.Out.WaitForCount("is serving at", 2, 10*time.Second) || strings.Count(in.Out.String(), "is serving at") != 2 {
		t.Errorf("output:\n%s", in.Out.String())
	}
	if code := sessionStatus(t, c.Base, session); code != 200 {
		t.Errorf("an open dashboard is signed out by the restart: HTTP %d", code)
	}
	if code := sessionStatus(t, c.Base, strings.Repeat("0", 64)); code != 401 {
		t.Errorf("a made-up session after the restart: HTTP %d", code)
	}
}

// dashboardSession signs in as the dashboard page does: it trades a
// one-time link's code for a session id.
func dashboardSession(t *testing.T, c *client.Client) string {
	t.Helper()
	link, err := c.DashboardLink(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"code": u.Query().Get("code")})
	res, err := http.Post(c.Base+"/dashboard/session", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Session string `json:"session"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || out.Session == "" {
		t.Fatalf("sign in: HTTP %d %v", res.StatusCode, err)
	}
	return out.Session
}

// sessionStatus is GET /api/v1/status with a dashboard session.
func sessionStatus(t *testing.T, base, session string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/v1/status", nil)
	req.Header.Set(api.SessionHeader, session)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// TestSettings_EnvironmentPins: a value the environment sets is shown as
// pinned and cannot be changed from the window.
func TestSettings_EnvironmentPins(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite")
	in.Start("serve")
	c := in.Client()
	var st map[string]any
	if err := c.Do(context.Background(), "GET", "/api/v1/settings", nil, &st); err != nil {
		t.Fatal(err)
	}
	if p := st["pinned"].([]any); len(p) != 1 || p[0] != "mode" {
		t.Errorf("pinned = %v", p)
	}
	err := c.Do(context.Background(), "PUT", "/api/v1/settings", map[string]string{"mode": "pro"}, nil)
	if err == nil || !strings.Contains(err.Error(), "environment") {
		t.Errorf("changing a pinned value: %v", err)
	}
}

// TestSettings_TestSendsTheKeyOnlyToTheChosenEndpoint: "test connection"
// of an address the user has not saved goes without the stored key (a
// token holder could name their own host to collect it, over plain http
// too); once the address is saved in Settings, the test sends the key.
func TestSettings_TestSendsTheKeyOnlyToTheChosenEndpoint(t *testing.T) {
	var got []string
	seen := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "OK"}}}})
	}))
	t.Cleanup(srv.Close)
	const key = "sk-test-key-only-for-the-chosen-endpoint"
	in := newInstance(t, "HYATLAS_LLM_KEY="+key)
	in.Start("serve")
	c := in.Client()
	ctx := context.Background()
	test := func() {
		t.Helper()
		var tr map[string]any
		if err := c.Do(ctx, "POST", "/api/v1/settings/test", map[string]string{"llm_base": srv.URL + "/v1", "llm_model": "m"}, &tr); err != nil || tr["ok"] != true {
			t.Fatalf("test connection: %v %v", tr, err)
		}
		got = append(got, <-seen)
	}
	test()
	if err := c.Do(ctx, "PUT", "/api/v1/settings", map[string]string{"llm_base": srv.URL + "/v1"}, nil); err != nil {
		t.Fatal(err)
	}
	test()
	if got[0] != "" || got[1] != "Bearer "+key {
		t.Errorf("Authorization sent: before saving %q, after %q; want none, then the key", got[0], got[1])
	}
}
