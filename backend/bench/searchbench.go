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

// SearchOptions configure `hyatlas bench search`.
type SearchOptions struct {
	Sizes    []int  // store sizes; none means 10,000 and 100,000
	Embed    string // "glove", "hash", or "" (GloVe when ONNX Runtime loads, else hash)
	Queries  int    // timed queries per size; 0 means 300
	JSON     bool
	Out      io.Writer
	Progress io.Writer // nil: no progress
}

// SearchReport is the outcome of a search run.
type SearchReport struct {
	Machine  string      `json:"machine"`
	Embedder string      `json:"embedder"`
	Fallback string      `json:"fallback,omitempty"` // why GloVe was not used, when it was not
	Queries  int         `json:"queries"`
	Sizes    []SizeTimes `json:"sizes"`
}

// SizeTimes are the timings at one store size.
type SizeTimes struct {
	Memories int `json:"memories"`
	// Embed is the query embedding alone: the service's embedder called
	// directly on a query it has not seen. Excl is a search minus its own
	// embed stage (which re-embeds a text just embedded, with warm caches,
	// so it is not what a new query costs). Incl is Embed plus Excl, per
	// query: what a search of a new query costs.
	Embed Latency `json:"query_embedding"`
	Excl  Latency `json:"search_excl_embedding"`
	Incl  Latency `json:"search_incl_embedding"`
	// OffTopicEmpty is the share of 100 off-topic queries answered with
	// nothing (the relevance gate's target is 95% or more).
	OffTopicEmpty float64 `json:"off_topic_empty"`
}

// searchWarmup queries are run before timing starts.
const searchWarmup = 20

// RunSearch seeds, for each size, a store of synthetic memories whose
// vectors are made by the chosen embedder, opens an engine on it with that
// same embedder (checked: same embedder id, every memory indexed), and
// times hybrid searches of 10 hits: the query embedding alone (timed
// first), then the search, with and without that embedding (see
// SizeTimes). The memories mix the synthetic
// Zipf vocabulary (for a realistic keyword leg) with a few English words,
// so that GloVe runs its model instead of falling back to hashed vectors
// for unknown words.
func RunSearch(ctx context.Context, o SearchOptions) error {
	sizes := o.Sizes
	if len(sizes) == 0 {
		sizes = []int{10_000, 100_000}
	}
	queries := o.Queries
	if queries <= 0 {
		queries = 300
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	tmp, err := tempDir("hyatlas-bench-search-")
	if err != nil {
		return fmt.Errorf("make temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)

	rep := SearchReport{Machine: machine(), Queries: queries}
	kind := o.Embed
	emb, closeEmb, err := openBenchEmbedder(kind, filepath.Join(tmp, "cache"))
	if err != nil && kind == "" {
		rep.Fallback = fmt.Sprintf("GloVe unavailable (%v)", err)
		fmt.Fprintf(progress, "%s: using the hash test embedder\n", rep.Fallback)
		kind = "hash"
		emb, closeEmb, err = openBenchEmbedder(kind, "")
	}
	if err != nil {
		return fmt.Errorf("embedder %q: %w", o.Embed, err)
	}
	defer closeEmb()
	if kind == "" {
		kind = "glove"
	}
	rep.Embedder = emb.Info().ID

	for _, n := range sizes {
		if n <= 0 {
			return fmt.Errorf("store size %d: must be positive", n)
		}
		fmt.Fprintf(progress, "search: seeding %d memories (%s) ...\n", n, rep.Embedder)
		docs := mixedTexts(1, 3, 6, 30, 2, 8)
		dir, err := seedWith(ctx, tmp, n, emb, docs)
		if err != nil {
			return fmt.Errorf("seed %d memories: %w", n, err)
		}
		times, err := timeSearches(ctx, dir, kind, n, queries, emb.Info().ID)
		if err != nil {
			return fmt.Errorf("search at %d memories: %w", n, err)
		}
		rep.Sizes = append(rep.Sizes, times)
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove seeded store: %w", err)
		}
	}
	if o.JSON {
		return writeJSON(o.Out, rep)
	}
	printSearch(o.Out, rep)
	return nil
}

// mixedTexts returns a source of texts of lo..hi synthetic words followed
// by elo..ehi English words, deterministic for its seeds.
func mixedTexts(seed, englishSeed int64, lo, hi, elo, ehi int) func() string {
	c, e := newCorpus(seed), newCorpus(englishSeed)
	return func() string {
		return c.text(lo, hi) + " " + englishText(e, elo+e.rng.Intn(ehi-elo+1))
	}
}

// timeSearches opens an engine on a seeded store with the embedder kind
// ("glove" or "hash") and times queries searches after a warm-up.
func timeSearches(ctx context.Context, dir, kind string, n, queries int, wantEmbedder string) (SizeTimes, error) {
	cfg := benchConfig(dir)
	cfg.Embed = config.EmbedConfig{Choice: config.EmbedLocal}
	if kind == "glove" {
		cfg.Embed = config.EmbedConfig{Choice: config.EmbedGloVe, ORTLib: ortLib()}
	}
	eng, err := engine.Open(ctx, cfg, engine.Options{Logger: quiet()})
	if err != nil {
		return SizeTimes{}, fmt.Errorf("open engine: %w", err)
	}
	defer eng.Close()
	if got := eng.Memory.EmbedderInfo().ID; got != wantEmbedder {
		return SizeTimes{}, fmt.Errorf("the engine embeds with %s but the store was seeded with %s", got, wantEmbedder)
	}
	stats, err := eng.Memory.Stats(ctx)
	if err != nil {
		return SizeTimes{}, fmt.Errorf("read stats: %w", err)
	}
	if stats.IndexLen != n {
		return SizeTimes{}, fmt.Errorf("the index holds %d of the %d seeded memories", stats.IndexLen, n)
	}
	emb := eng.Memory.Embedder()
	next := mixedTexts(2, 4, 2, 4, 1, 3)
	var embedMS, exclMS, inclMS []float64
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for i := range searchWarmup + queries {
		q := next()
		t0 := time.Now()
		if _, err := emb.Embed(ctx, []string{q}, memory.PurposeQuery); err != nil {
			return SizeTimes{}, fmt.Errorf("embed query: %w", err)
		}
		embedTook := time.Since(t0)
		t1 := time.Now()
		res, err := eng.Memory.Search(ctx, memory.SearchInput{Query: q, Limit: 10})
		if err != nil {
			return SizeTimes{}, fmt.Errorf("search: %w", err)
		}
		took := time.Since(t1)
		if i < searchWarmup {
			continue
		}
		excl := took - res.Timings["embed"]
		embedMS = append(embedMS, ms(embedTook))
		exclMS = append(exclMS, ms(excl))
		inclMS = append(inclMS, ms(embedTook+excl))
	}
	off, err := offTopicEmpty(ctx, eng.Memory, 100)
	if err != nil {
		return SizeTimes{}, err
	}
	return SizeTimes{Memories: n, Embed: latencyOf(embedMS), Excl: latencyOf(exclMS), Incl: latencyOf(inclMS),
		OffTopicEmpty: off}, nil
}

func printSearch(w io.Writer, rep SearchReport) {
	fmt.Fprintf(w, "\n%s; embedder %s", rep.Machine, rep.Embedder)
	if rep.Fallback != "" {
		fmt.Fprintf(w, " (%s)", rep.Fallback)
	}
	fmt.Fprintf(w, "; %d hybrid searches of 10 hits per size\n\n", rep.Queries)
	fmt.Fprintln(w, "| memories | query embedding p50 (p95) | search excl. embedding p50 (p95) | search incl. embedding p50 (p95) | off-topic queries answered with nothing |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, s := range rep.Sizes {
		fmt.Fprintf(w, "| %s | %.3f ms (%.3f ms) | %.2f ms (%.2f ms) | %.2f ms (%.2f ms) | %.0f%% |\n", thousands(s.Memories),
			s.Embed.P50, s.Embed.P95, s.Excl.P50, s.Excl.P95, s.Incl.P50, s.Incl.P95, 100*s.OffTopicEmpty)
	}
}
