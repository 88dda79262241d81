package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
	"hyatlas/backend/config"
	"hyatlas/backend/memory"
)

// TestKeyNeverLeaks writes with recognisable keys from every source and
// then searches the logs, every API response and the data and config
// directories for them.
func TestKeyNeverLeaks(t *testing.T) {
	const (
		handed  = "sk-LEAKCHECK-handed-0123456789"
		saved   = "sk-LEAKCHECK-keyring-0123456789"
		fromEnv = "sk-LEAKCHECK-env-0123456789"
	)
	keys := []string{handed, saved, fromEnv}
	r := newLLMRig(t, func(c *config.Config) { c.LLM.Key = fromEnv })
	var seenAuth []string
	r.fake.setReply(func(q llmRequest) (int, string) {
		seenAuth = append(seenAuth, q.Auth)
		if len(seenAuth) == 1 {
			// a provider that echoes the key in its error
			return http.StatusUnauthorized, "invalid api key " + strings.TrimPrefix(q.Auth, "Bearer ")
		}
		return 200, planJSON([]map[string]any{fact("The user keeps secrets safe", "user_preferences")}, nil)
	})
	var bodies bytes.Buffer
	call := func(method, path string, body any) {
		t.Helper()
		var in io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			in = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, r.eng.BaseURL()+path, in)
		req.Header.Set("Authorization", "Bearer "+r.eng.Token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		bodies.WriteString(method + " " + path + " " + res.Status + " " + string(b) + "\n")
	}
	call("POST", "/api/v1/add", map[string]any{"text": "written with the env key"})
	call("PUT", "/api/v1/settings/llm-key", map[string]any{"key": saved})
	call("POST", "/api/v1/llm/key", map[string]any{"key": handed})
	call("POST", "/api/v1/add", map[string]any{"text": "written with the handed key"})
	call("PUT", "/api/v1/settings/llm-key", map[string]any{"key": saved + "\n-x"}) // invalid: refused
	call("POST", "/api/v1/llm/key", map[string]any{"key": handed, "extra": true})  // unknown field: refused
	r.waitIdle(t)
	for _, p := range []string{"/api/v1/status", "/api/v1/egress", "/api/v1/settings/llm-key", "/api/v1/list?limit=100",
		"/api/v1/list?include_raw=true&include_superseded=true"} {
		call("GET", p, nil)
	}
	call("POST", "/api/v1/search", map[string]any{"query": "secrets", "user_id": "default"})
	rows := r.live(t, memory.LayerRaw)
	for _, m := range rows {
		call("GET", "/api/v1/memories/"+m.ID, nil)
	}
	if !contains(seenAuth, "Bearer "+handed) || !contains(seenAuth, "Bearer "+fromEnv) {
		t.Fatalf("the endpoint did not get the keys: %q", seenAuth)
	}
	if v, _ := r.kr.Get("hyatlas", "llm-key"); v != saved {
		t.Fatal("the saved key is not in the keyring")
	}
	var st api.KeyStatus
	if err := r.do(t, "GET", "/api/v1/settings/llm-key", nil, &st); err != nil || !st.IsSet || st.Origin != "handed" {
		t.Errorf("key status %+v %v", st, err)
	}
	if err := r.eng.Close(); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.Contains(bodies.String(), k) {
			t.Errorf("an API response carries %s:\n%s", k, bodies.String())
		}
		if strings.Contains(r.logs.String(), k) {
			t.Errorf("the log carries %s", k)
		}
		for _, dir := range []string{r.cfg.Paths.Data, r.cfg.Paths.Config, r.cfg.Paths.Cache} {
			if f := fileContaining(t, dir, k); f != "" {
				t.Errorf("%s holds %s", f, k)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fileContaining returns the first file under dir whose bytes contain s.
func fileContaining(t *testing.T, dir, s string) string {
	t.Helper()
	found := ""
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found != "" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(s)) {
			found = path
		}
		return nil
	})
	return found
}

func TestKeyEndpoints_BadInputAndLoopback(t *testing.T) {
	r := newLLMRig(t, nil)
	for _, tc := range []struct {
		method, path string
		body         any
		status       int
	}{
		{"POST", "/api/v1/llm/key", map[string]any{}, 400},
		{"POST", "/api/v1/llm/key", map[string]any{"key": 42}, 400},
		{"POST", "/api/v1/llm/key", map[string]any{"key": strings.Repeat("k", 5000)}, 422},
		{"PUT", "/api/v1/settings/llm-key", map[string]any{"key": "two\nlines"}, 422},
		{"PUT", "/api/v1/settings/llm-key", nil, 400},
	} {
		err := r.do(t, tc.method, tc.path, tc.body, nil)
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Status != tc.status {
			t.Errorf("%s %s %v: %v, want HTTP %d", tc.method, tc.path, tc.body, err, tc.status)
		}
	}
	var st api.KeyStatus
	if err := r.do(t, "GET", "/api/v1/settings/llm-key", nil, &st); err != nil || st.IsSet {
		t.Fatalf("refused keys changed the status: %+v %v", st, err)
	}
	if err := r.do(t, "DELETE", "/api/v1/settings/llm-key", nil, &st); err != nil || st.IsSet {
		t.Errorf("delete with no key: %+v %v", st, err)
	}

	// A key is handed over only from this machine: a peer elsewhere (the
	// server can listen on 0.0.0.0) is refused; the desktop window is not.
	handOver := func(h http.Handler) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/v1/llm/key", strings.NewReader(`{"key":"sk-remote-peer"}`))
		req.RemoteAddr = "192.0.2.7:5555"
		req.Host = strings.TrimPrefix(r.eng.BaseURL(), "http://")
		req.Header.Set("Authorization", "Bearer "+r.eng.Token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := handOver(r.eng.API.Handler()); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "this machine") {
		t.Errorf("hand-over from another machine: %d %s", rec.Code, rec.Body.String())
	}
	if err := r.do(t, "GET", "/api/v1/settings/llm-key", nil, &st); err != nil || st.IsSet {
		t.Fatalf("a refused hand-over set the key: %+v", st)
	}
	if rec := handOver(r.eng.API.InProcessHandler()); rec.Code != http.StatusOK {
		t.Errorf("hand-over from the window: %d %s", rec.Code, rec.Body.String())
	}
}
