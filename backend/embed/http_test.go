package embed

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// fakeEmbeddings is an OpenAI-compatible /embeddings endpoint that checks
// what it receives and answers with vectors derived from the texts (in
// reverse order, as the contract allows).
func fakeEmbeddings(t *testing.T, status int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Method != "POST" {
			t.Errorf("%s %s", r.Method, r.URL.Path)
		}
		if r.Header.Get("Authorization") != "Bearer sk-test" || !strings.HasPrefix(r.Header.Get("User-Agent"), "HyAtlas/") {
			t.Errorf("headers %v", r.Header)
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "emb-3" {
			t.Errorf("body %+v %v", req, err)
		}
		if status != 200 {
			// Some gateways echo the key they refuse.
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"message":"quota for key ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `"}}`))
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, item{Index: i, Embedding: []float32{float32(len(req.Input[i])), 1, 2}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
}

func TestHTTP_ProbesAndEmbeds(t *testing.T) {
	srv := fakeEmbeddings(t, 200)
	defer srv.Close()
	h, err := NewHTTP(context.Background(), srv.URL+"/v1/", "emb-3", "sk-test", "HyAtlas/test", nil)
	if err != nil {
		t.Fatal(err)
	}
	info := h.Info()
	if info.Dims != 3 || !info.Semantic || !strings.Contains(info.ID, "emb-3") {
		t.Errorf("info %+v", info)
	}
	v, err := h.Embed(context.Background(), []string{"a", "abcd"}, memory.PurposeQuery)
	if err != nil {
		t.Fatal(err)
	}
	// Each text gets its own vector, whatever order the answer uses.
	if v[0][0] >= v[1][0] {
		t.Errorf("vectors out of order: %v", v)
	}
	if n := v[1][0]*v[1][0] + v[1][1]*v[1][1] + v[1][2]*v[1][2]; n < 0.999 || n > 1.001 {
		t.Errorf("not normalised: %v", v[1])
	}
}

// An error names the status and says what the endpoint said, without the
// key it may echo (errors reach the log, the terminal and the
// start-failed window).
func TestHTTP_ErrorsNameTheStatus(t *testing.T) {
	srv := fakeEmbeddings(t, 429)
	defer srv.Close()
	_, err := NewHTTP(context.Background(), srv.URL+"/v1", "emb-3", "sk-test", "HyAtlas/test", nil)
	if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "quota for key [redacted]") ||
		strings.Contains(err.Error(), "sk-test") {
		t.Errorf("err = %v", err)
	}
}

// TestHTTP_RedirectsAreNotFollowed: texts and the key go only to the
// address the user chose; a redirect elsewhere is an error naming it.
func TestHTTP_RedirectsAreNotFollowed(t *testing.T) {
	target := fakeEmbeddings(t, 200)
	defer target.Close()
	reached := false
	target.Config.Handler = http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true })
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	_, err := NewHTTP(context.Background(), redirect.URL+"/v1", "emb-3", "sk-test", "HyAtlas/test", nil)
	if err == nil || !strings.Contains(err.Error(), "307") || reached {
		t.Errorf("err = %v, target reached %v", err, reached)
	}
}

// TestHTTP_EveryRequestIsLedgered: each request to an embedding endpoint
// is recorded for the egress ledger, whatever its outcome: every text
// sent leaves the machine.
func TestHTTP_EveryRequestIsLedgered(t *testing.T) {
	var calls []memory.EgressCall
	record := func(c memory.EgressCall) { calls = append(calls, c) }
	ok := fakeEmbeddings(t, 200)
	defer ok.Close()
	h, err := NewHTTP(context.Background(), ok.URL+"/v1", "emb-3", "sk-test", "HyAtlas/test", record)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Embed(context.Background(), []string{"a text that leaves"}, memory.PurposeDocument); err != nil {
		t.Fatal(err)
	}
	limited := fakeEmbeddings(t, 429)
	defer limited.Close()
	_, _ = NewHTTP(context.Background(), limited.URL+"/v1", "emb-3", "sk-test", "HyAtlas/test", record)
	down := httptest.NewServer(http.NotFoundHandler())
	refused := down.URL
	down.Close()
	_, _ = NewHTTP(context.Background(), refused+"/v1", "emb-3", "sk-test", "HyAtlas/test", record)
	if len(calls) != 4 {
		t.Fatalf("%d calls recorded, want 4 (probe and embed, a 429, a refused one): %+v", len(calls), calls)
	}
	for i, want := range []struct {
		outcome string
		status  int
		sent    bool
	}{{"ok", 200, true}, {"ok", 200, true}, {"http_error", 429, true}, {"network_error", 0, false}} {
		c := calls[i]
		if c.Outcome != want.outcome || c.Status != want.status || (c.BytesOut > 0) != want.sent || c.Purpose != "embed" ||
			c.Model != "emb-3" || c.Host == "" || strings.Contains(c.Host, "/") {
			t.Errorf("call %d: %+v, want %s, status %d, bytes sent %v", i, c, want.outcome, want.status, want.sent)
		}
	}
}
