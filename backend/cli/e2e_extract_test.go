package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hyatlas/backend/api"
)

// chatServer is an OpenAI-compatible endpoint whose first extraction call
// hangs until released, and whose later calls answer with one fact.
type chatServer struct {
	srv      *httptest.Server
	mu       sync.Mutex
	calls    int
	arrived  chan struct{} // closed when the first call arrives
	release  chan struct{} // closing it lets the first call return (too late)
	hangOnce sync.Once
}

func newChatServer(t *testing.T) *chatServer {
	c := &chatServer{arrived: make(chan struct{}), release: make(chan struct{})}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.calls++
		first := c.calls == 1
		c.mu.Unlock()
		if first {
			c.hangOnce.Do(func() { close(c.arrived) })
			<-c.release
			return
		}
		content, _ := json.Marshal(map[string]any{
			"facts":      []any{map[string]any{"text": "The user's server survived a crash", "label": "project_state", "event_at": nil, "replaces": []string{}, "updates": nil}},
			"intentions": []any{}, "intentions_done": []any{}, "entities": []any{}, "experiences": []any{},
		})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": string(content)}}}})
	}))
	t.Cleanup(func() {
		select {
		case <-c.release:
		default:
			close(c.release)
		}
		c.srv.Close()
	})
	return c
}

// TestCrashMidExtraction_LosesNothing kills the server with SIGKILL while
// a write's extraction call is in flight. After a restart the write is
// there, still queued, and is extracted without anyone asking.
func TestCrashMidExtraction_LosesNothing(t *testing.T) {
	llm := newChatServer(t)
	in := newInstance(t, "HYATLAS_MODE=pro", "HYATLAS_SYNC_EXTRACT=off", "HYATLAS_EMBED_BASE=local",
		"HYATLAS_LLM_BASE="+llm.srv.URL+"/v1", "HYATLAS_LLM_MODEL=m")
	in.Start("serve")
	c := in.Client()
	ctx := context.Background()
	text := "Our server must survive a crash mid-extraction."
	res, err := c.Add(ctx, api.AddRequest{Text: &text, UserID: "crash"})
	if err != nil || res.ExtractionStatus != "pending" {
		t.Fatalf("add: %+v %v", res, err)
	}
	select {
	case <-llm.arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("the extraction call never arrived")
	}
	if err := in.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	in.Wait(10 * time.Second)
	close(llm.release)

	in.Start("serve")
	c = in.Client()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := c.Status(ctx)
		if err == nil && st.Unextracted == 0 && st.Layers["l3_fact"] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart: %+v %v\n%s", st, err, in.Out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	d, err := c.Get(ctx, res.MemoryID)
	if err != nil || d.Content != text || d.Extraction != "done" {
		t.Fatalf("the write after the crash: %+v %v", d, err)
	}
	list, err := c.List(ctx, api.ListRequest{Layer: "l3_fact", UserID: "crash"})
	if err != nil || len(list.Memories) != 1 || !strings.Contains(list.Memories[0].Content, "survived") {
		t.Fatalf("facts: %+v %v", list, err)
	}
}

// TestKeyAndEgressCommands: without a keyring the key is refused with
// advice, handed over for this run instead, never printed, and the ledger
// shows the calls it made.
func TestKeyAndEgressCommands(t *testing.T) {
	llm := newChatServer(t)
	close(llm.release) // the first call answers at once (empty), the rest with a fact
	noBus := t.TempDir()
	in := newInstance(t, "HYATLAS_MODE=pro", "HYATLAS_EMBED_BASE=local", "HYATLAS_LLM_BASE="+llm.srv.URL+"/v1",
		"HYATLAS_LLM_MODEL=m", "DBUS_SESSION_BUS_ADDRESS=unix:path="+noBus+"/bus", "XDG_RUNTIME_DIR="+noBus)
	in.Start("serve")
	const secret = "sk-cli-LEAKCHECK-42"
	out, code := in.RunStdin(secret+"\n", "key", "set")
	if code != 1 || !strings.Contains(out, "keyring") || !strings.Contains(out, "--memory-only") || strings.Contains(out, secret) {
		t.Fatalf("key set without a keyring: exit %d\n%s", code, out)
	}
	out, code = in.RunStdin(secret+"\n", "key", "set", "--memory-only")
	if code != 0 || !strings.Contains(out, "key: set, handed to the running instance") || strings.Contains(out, secret) {
		t.Fatalf("key set --memory-only: exit %d\n%s", code, out)
	}
	if out, code = in.Run("key", "status"); code != 0 || !strings.Contains(out, "key: set") {
		t.Fatalf("key status: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"key"}, {"key", "rotate"}, {"key", "status", "--memory-only"}} {
		if _, code := in.Run(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if _, code := in.RunStdin("\n", "key", "set", "--memory-only"); code != 2 {
		t.Errorf("an empty key: exit %d, want 2", code)
	}
	if out, code = in.Run("add", "--user", "cli", "remember the egress ledger"); code != 0 {
		t.Fatalf("add: %s", out)
	}
	out, code = in.Run("egress")
	host := strings.TrimPrefix(llm.srv.URL, "http://")
	if code != 0 || !strings.Contains(out, host) || !strings.Contains(out, "extract") || strings.Contains(out, secret) {
		t.Fatalf("egress: exit %d\n%s", code, out)
	}
	// The bus address points nowhere, so the keyring's state is unknown:
	// delete says the handed key is gone and the keyring was not reached.
	if out, code = in.Run("key", "delete"); code != 1 || !strings.Contains(out, "was forgotten") {
		t.Fatalf("key delete: exit %d\n%s", code, out)
	}
	if out, code = in.Run("key", "status"); code != 0 || !strings.Contains(out, "key: not set") {
		t.Fatalf("key status after delete: exit %d\n%s", code, out)
	}
	if out, code = in.Run("reprocess"); code != 0 || !strings.Contains(out, "queued") {
		t.Fatalf("reprocess: exit %d\n%s", code, out)
	}
	if out, code = in.Run("digest"); code != 1 || !strings.Contains(out, "ultra mode") {
		t.Fatalf("digest in pro mode: exit %d\n%s", code, out)
	}
	if strings.Contains(in.Out.String(), secret) {
		t.Error("the server log carries the key")
	}
}

// TestDigestCommand: in ultra mode `hyatlas digest` runs a pass on the
// running instance and prints its report; --json prints the reply.
func TestDigestCommand(t *testing.T) {
	llm := newChatServer(t)
	close(llm.release)
	in := newInstance(t, "HYATLAS_MODE=ultra", "HYATLAS_EMBED_BASE=local", "HYATLAS_LLM_BASE="+llm.srv.URL+"/v1",
		"HYATLAS_LLM_MODEL=m")
	in.Start("serve")
	if out, code := in.Run("add", "--user", "cli", "my server survived a crash"); code != 0 {
		t.Fatalf("add: %s", out)
	}
	out, code := in.Run("digest")
	if code != 0 || !strings.Contains(out, "consolidation pass:") || !strings.Contains(out, "clusters run") {
		t.Fatalf("digest: exit %d\n%s", code, out)
	}
	out, code = in.Run("digest", "--json")
	var rep api.DigestResponse
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.DigestOK || rep.Report == nil {
		t.Fatalf("digest --json: exit %d\n%s", code, out)
	}
	if _, code := in.Run("digest", "now"); code != 2 {
		t.Errorf("digest with an argument: exit %d, want 2", code)
	}
}
