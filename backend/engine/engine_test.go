package engine

import (
	"context"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"testing"
	"time"

	"hyatlas/backend/api/client"
	"hyatlas/backend/config"
	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
)

func testConfig(t *testing.T) config.Config {
	dir := t.TempDir()
	return config.Config{Host: "127.0.0.1", Port: 0, Auth: true, Mode: memory.ModeLite, MinScore: -1,
		Paths: config.Paths{Data: filepath.Join(dir, "data"), Config: filepath.Join(dir, "config"), Cache: filepath.Join(dir, "cache")},
		Embed: config.EmbedConfig{Choice: config.EmbedLocal}}
}

func quiet() Options { return Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))} }

// TestOpen_RebuildsAndRepairsIndex: rows committed to the store but never
// indexed (a crash between commit and index update) are in the index after
// the next start, from their saved vectors.
func TestOpen_RebuildsAndRepairsIndex(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	eng, err := Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Memory.Add(ctx, memory.AddInput{Text: "indexed normally"}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}

	// Commit a row behind the engine's back, as if it crashed before
	// indexing it.
	st, err := store.Open(ctx, cfg.Paths.Data)
	if err != nil {
		t.Fatal(err)
	}
	emb, _ := embed.NewHash(embed.DefaultHashDims)
	vecs, _ := emb.Embed(ctx, []string{"committed but never indexed"}, memory.PurposeDocument)
	now := time.Now().UTC()
	if err := st.Insert(ctx, memory.NewRow{
		Memory: memory.Memory{ID: "m-orphan", Layer: memory.LayerRaw, Content: "committed but never indexed",
			Owner: memory.Owner{UserID: "default"}, CreatedAt: now, UpdatedAt: now, Extraction: memory.ExtractSkipped},
		Vector: memory.Vector{Embedder: emb.Info().ID, Values: vecs[0]},
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	eng, err = Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := eng.Memory.Ready(ctx); err != nil {
		t.Fatalf("not ready after rebuild: %v", err)
	}
	stats, _ := eng.Memory.Stats(ctx)
	if stats.IndexLen != 2 {
		t.Errorf("index holds %d rows, want 2", stats.IndexLen)
	}
	one := 0.99
	res, err := eng.Memory.Search(ctx, memory.SearchInput{Query: "committed but never indexed", Reader: "vector", MinScore: &one})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Memory.ID != "m-orphan" {
		t.Errorf("repaired row not found by vector: %+v %v", res.Hits, err)
	}
}

func TestListen_PortZeroAndToken(t *testing.T) {
	eng, err := Open(context.Background(), testConfig(t), quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if eng.BaseURL() != "" {
		t.Error("BaseURL before Listen")
	}
	addr, err := eng.Listen()
	if err != nil {
		t.Fatal(err)
	}
	if eng.BaseURL() != "http://"+addr || len(eng.Token) != 64 {
		t.Errorf("base %q addr %q token %d chars", eng.BaseURL(), addr, len(eng.Token))
	}
	// The status says where agents reach it: the window's pages, served
	// from elsewhere, show this address (they showed the default port).
	st, err := client.New(eng.BaseURL(), eng.Token).Status(context.Background())
	if err != nil || st.Address != "http://"+addr {
		t.Errorf("status address %q (%v), want http://%s", st.Address, err, addr)
	}
}

func TestOpen_RefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	st, err := store.Open(ctx, cfg.Paths.Data)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	// A later build's database.
	db := filepath.Join(cfg.Paths.Data, store.FileName)
	if err := bumpUserVersion(db, 999); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, cfg, quiet()); err == nil {
		t.Fatal("opened a database from a newer schema")
	}
}

// TestOpen_DropsUnusableVectors: one bad saved vector (or sentence
// vector) does not stop the start; the row is kept without a vector and
// the index agrees.
func TestOpen_DropsUnusableVectors(t *testing.T) {
	emb, _ := embed.NewHash(embed.DefaultHashDims)
	good := make([]float32, embed.DefaultHashDims)
	good[0] = 1
	nan := make([]float32, embed.DefaultHashDims)
	nan[3] = float32(math.NaN())
	for _, c := range []struct {
		name string
		vec  memory.Vector
	}{
		{"a zero vector", memory.Vector{Embedder: emb.Info().ID, Values: make([]float32, embed.DefaultHashDims)}},
		{"a sentence vector of NaN", memory.Vector{Embedder: emb.Info().ID, Values: good, Parts: [][]float32{good, nan}}},
		{"a zero sentence vector", memory.Vector{Embedder: emb.Info().ID, Values: good, Parts: [][]float32{make([]float32, embed.DefaultHashDims)}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			cfg := testConfig(t)
			st, err := store.Open(ctx, cfg.Paths.Data)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC()
			if err := st.Insert(ctx, memory.NewRow{
				Memory: memory.Memory{ID: "m-zero", Layer: memory.LayerRaw, Content: "a row with a zero vector",
					Owner: memory.Owner{UserID: "default"}, CreatedAt: now, UpdatedAt: now, Extraction: memory.ExtractSkipped},
				Vector: c.vec,
			}); err != nil {
				t.Fatal(err)
			}
			st.Close()
			eng, err := Open(ctx, cfg, quiet())
			if err != nil {
				t.Fatalf("one bad vector stopped the start: %v", err)
			}
			defer eng.Close()
			if err := eng.Memory.Ready(ctx); err != nil {
				t.Errorf("not ready: %v", err)
			}
			if _, err := eng.Memory.Get(ctx, "m-zero"); err != nil {
				t.Errorf("the row was lost: %v", err)
			}
			res, err := eng.Memory.Search(ctx, memory.SearchInput{Query: "zero vector", Reader: "keyword"})
			if err != nil || len(res.Hits) != 1 {
				t.Errorf("the row is not found by keyword: %v %v", res.Hits, err)
			}
		})
	}
}

// TestClose_EndsEventStreams: an open event stream does not hold up a
// shutdown (Shutdown waits for every handler).
func TestClose_EndsEventStreams(t *testing.T) {
	e, err := Open(context.Background(), testConfig(t), quiet())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Listen(); err != nil {
		t.Fatal(err)
	}
	c := client.New(e.BaseURL(), e.Token)
	opened := make(chan struct{})
	streamDone := make(chan error, 1)
	go func() {
		streamDone <- c.Events(context.Background(), func() { close(opened) }, func(memory.Event) bool { return true })
	}()
	<-opened
	if err := e.Close(); err != nil {
		t.Fatalf("Close with an open event stream: %v", err)
	}
	if err := <-streamDone; err != nil {
		t.Logf("stream ended with %v", err)
	}
	if err := e.models.Install(bgeModel); memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Errorf("Install after Close: %v", err)
	}
}
