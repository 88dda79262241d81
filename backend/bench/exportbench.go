package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"hyatlas/backend/config"
	"hyatlas/backend/engine"
	"hyatlas/backend/memory"
)

// ExportOptions configure `hyatlas bench export`.
type ExportOptions struct {
	Memories int    // 0 means 100,000
	Embed    string // "glove", "hash", or "" (GloVe when ONNX Runtime loads, else hash)
	JSON     bool
	Out      io.Writer
	Progress io.Writer // nil: no progress
}

// ExportReport is the outcome of an export run. Times are seconds.
type ExportReport struct {
	Machine  string `json:"machine"`
	Embedder string `json:"embedder"`
	Memories int    `json:"memories"`
	// Export and ExportBytes: the JSON Lines export with every vector.
	Export      float64 `json:"export_s"`
	ExportBytes int64   `json:"export_bytes"`
	// Import: that export into an empty data directory, until every row is
	// durable and indexed.
	Import float64 `json:"import_s"`
	// ExportPlain and ImportPlain: the same without vectors; Reembed is the
	// background re-embedding that follows such an import, until every row
	// has its vector again.
	ExportPlain float64 `json:"export_plain_s"`
	ImportPlain float64 `json:"import_plain_s"`
	Reembed     float64 `json:"reembed_after_plain_import_s"`
}

// Export targets (issue 7): export 100k memories in 10 s, import in 60 s.
const (
	exportTargetS = 10
	importTargetS = 60
)

// RunExport seeds a store of synthetic memories, exports it (with and
// without vectors) and imports each export into an empty data directory,
// checking that every memory arrived and is indexed.
func RunExport(ctx context.Context, o ExportOptions) error {
	n := o.Memories
	if n <= 0 {
		n = 100_000
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	st, err := seedStore(ctx, "export", o.Embed, n, progress)
	if err != nil {
		return err
	}
	defer os.RemoveAll(st.tmp)
	tmp, dir, kind := st.tmp, st.dir, st.kind
	rep := ExportReport{Machine: machine(), Embedder: st.embedder, Memories: n}
	full, plain := filepath.Join(tmp, "full.jsonl"), filepath.Join(tmp, "plain.jsonl")
	err = withEngine(ctx, dir, kind, func(eng *engine.Engine) error {
		var err error
		if rep.Export, rep.ExportBytes, err = timeExport(ctx, eng, full, true); err != nil {
			return err
		}
		rep.ExportPlain, _, err = timeExport(ctx, eng, plain, false)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "export: importing into empty data directories ...\n")
	if rep.Import, _, err = timeImport(ctx, tmp, kind, full, n); err != nil {
		return err
	}
	if rep.ImportPlain, rep.Reembed, err = timeImport(ctx, tmp, kind, plain, n); err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.Out, rep)
	}
	printExport(o.Out, rep)
	return nil
}

// withEngine opens an engine on dir with the embedder kind and runs f.
func withEngine(ctx context.Context, dir, kind string, f func(*engine.Engine) error) error {
	cfg := benchConfig(dir)
	cfg.Embed = config.EmbedConfig{Choice: config.EmbedLocal}
	if kind == "glove" {
		cfg.Embed = config.EmbedConfig{Choice: config.EmbedGloVe, ORTLib: ortLib()}
	}
	eng, err := engine.Open(ctx, cfg, engine.Options{Logger: quiet()})
	if err != nil {
		return fmt.Errorf("open engine: %w", err)
	}
	defer eng.Close()
	return f(eng)
}

// timeExport writes an export to path and returns its time and size.
func timeExport(ctx context.Context, eng *engine.Engine, path string, vectors bool) (float64, int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	start := time.Now()
	if _, err := eng.Memory.Export(ctx, f, memory.ExportInput{Vectors: vectors}); err != nil {
		return 0, 0, fmt.Errorf("export: %w", err)
	}
	if err := f.Sync(); err != nil {
		return 0, 0, err
	}
	took := time.Since(start).Seconds()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	return took, st.Size(), nil
}

// timeImport imports path into a new data directory and checks that all n
// memories are there; it returns the import's time and the time until
// re-embedding has given every row its vector (0 when none was needed).
func timeImport(ctx context.Context, tmp, kind, path string, n int) (importS, reembedS float64, err error) {
	dir, err := os.MkdirTemp(tmp, "import-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	err = withEngine(ctx, dir, kind, func(eng *engine.Engine) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		start := time.Now()
		rep, err := eng.Memory.Import(ctx, f)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		importS = time.Since(start).Seconds()
		if rep.Imported != n {
			return fmt.Errorf("imported %d of %d memories", rep.Imported, n)
		}
		for {
			st, err := eng.Memory.Stats(ctx)
			if err != nil {
				return err
			}
			if st.IndexLen == n {
				break
			}
			if time.Since(start) > 30*time.Minute {
				return fmt.Errorf("the index holds %d of %d memories after 30 minutes", st.IndexLen, n)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if rep.Reembed > 0 {
			reembedS = time.Since(start).Seconds() - importS
		}
		return nil
	})
	return importS, reembedS, err
}

func printExport(w io.Writer, r ExportReport) {
	fmt.Fprintf(w, "machine: %s\nembedder: %s\nmemories: %d\n\n", r.Machine, r.Embedder, r.Memories)
	pass := func(s, target float64) string {
		if s <= target {
			return "ok"
		}
		return "MISSED"
	}
	fmt.Fprintf(w, "%-44s %9s %9s %7s\n", "measure", "seconds", "target", "result")
	fmt.Fprintf(w, "%-44s %9.2f %9d %7s\n", fmt.Sprintf("export with vectors (%.0f MB)", float64(r.ExportBytes)/1e6), r.Export, exportTargetS, pass(r.Export, exportTargetS))
	fmt.Fprintf(w, "%-44s %9.2f %9d %7s\n", "import with vectors (durable and indexed)", r.Import, importTargetS, pass(r.Import, importTargetS))
	fmt.Fprintf(w, "%-44s %9.2f %9s %7s\n", "export without vectors", r.ExportPlain, "", "")
	fmt.Fprintf(w, "%-44s %9.2f %9s %7s\n", "import without vectors (durable)", r.ImportPlain, "", "")
	fmt.Fprintf(w, "%-44s %9.2f %9s %7s\n", "  then re-embedding every row", r.Reembed, "", "")
}

// seededStore is a temporary folder with a store of synthetic memories.
type seededStore struct {
	tmp, dir string // the folder (remove it when done) and the store's data dir in it
	kind     string // the embedder kind the store was seeded with: "glove" or "hash"
	embedder string // its id
}

// seedStore opens the embedder (kind "" is GloVe, or the hash embedder
// when ONNX Runtime does not load) and seeds n synthetic memories with its
// vectors in a new temporary folder; name labels the progress lines.
func seedStore(ctx context.Context, name, kind string, n int, progress io.Writer) (seededStore, error) {
	tmp, err := tempDir("hyatlas-bench-" + name + "-")
	if err != nil {
		return seededStore{}, fmt.Errorf("make temporary directory: %w", err)
	}
	s := seededStore{tmp: tmp, kind: kind}
	emb, closeEmb, err := openBenchEmbedder(kind, filepath.Join(tmp, "cache"))
	if err != nil && kind == "" {
		s.kind = "hash"
		emb, closeEmb, err = openBenchEmbedder(s.kind, "")
	}
	if err != nil {
		os.RemoveAll(tmp)
		return seededStore{}, fmt.Errorf("embedder %q: %w", kind, err)
	}
	defer closeEmb()
	if s.kind == "" {
		s.kind = "glove"
	}
	s.embedder = emb.Info().ID
	fmt.Fprintf(progress, "%s: seeding %d memories (%s) ...\n", name, n, s.embedder)
	if s.dir, err = seedWith(ctx, tmp, n, emb, mixedTexts(1, 3, 6, 30, 2, 8)); err != nil {
		os.RemoveAll(tmp)
		return seededStore{}, fmt.Errorf("seed: %w", err)
	}
	return s, nil
}
