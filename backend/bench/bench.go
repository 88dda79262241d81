// Package bench measures HyAtlas against its performance targets on this
// machine and prints a table (`hyatlas bench`). It works in a temporary
// directory and never touches the user's data.
package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"hyatlas/backend/config"
	"hyatlas/backend/embed"
	"hyatlas/backend/engine"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
)

// Options choose the sizes.
type Options struct {
	Quick    bool   // small sizes, for a smoke run
	Binary   string // this executable, started as a child for the start-up measure
	Out      io.Writer
	Progress io.Writer
}

// row is one line of the result table.
type row struct {
	measure, result, target string
	ok                      bool
}

// Run runs every measure and prints the table.
func Run(ctx context.Context, o Options) error {
	tmp, err := tempDir("hyatlas-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	small, large := 10_000, 100_000
	if o.Quick {
		small, large = 1_000, 5_000
	}
	var rows []row
	say := func(format string, args ...any) { fmt.Fprintf(o.Progress, format+"\n", args...) }

	say("embedding: the GloVe model and a BERT-shaped model ...")
	r, err := benchEmbedding(ctx, tmp)
	if err != nil {
		return fmt.Errorf("embedding: %w", err)
	}
	rows = append(rows, r...)

	say("writes: 8 concurrent clients over loopback ...")
	r, err = benchWrites(ctx, tmp)
	if err != nil {
		return fmt.Errorf("writes: %w", err)
	}
	rows = append(rows, r...)

	say("extraction: blocking writes against a model that answers at once ...")
	r, err = benchExtraction(ctx, tmp, extractWrites)
	if err != nil {
		return fmt.Errorf("extraction: %w", err)
	}
	rows = append(rows, r...)

	for _, n := range []int{small, large} {
		say("search: seeding %d memories ...", n)
		dir, err := seed(ctx, tmp, n)
		if err != nil {
			return fmt.Errorf("seed %d: %w", n, err)
		}
		// The recall pipeline's targets (they include the query
		// embedding, which the hash embedder makes negligible here).
		target := 10.0
		if n > 10_000 {
			target = 40
		}
		r, err := benchSearch(ctx, dir, n, target)
		if err != nil {
			return fmt.Errorf("search at %d: %w", n, err)
		}
		rows = append(rows, r...)
		if n == large {
			say("start-up: a server process on %d memories ...", n)
			r, err := benchStartup(ctx, dir, o.Binary, n)
			if err != nil {
				return fmt.Errorf("start-up: %w", err)
			}
			rows = append(rows, r...)
		}
	}
	printTable(o.Out, rows)
	return nil
}

// seed writes n synthetic memories with their vectors straight into a new
// store, in batches (one transaction each), and returns its directory. The
// vectors are the hash test embedder's, so the store must be searched with
// that embedder (benchConfig's local choice).
func seed(ctx context.Context, tmp string, n int) (string, error) {
	emb, err := embed.NewHash(embed.DefaultHashDims)
	if err != nil {
		return "", err
	}
	c := newCorpus(1)
	return seedWith(ctx, tmp, n, emb, func() string { return c.text(8, 40) })
}

// seedWith is seed with the texts from text and the vectors from emb: a
// search of the store must use an embedder with emb's id, or it finds no
// vector.
func seedWith(ctx context.Context, tmp string, n int, emb memory.Embedder, text func() string) (string, error) {
	dir, err := os.MkdirTemp(tmp, "data-")
	if err != nil {
		return "", err
	}
	st, err := store.Open(ctx, dir)
	if err != nil {
		return "", err
	}
	defer st.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const batch = 500
	for i := 0; i < n; i += batch {
		rows := make([]memory.NewRow, 0, batch)
		texts := make([]string, 0, batch)
		for j := i; j < min(n, i+batch); j++ {
			texts = append(texts, text())
		}
		vecs, err := emb.Embed(ctx, texts, memory.PurposeDocument)
		if err != nil {
			return "", err
		}
		for j, text := range texts {
			at := start.Add(time.Duration(i+j) * time.Minute)
			rows = append(rows, memory.NewRow{
				Memory: memory.Memory{ID: fmt.Sprintf("m%s%08d", at.Format("20060102150405"), i+j),
					Layer: memory.LayerRaw, Content: text, Owner: memory.Owner{UserID: memory.DefaultUserID},
					Strength: memory.DefaultStrength, Source: "bench", EventAt: at, CreatedAt: at, UpdatedAt: at,
					Extraction: memory.ExtractSkipped},
				Vector: memory.Vector{Embedder: emb.Info().ID, Values: vecs[j]},
			})
		}
		if err := st.Insert(ctx, rows...); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// benchSearch opens an engine on a seeded store and times searches,
// excluding the query embedding, as the target is stated.
func benchSearch(ctx context.Context, dir string, n int, targetMS float64) ([]row, error) {
	cfg := benchConfig(dir)
	eng, err := engine.Open(ctx, cfg, engine.Options{Logger: quiet()})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	c := newCorpus(2)
	var ms []float64
	for i := range 300 {
		q := c.text(3, 6)
		start := time.Now()
		res, err := eng.Memory.Search(ctx, memory.SearchInput{Query: q, Limit: 10})
		if err != nil {
			return nil, err
		}
		if i < 20 {
			continue // warm-up
		}
		took := time.Since(start) - res.Timings["embed"]
		ms = append(ms, float64(took.Microseconds())/1000)
	}
	sort.Float64s(ms)
	p50 := percentile(ms, 50)
	return []row{{
		measure: fmt.Sprintf("search at %s memories, p50 (p95) excl. query embedding", thousands(n)),
		result:  fmt.Sprintf("%.2f ms (%.2f ms)", p50, percentile(ms, 95)),
		target:  fmt.Sprintf("≤ %g ms", targetMS), ok: p50 <= targetMS,
	}}, nil
}

// benchConfig is a lite engine on dir with the default recall options.
func benchConfig(dir string) config.Config {
	return config.Config{Host: "127.0.0.1", Port: 0, Auth: true, Mode: memory.ModeLite, MinScore: -1,
		Paths:  config.Paths{Data: dir, Config: dir + "-config", Cache: dir + "-cache"},
		Embed:  config.EmbedConfig{Choice: config.EmbedLocal},
		Search: config.DefaultSearch()}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func thousands(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintf(w, "\nHyAtlas %s bench: %s, %d cores, %s, %s, %s/%s, hash test embedder %d-d\n\n",
		engine.Version, cpuModel(), runtime.NumCPU(), memTotal(), runtime.Version(), runtime.GOOS, runtime.GOARCH,
		embed.DefaultHashDims)
	fmt.Fprintln(w, "| measure | result | target | met |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		met := "yes"
		if !r.ok {
			met = "**no**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.measure, r.result, r.target, met)
	}
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "? RAM"
	}
	var kb int
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			fmt.Sscanf(strings.TrimPrefix(line, "MemTotal:"), "%d", &kb)
		}
	}
	return fmt.Sprintf("%.0f GiB RAM", float64(kb)/(1<<20))
}
