package cli_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHermesPlugin_Python installs the plugin with `hyatlas hermes install`
// into a temporary Hermes home and runs its Python tests (standard-library
// unittest, with a stand-in for Hermes's agent.memory_provider) against
// this real `hyatlas serve`.
func TestHermesPlugin_Python(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed for the Hermes plugin's tests (make deps installs it)")
	}
	in := newInstance(t)
	home := filepath.Join(in.Home, "hermes")
	in.Env = append(in.Env, "HERMES_HOME="+home) // the app's Settings look at the same home
	in.Start("serve")
	cfg := "# Hermes settings\nmodel:\n  default: local-model  # by hand\nmemory:\n  provider: honcho\n"
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := in.Run("hermes", "install")
	if code != 0 || !strings.Contains(out, "set memory.provider to hyatlas") {
		t.Fatalf("hermes install: %d %s", code, out)
	}
	src, err := filepath.Abs("../hermes/pytests")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", src, "-t", src, "-v")
	cmd.Dir = src
	// TMPDIR: the suite's temporary Hermes homes and plugin folders go
	// where the test's own temporary data goes, and are removed with it.
	cmd.Env = append(append([]string{}, in.Env...), "PYTHONDONTWRITEBYTECODE=1", "HYATLAS_TEST_BIN="+in.Binary,
		"TMPDIR="+t.TempDir())
	res, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the plugin's Python tests failed (%v):\n%s", err, res)
	}
	t.Logf("python tests:\n%s", lastLines(string(res), 4))

	// The app saw the plugin: Settings shows the last contact.
	var st map[string]any
	if err := in.Client().Do(t.Context(), http.MethodGet, "/api/v1/hermes", nil, &st); err != nil {
		t.Fatal(err)
	}
	if st["installed"] != true || st["active"] != true || st["last_contact"] == nil || st["previous_provider"] != "honcho" {
		t.Errorf("hermes status = %v", st)
	}
	// The last contact outlives a restart of the app.
	if err := in.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := in.Wait(30 * time.Second); code != 0 {
		t.Fatalf("exit code %d after SIGTERM", code)
	}
	in.Start("serve")
	var again map[string]any
	if err := in.Client().Do(t.Context(), http.MethodGet, "/api/v1/hermes", nil, &again); err != nil {
		t.Fatal(err)
	}
	if again["last_contact"] != st["last_contact"] {
		t.Errorf("last contact after a restart = %v, before %v", again["last_contact"], st["last_contact"])
	}
	out, code = in.Run("hermes", "uninstall")
	if b, _ := os.ReadFile(filepath.Join(home, "config.yaml")); code != 0 || string(b) != cfg {
		t.Errorf("uninstall: %d %s; config.yaml now %q", code, out, b)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestPublicHermesPluginWireSurface: the calls the public HyAtlas Hermes
// plugin makes, exactly as it makes them (no token, its User-Agent and
// bodies), against `hyatlas serve` with HYATLAS_AUTH=off.
func TestPublicHermesPluginWireSurface(t *testing.T) {
	in := newInstance(t, "HYATLAS_AUTH=off")
	in.Start("serve")
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, in.Base()+path, rd)
		req.Header.Set("User-Agent", "hermes-hyatlas/4.0")
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %v %v", method, path, resp.StatusCode, out, err)
		}
		return out
	}
	if h := call("GET", "/healthz", nil); h["status"] != "ok" {
		t.Fatalf("healthz = %v", h)
	}
	st := call("GET", "/api/v1/status", nil)
	for _, k := range []string{"vdb", "embed", "llm", "layers", "mode"} {
		if _, ok := st[k]; !ok {
			t.Errorf("status lacks %q", k)
		}
	}
	add := call("POST", "/api/v1/add", map[string]any{"text": "USER: Kestrel ships on Fridays\n\nASSISTANT: noted",
		"user_id": "alice", "agent_id": "hermes", "session_id": "s1"})
	if add["success"] != true || add["memory_id"] == "" {
		t.Fatalf("add = %v", add)
	}
	call("POST", "/api/v1/add", map[string]any{"text": "Bob's note about Kestrel", "user_id": "bob", "agent_id": "hermes"})
	res := call("POST", "/api/v1/search", map[string]any{"query": "when does Kestrel ship", "user_id": "alice",
		"agent_id": "hermes", "limit": 5})
	chans, _ := res["memories"].(map[string]any)
	var found []string
	for _, ch := range []string{"profile", "proactive", "normal"} {
		items, ok := chans[ch].([]any)
		if !ok {
			t.Fatalf("search channel %s missing: %v", ch, res)
		}
		for _, it := range items {
			m := it.(map[string]any)
			if _, ok := m["score"].(float64); !ok || m["layer"] == "" {
				t.Errorf("hit lacks score/layer: %v", m)
			}
			found = append(found, m["content"].(string))
		}
	}
	if len(found) != 1 || !strings.Contains(found[0], "Kestrel ships on Fridays") {
		t.Errorf("alice's search found %q", found)
	}
	l := call("POST", "/api/v1/list", map[string]any{"user_id": "alice", "agent_id": "hermes", "limit": 20,
		"offset": 0, "include_raw": true})
	if l["total"].(float64) != 1 || len(l["memories"].([]any)) != 1 {
		t.Errorf("list = %v", l)
	}
	call("POST", "/api/v1/delete_all", map[string]any{"user_id": "alice", "agent_id": "hermes"})
	if l := call("POST", "/api/v1/list", map[string]any{"user_id": "alice", "include_raw": true}); l["total"].(float64) != 0 {
		t.Errorf("alice's rows survived her scoped delete_all: %v", l)
	}
	if l := call("POST", "/api/v1/list", map[string]any{"user_id": "bob", "include_raw": true}); l["total"].(float64) != 1 {
		t.Errorf("bob's row went with alice's delete_all: %v", l)
	}
}
