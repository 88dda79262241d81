package cli_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/cli"
	"hyatlas/backend/hermes"
)

// While HyAtlas is not running, any program (on a shared machine, any
// user's) may take its port. The CLI and the app's launch then send it
// nothing secret: no API token, no LLM key, only a nonce it cannot answer
// (the server proves it holds the token first, see api.Proof). Starting
// HyAtlas says another program holds its address.
func TestAProgramOnHyAtlasPortGetsNoTokenAndNoKey(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hasToken bool // HyAtlas ran here before; else a fresh install
		status   int  // what the program answers to everything
	}{
		{"after HyAtlas ran here, a program answering 200", true, http.StatusOK},
		{"a fresh install, a program answering 200", false, http.StatusOK},
		{"a fresh install, a program answering 404", false, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) { squatterCase(t, tc.hasToken, tc.status) })
	}
}

func squatterCase(t *testing.T, hasToken bool, status int) {
	const token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	const llmKey = "sk-live-SECRET-KEY-0123456789"
	const diary = "my private diary entry"
	var mu sync.Mutex
	var seen bytes.Buffer
	squatter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen.WriteString(r.Method + " " + r.URL.String() + " auth=" + r.Header.Get("Authorization") + " body=" + string(b) + "\n")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		switch r.URL.Path {
		case "/healthz":
			_, _ = w.Write([]byte(`{"status":"ok"}`))
		case "/api/v1/llm/key", "/api/v1/settings/llm-key":
			_, _ = w.Write([]byte(`{"is_set":true,"origin":"handed","keyring_available":true}`))
		default:
			_, _ = w.Write([]byte(`{}`))
		}
	}))
	defer squatter.Close()
	_, port, _ := net.SplitHostPort(squatter.Listener.Addr().String())

	home := t.TempDir()
	cfgDir := filepath.Join(home, "config")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if hasToken {
		if err := os.WriteFile(filepath.Join(cfgDir, api.TokenFile), []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		// HyAtlas ran here before and quit: its discovery file names a
		// process that is gone.
		dead := exec.Command("true")
		if err := dead.Run(); err != nil {
			t.Fatal("no `true` to make a dead pid:", err)
		}
		if err := hermes.WriteDiscovery(cfgDir, hermes.Discovery{Address: "http://127.0.0.1:" + port,
			TokenFile: filepath.Join(cfgDir, api.TokenFile), Auth: true, PID: dead.ProcessState.Pid(), Written: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{
		"HOME": home, "HYATLAS_CONFIG_DIR": cfgDir, "HYATLAS_DATA": filepath.Join(home, "data"),
		"HYATLAS_CACHE_DIR": filepath.Join(home, "cache"), "HYATLAS_GO_HOST": "127.0.0.1", "HYATLAS_GO_PORT": port,
		"HYATLAS_MODE": "lite", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent", // never a real keyring
	}
	run := func(stdin string, args ...string) (int, string) {
		var out bytes.Buffer
		code := cli.Run(context.Background(), cli.Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &out,
			Getenv: func(k string) string { return env[k] }})
		return code, out.String()
	}
	tests := []struct {
		stdin string
		args  []string
		says  string
	}{
		{"", []string{"status"}, "not this HyAtlas"},
		{llmKey + "\n", []string{"key", "--memory-only", "set"}, "not this HyAtlas"},
		{llmKey + "\n", []string{"key", "set"}, "not this HyAtlas"},
		{"", []string{"add", diary}, "not this HyAtlas"},
		{"", []string{"serve"}, "another program answers at http://127.0.0.1:" + port},
	}
	for _, tc := range tests {
		code, out := run(tc.stdin, tc.args...)
		if code == 0 || !strings.Contains(out, tc.says) {
			t.Errorf("hyatlas %s: exit %d, %q; want a failure saying %q", strings.Join(tc.args, " "), code, out, tc.says)
		}
	}
	mu.Lock()
	got := seen.String()
	mu.Unlock()
	if strings.Contains(got, token) || strings.Contains(got, llmKey) || strings.Contains(got, diary) {
		t.Errorf("a program that is not HyAtlas received the token, the key or a memory:\n%s", got)
	}
	if hasToken && !strings.Contains(got, api.ProofPath+"?nonce=") {
		t.Errorf("the CLI never asked for the proof:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(home, "data")); err == nil {
		t.Errorf("serve made the data folder though another program holds its address")
	}
}
