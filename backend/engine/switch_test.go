package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/config"
	"hyatlas/backend/embed/onnxproto"
	"hyatlas/backend/memory"
	"hyatlas/backend/models"
	"hyatlas/backend/proctest"
)

// bertVocab is a small BERT vocabulary for the BERT-shaped test model that
// a local server offers as "bge-small".
var bertVocab = strings.Join([]string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
	"note", "number", "about", "topic", "cats", "dogs", "rain", "represent", "this", "sentence",
	"for", "searching", "relevant", "passages", ":"}, "\n") + "\n"

// modelServer serves a test model and its vocabulary, and a catalog that
// pins them.
func modelServer(t *testing.T) (*httptest.Server, []models.Model) {
	model := onnxproto.TinyBERT(strings.Count(bertVocab, "\n"), 24, 3, true)
	files := map[string][]byte{"/m/model.onnx": model, "/m/vocab.txt": []byte(bertVocab)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, r.URL.Path, time.Time{}, strings.NewReader(string(b)))
	}))
	t.Cleanup(srv.Close)
	return srv, testCatalog(model)
}

// testCatalog offers model (with the test vocabulary) as "bge-small",
// pinned by checksum, at m/ on the models server.
func testCatalog(model []byte) []models.Model {
	pin := func(name string, b []byte) models.File {
		sum := sha256.Sum256(b)
		return models.File{Name: name, URL: "m/" + name, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b))}
	}
	return []models.Model{{Name: bgeModel, Title: "test BERT", Dims: 24,
		Files: []models.File{pin("model.onnx", model), pin("vocab.txt", []byte(bertVocab))}}}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// modelConfig is an engine config whose model catalog is a local server
// offering "bge-small" (a small BERT-shaped test model), GloVe in use.
func modelConfig(t *testing.T) (config.Config, Options) {
	t.Helper()
	srv, catalog := modelServer(t)
	cfg := testConfig(t)
	cfg.Embed = config.EmbedConfig{Choice: config.EmbedAuto, ORTLib: proctest.ORTLib()}
	cfg.ModelsBase = srv.URL + "/"
	opts := quiet()
	opts.ModelCatalog = catalog
	return cfg, opts
}

// TestInstallSwitchesAndReembeds: a fresh engine embeds with GloVe;
// installing the BGE model from a (local) server switches to it and
// re-embeds every memory in the background; a restart keeps BGE without
// re-embedding; removing the model goes back to GloVe.
func TestInstallSwitchesAndReembeds(t *testing.T) {
	ctx := context.Background()
	cfg, opts := modelConfig(t)
	e, err := Open(ctx, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	glove := e.Memory.EmbedderInfo()
	if !glove.Semantic || !strings.HasPrefix(glove.ID, "glove-") {
		t.Fatalf("a fresh install embeds with %+v, want GloVe", glove)
	}
	for i := range 40 {
		if _, err := e.Memory.Add(ctx, memory.AddInput{Text: fmt.Sprintf("note number %d about topic cats", i)}); err != nil {
			t.Fatal(err)
		}
	}
	events, stop := e.bus.Subscribe(1024)
	defer stop()

	if err := e.models.Install(bgeModel); err != nil {
		t.Fatal(err)
	}
	if err := e.models.Install(bgeModel); memory.ErrorCode(err) != memory.ECONFLICT && err != nil {
		t.Errorf("a second install while one runs: %v", err)
	}
	bgeID := e.embedders.bgeID()
	if !strings.HasPrefix(bgeID, "bge-small-en-v1.5-") {
		t.Fatalf("BGE embedder id %q does not name its model file", bgeID)
	}
	waitFor(t, "the switch to BGE", func() bool { return e.Memory.EmbedderInfo().ID == bgeID })
	waitFor(t, "re-embedding", func() bool {
		n, _ := e.store.VectorBacklog(ctx, bgeID)
		return n == 0 && !reembedRunning(t, e)
	})
	if err := e.Memory.Ready(ctx); err != nil {
		t.Fatalf("not ready after the switch: %v", err)
	}
	list, _ := e.models.List()
	if len(list) != 1 || !list[0].Installed || !list[0].Active || list[0].Installing {
		t.Errorf("models = %+v", list)
	}
	seen := map[string]bool{}
	for len(events) > 0 {
		seen[(<-events).Type] = true
	}
	for _, want := range []string{"model.progress", "model.installed", "embedder.switched", "reembed.progress"} {
		if !seen[want] {
			t.Errorf("no %s event (saw %v)", want, seen)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// A restart keeps BGE and finds every vector saved.
	e, err = Open(ctx, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if id := e.Memory.EmbedderInfo().ID; id != bgeID {
		t.Fatalf("after a restart the embedder is %s", id)
	}
	if st, _ := e.Memory.Stats(ctx); st.IndexLen != 40 {
		t.Errorf("index holds %d rows after a restart, want 40 without re-embedding", st.IndexLen)
	}

	if removed, err := e.models.Remove(bgeModel); err != nil || !removed {
		t.Fatal(removed, err)
	}
	if id := e.Memory.EmbedderInfo().ID; id != glove.ID {
		t.Fatalf("after removing BGE the embedder is %s", id)
	}
	waitFor(t, "re-embedding with GloVe", func() bool {
		n, _ := e.store.VectorBacklog(ctx, glove.ID)
		return n == 0 && !reembedRunning(t, e)
	})
	if err := e.Memory.Ready(ctx); err != nil {
		t.Errorf("not ready after going back to GloVe: %v", err)
	}
}

func reembedRunning(t *testing.T, e *Engine) bool {
	st, err := e.Memory.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Reembed.Running
}
