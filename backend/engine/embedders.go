package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"hyatlas/backend/config"
	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/models"
)

// bgeModel is the catalog name of the BGE model.
const bgeModel = "bge-small"

// embedderSet builds the embedders this configuration may use.
type embedderSet struct {
	cfg    config.Config
	models *models.Manager
	log    *slog.Logger
	egress func(memory.EgressCall) // the ledger, for an embedder on an endpoint
}

// openEmbedder returns the embedder the configuration asks for:
// HYATLAS_EMBED_BASE=local, an http(s) URL, glove, or bge; unset means BGE
// when it is installed and GloVe otherwise (and bge falls back to GloVe
// until BGE is installed, with a warning). Models that run in ONNX Runtime
// are wrapped in a Batcher. The closer frees the model.
func (e embedderSet) openEmbedder(ctx context.Context) (memory.Embedder, io.Closer, error) {
	c := e.cfg.Embed
	switch c.Choice {
	case config.EmbedLocal:
		h, err := embed.NewHash(embed.DefaultHashDims)
		return h, io.NopCloser(nil), err
	case config.EmbedHTTP:
		h, err := embed.NewHTTP(ctx, c.URL, c.Model, c.Key, "HyAtlas/"+Version, e.egress)
		return h, io.NopCloser(nil), err
	}
	if _, err := e.initORT(); err != nil {
		return nil, nil, err
	}
	if c.Choice == config.EmbedAuto || c.Choice == config.EmbedBGE {
		if e.bgeInstalled() {
			return e.openBGE()
		}
		if c.Choice == config.EmbedBGE {
			e.log.Warn("HYATLAS_EMBED_BASE=bge but BGE-small is not installed: using GloVe until `hyatlas models install bge-small`")
		}
	}
	return e.openGloVe()
}

func (e embedderSet) initORT() (*embed.ORTRuntime, error) {
	exeDir := ""
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		exeDir = filepath.Dir(exe)
	}
	return embed.InitORT(embed.ORTOptions{Lib: e.cfg.Embed.ORTLib, ExeDir: exeDir,
		DataDir: e.cfg.Paths.Data, CacheDir: e.cfg.Paths.Cache})
}

// sessionOptions: one thread per model run, and as many runs at once as
// cores (the Batcher's workers); measured faster on 2 cores than one run
// using both (README, embedding benchmarks).
func sessionOptions() embed.SessionOptions { return embed.SessionOptions{IntraOp: 1} }

func (e embedderSet) openGloVe() (memory.Embedder, io.Closer, error) {
	g, err := embed.NewGloVe(sessionOptions())
	if err != nil {
		return nil, nil, err
	}
	return batched(g)
}

func (e embedderSet) openBGE() (memory.Embedder, io.Closer, error) {
	model, _ := e.models.Path(bgeModel, "model.onnx")
	b, err := embed.LoadBGE(filepath.Dir(model), e.bgeID(), sessionOptions())
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", bgeModel, err)
	}
	return batched(b)
}

func (e embedderSet) bgeInstalled() bool {
	list, err := e.models.List()
	if err != nil {
		return false
	}
	for _, m := range list {
		if m.Name == bgeModel {
			return m.Installed
		}
	}
	return false
}

// closingBatcher closes the batcher, then the model under it.
type closingBatcher struct {
	b     *embed.Batcher
	model io.Closer
}

func (c closingBatcher) Close() error {
	c.b.Close()
	return c.model.Close()
}

func batched(m interface {
	memory.Embedder
	io.Closer
}) (memory.Embedder, io.Closer, error) {
	b := embed.NewBatcher(m, runtime.GOMAXPROCS(0))
	return b, closingBatcher{b: b, model: m}, nil
}

// bgeID is the embedder id of the installed BGE model: its name and the
// start of its pinned checksum.
func (e embedderSet) bgeID() string {
	list, _ := e.models.List()
	for _, m := range list {
		if m.Name != bgeModel {
			continue
		}
		for _, f := range m.Files {
			if f.Name == "model.onnx" && len(f.SHA256) >= 8 {
				return embed.BGEName + "-" + f.SHA256[:8]
			}
		}
	}
	return embed.BGEName
}
