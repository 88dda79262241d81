package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/embed"
	"hyatlas/backend/events"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
	"hyatlas/backend/workspace"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

type apiRig struct {
	srv *httptest.Server
	api *api.Server
	mem *memory.Service
	t   *testing.T
}

type rigOpts struct {
	auth bool
	// tokenDir, when set, holds the token file (testToken at start) that
	// the server follows.
	tokenDir string
	admin    bool
	hosts    []string
	hermes   api.Hermes
	aliases  string // HYATLAS_USER_ALIASES
	// subscribe, when set, replaces the event bus behind /api/v1/events.
	subscribe func(buffer int) (<-chan memory.Event, func())
}

func newAPI(t *testing.T, o rigOpts) *apiRig {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	emb, _ := embed.NewHash(64)
	bus := events.New()
	al, err := memory.ParseAliases(o.aliases)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.NewService(memory.Config{Mode: memory.ModeUltra, MinScore: -1, Admin: o.admin, Aliases: al},
		memory.Deps{Store: st, Index: vector.New(64), Embedder: emb, Events: bus, GraphStore: st, Graph: st,
			ExtractStore: st, Workspace: workspace.New(t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	assets := fstest.MapFS{
		"index.html":    {Data: []byte("<!doctype html><title>HyAtlas test page</title>")},
		"assets/app.js": {Data: []byte("console.log(1)")},
	}
	if o.tokenDir != "" {
		if err := os.WriteFile(filepath.Join(o.tokenDir, api.TokenFile), []byte(testToken+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	subscribe := bus.Subscribe
	if o.subscribe != nil {
		subscribe = o.subscribe
	}
	s := api.New(api.Config{BindHost: "127.0.0.1", AllowedHosts: o.hosts, Auth: o.auth, Token: testToken, TokenDir: o.tokenDir,
		Version: "test", DataDir: "/data", Started: time.Now(), Assets: assets, Subscribe: subscribe,
		Hermes: o.hermes}, mem, mem.Flush)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &apiRig{srv: srv, api: s, mem: mem, t: t}
}

// req describes one request; zero fields take sensible defaults.
type req struct {
	method  string
	path    string
	body    string
	headers map[string]string
	noAuth  bool
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("answer is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

func (a *apiRig) do(q req) resp {
	a.t.Helper()
	var body io.Reader
	if q.body != "" {
		body = strings.NewReader(q.body)
	}
	if q.method == "" {
		q.method = "GET"
	}
	hr, err := http.NewRequest(q.method, a.srv.URL+q.path, body)
	if err != nil {
		a.t.Fatal(err)
	}
	if !q.noAuth {
		hr.Header.Set("Authorization", "Bearer "+testToken)
	}
	for k, v := range q.headers {
		if k == "Host" {
			hr.Host = v
			continue
		}
		hr.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, header: res.Header, body: b}
}

// post sends a JSON body and decodes the JSON answer, failing on any status
// other than want.
func (a *apiRig) post(path string, body any, want int) map[string]any {
	a.t.Helper()
	b, _ := json.Marshal(body)
	r := a.do(req{method: "POST", path: path, body: string(b)})
	if r.status != want {
		a.t.Fatalf("POST %s: status %d, want %d: %s", path, r.status, want, r.body)
	}
	return r.json(a.t)
}

// counts is a fingerprint of everything a bad request must not change:
// the counts and every row, retired ones included.
func (a *apiRig) counts() string {
	a.t.Helper()
	st, err := a.mem.Stats(context.Background())
	if err != nil {
		a.t.Fatal(err)
	}
	rows, err := a.mem.List(context.Background(), memory.ListInput{IncludeRaw: true, IncludeRetired: true, Limit: memory.MaxListLimit})
	if err != nil {
		a.t.Fatal(err)
	}
	b, _ := json.Marshal([]any{st.Live, st.Retired, st.Writes, st.IndexLen, st.Vectors, rows.Memories})
	return string(b)
}
