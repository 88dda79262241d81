package api_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
)

// fakeModels records calls; the engine's real implementation is tested in
// backend/engine (install from a local server, switch, re-embed).
type fakeModels struct {
	installing bool
	calls      []string
}

func (f *fakeModels) List() ([]api.ModelInfo, error) {
	return []api.ModelInfo{{Name: "bge-small", Dims: 384, Size: 133325000, Installing: f.installing}}, nil
}

func (f *fakeModels) Install(name string) error {
	f.calls = append(f.calls, "install "+name)
	if name != "bge-small" {
		return memory.Errorf(memory.ENOTFOUND, "no model named %q", name)
	}
	if f.installing {
		return memory.Errorf(memory.ECONFLICT, "%s is already being installed", name)
	}
	f.installing = true
	return nil
}

func (f *fakeModels) Cancel(name string) error {
	f.calls = append(f.calls, "cancel "+name)
	if !f.installing {
		return memory.Errorf(memory.ECONFLICT, "no install of %s is under way", name)
	}
	f.installing = false
	return nil
}

func (f *fakeModels) Remove(name string) (bool, error) {
	f.calls = append(f.calls, "remove "+name)
	return true, nil
}

func (f *fakeModels) Verify(name string) error {
	f.calls = append(f.calls, "verify "+name)
	return memory.Errorf(memory.EUNAVAILABLE, "bge-small/model.onnx: checksum mismatch")
}

func TestModelEndpoints(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	emb, _ := embed.NewHash(16)
	mem, _ := memory.NewService(memory.Config{Mode: memory.ModeLite, MinScore: -1},
		memory.Deps{Store: st, Index: vector.New(16), Embedder: emb})
	fm := &fakeModels{}
	s := api.New(api.Config{BindHost: "127.0.0.1", Token: testToken, Auth: true, Started: time.Now(), Models: fm}, mem, mem.Flush)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	a := &apiRig{srv: srv, api: s, mem: mem, t: t}

	if l := a.do(req{path: "/api/v1/models"}).json(t); len(l["models"].([]any)) != 1 {
		t.Errorf("list = %v", l)
	}
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"POST", "/api/v1/models/bge-small/install", 202},
		{"POST", "/api/v1/models/bge-small/install", 409},
		{"POST", "/api/v1/models/bge-small/cancel", 200},
		{"POST", "/api/v1/models/bge-small/cancel", 409},
		{"POST", "/api/v1/models/gpt-9/install", 404},
		{"POST", "/api/v1/models/bge-small/verify", 503},
		{"DELETE", "/api/v1/models/bge-small", 200},
		{"GET", "/api/v1/models/bge-small/install", 405},
	} {
		if r := a.do(req{method: c.method, path: c.path}); r.status != c.status {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, r.status, c.status, r.body)
		}
	}
	if r := a.do(req{path: "/api/v1/models", noAuth: true}); r.status != 401 {
		t.Errorf("models without a token: %d", r.status)
	}
	// Without model management the endpoints say so.
	a2 := newAPI(t, rigOpts{})
	if r := a2.do(req{path: "/api/v1/models"}); r.status != 503 {
		t.Errorf("no Models: %d", r.status)
	}
}
