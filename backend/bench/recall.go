package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"hyatlas/backend/config"
	"hyatlas/backend/embed"
	"hyatlas/backend/engine"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
)

// RecallOptions configure `hyatlas bench recall`.
type RecallOptions struct {
	Data  string // locomo10.json
	Embed string // "glove" (default) or "hash"
	// Embedder, when set, is used instead of the one Embed names (a GloVe
	// build of one's own, to compare); the caller closes it.
	Embedder      memory.Embedder
	Conversations int // the first N conversations; 0 means all
	Questions     int // at most N questions per conversation, the first ones; 0 means all
	JSON          bool
	Out           io.Writer
	Progress      io.Writer // nil: no progress
}

// recallLimit is the number of hits asked of each search (the largest k).
const recallLimit = 20

// readerSpec is one way of searching that the recall bench compares.
type readerSpec struct {
	name   string
	reader memory.Reader
	gated  bool // the service's default floor (MinScore nil) instead of 0
}

// recallReaders are compared in one run: each leg alone and the full
// pipeline with no floor, and the full pipeline with its default floor,
// since the relevance gate may drop hits.
var recallReaders = []readerSpec{
	{"keyword", memory.ReaderKeyword, false},
	{"vector", memory.ReaderVector, false},
	{"full", memory.ReaderHybrid, false},
	{"full-gated", memory.ReaderHybrid, true},
}

// RecallReport is the outcome of a recall run.
type RecallReport struct {
	Machine          string         `json:"machine"`
	Embedder         string         `json:"embedder"`
	DataSHA256       string         `json:"data_sha256"`
	Conversations    int            `json:"conversations"`
	Turns            int            `json:"turns"`
	Questions        int            `json:"questions"`
	SkippedQuestions int            `json:"skipped_questions"` // categories 1-4, no evidence naming a turn
	UnknownEvidence  int            `json:"unknown_evidence"`  // evidence ids naming no turn
	IngestSeconds    float64        `json:"ingest_seconds"`
	Readers          []ReaderResult `json:"readers"`
	// OffTopicEmpty is the share of off-topic questions (generated, 10 per
	// conversation, with the default floor) answered with nothing.
	OffTopicEmpty float64 `json:"off_topic_empty"`
	OffTopicAsked int     `json:"off_topic_asked"`
}

// ReaderResult is one reader's numbers.
type ReaderResult struct {
	Name       string            `json:"name"`
	Reader     string            `json:"reader"`
	MinScore   float64           `json:"min_score"` // the vector floor the searches ran with
	Errors     int               `json:"errors"`    // searches that failed (not scored)
	Overall    Recall            `json:"overall"`
	ByCategory map[string]Recall `json:"by_category"`
	Latency    Latency           `json:"latency"`
}

// RunRecall runs the LoCoMo recall bench and prints it (markdown, or JSON
// with o.JSON). Without the data file it prints where to get it and
// returns nil: the bench is skipped, not failed.
func RunRecall(ctx context.Context, o RecallOptions) error {
	rep, err := EvaluateRecall(ctx, o)
	if errors.Is(err, ErrNoLoCoMo) {
		msg := fmt.Sprintf("skipped: %v. Get it from %s and pass its path with --locomo FILE.", err, LoCoMoSource)
		if o.JSON {
			return writeJSON(o.Out, map[string]any{"skipped": true, "reason": msg})
		}
		_, err := fmt.Fprintln(o.Out, msg)
		return err
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.Out, rep)
	}
	printRecall(o.Out, rep)
	return nil
}

// EvaluateRecall ingests the LoCoMo conversations into a fresh store in a
// temporary directory (lite mode: no LLM) and searches every question of
// categories 1-4 with each of recallReaders, scoped to the conversation's
// owner. Before a conversation's questions the clock is set to its last
// turn, so relative dates in a query mean what they meant then. A failed
// search is counted in ReaderResult.Errors and not scored; any other error
// ends the run. A missing data file gives an error wrapping ErrNoLoCoMo.
func EvaluateRecall(ctx context.Context, o RecallOptions) (RecallReport, error) {
	run, err := openLoCoMo(ctx, o)
	if err != nil {
		return RecallReport{}, err
	}
	defer run.close()
	rep, svc, clk, convs, ins := run.rep, run.svc, run.clk, run.convs, run.ins
	for _, r := range recallReaders {
		fmt.Fprintf(run.progress, "search: %s\n", r.name)
		res, err := evaluateReader(ctx, svc, clk, r, convs, ins)
		if err != nil {
			return rep, err
		}
		rep.Readers = append(rep.Readers, res)
	}
	empty := 0
	for i, c := range convs {
		for _, q := range offTopicQueries(10, int64(i)) {
			res, err := svc.Search(ctx, memory.SearchInput{Query: q, Limit: 20, UserIDs: []string{c.ID}})
			if err != nil {
				return rep, fmt.Errorf("off-topic search: %w", err)
			}
			rep.OffTopicAsked++
			if len(res.Hits) == 0 {
				empty++
			}
		}
	}
	if rep.OffTopicAsked > 0 {
		rep.OffTopicEmpty = float64(empty) / float64(rep.OffTopicAsked)
	}
	return rep, nil
}

// locomoRun is a temporary store holding the LoCoMo conversations, each
// turn a raw memory of its conversation's owner.
type locomoRun struct {
	rep      RecallReport // what is known before searching: machine, data, counts
	svc      *memory.Service
	index    *vector.Index
	embedder memory.Embedder
	clk      *clock
	convs    []conversation
	ins      []ingested
	progress io.Writer
	close    func()
}

// openLoCoMo loads o.Data and ingests it into a fresh store in a temporary
// directory, with o.Embedder, else the embedder o.Embed names. The search
// options are the defaults a user gets, except usage learning: the
// readers run one after another on one store, and no reply reports what
// it used. close removes everything.
func openLoCoMo(ctx context.Context, o RecallOptions) (*locomoRun, error) {
	if o.Data == "" {
		return nil, fmt.Errorf("%w: no --locomo FILE given", ErrNoLoCoMo)
	}
	convs, sum, err := loadLoCoMo(o.Data, o.Conversations)
	if err != nil {
		return nil, err
	}
	for i := range convs {
		if o.Questions > 0 && len(convs[i].Questions) > o.Questions {
			convs[i].Questions = convs[i].Questions[:o.Questions]
		}
	}
	run := &locomoRun{clk: &clock{}, convs: convs, progress: o.Progress, close: func() {}}
	if run.progress == nil {
		run.progress = io.Discard
	}
	var closers []func()
	run.close = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	fail := func(err error) (*locomoRun, error) {
		run.close()
		return nil, err
	}
	tmp, err := tempDir("hyatlas-recall-")
	if err != nil {
		return nil, fmt.Errorf("make temporary directory: %w", err)
	}
	closers = append(closers, func() { _ = os.RemoveAll(tmp) })
	run.embedder = o.Embedder
	if run.embedder == nil {
		emb, closeEmb, err := openBenchEmbedder(o.Embed, filepath.Join(tmp, "cache"))
		if err != nil {
			return fail(fmt.Errorf("embedder %q: %w", o.Embed, err))
		}
		run.embedder = emb
		closers = append(closers, closeEmb)
	}
	st, err := store.Open(ctx, filepath.Join(tmp, "data"))
	if err != nil {
		return fail(fmt.Errorf("open store: %w", err))
	}
	closers = append(closers, func() { _ = st.Close() })
	def := config.DefaultSearch()
	search := memory.SearchConfig{Recency: def.Recency, MMRLambda: def.MMRLambda, IntentionTTL: def.IntentionTTL}
	run.index = vector.New(run.embedder.Info().Dims)
	run.svc, err = memory.NewService(
		memory.Config{Mode: memory.ModeLite, MinScore: -1, Extraction: memory.ExtractionConfig{Location: time.UTC},
			Search: search},
		memory.Deps{Store: st, Index: run.index, Embedder: run.embedder, Now: run.clk.Now, Graph: st})
	if err != nil {
		return fail(fmt.Errorf("start memory service: %w", err))
	}

	run.rep = RecallReport{Machine: machine(), Embedder: run.embedder.Info().ID, DataSHA256: sum, Conversations: len(convs)}
	start := time.Now()
	run.ins = make([]ingested, len(convs))
	for i, c := range convs {
		fmt.Fprintf(run.progress, "ingest %s: %d turns\n", c.ID, len(c.Turns))
		if run.ins[i], err = ingest(ctx, run.svc, run.clk, c); err != nil {
			return fail(err)
		}
		run.rep.Turns += len(c.Turns)
		run.rep.Questions += len(c.Questions)
		run.rep.SkippedQuestions += c.Skipped
		run.rep.UnknownEvidence += c.Unknown
	}
	run.rep.IngestSeconds = time.Since(start).Seconds()
	return run, nil
}

// evaluateReader searches every question with one reader and scores it.
func evaluateReader(ctx context.Context, svc *memory.Service, clk *clock, r readerSpec, convs []conversation, ins []ingested) (ReaderResult, error) {
	zero := 0.0
	res := ReaderResult{Name: r.name, Reader: string(r.reader), MinScore: 0, ByCategory: map[string]Recall{}}
	if r.gated {
		res.MinScore = svc.MinScore()
	}
	var overall tally
	byCat := map[int]*tally{}
	var ms []float64
	for i, c := range convs {
		clk.Set(ins[i].last.Add(time.Minute))
		for _, q := range c.Questions {
			in := memory.SearchInput{Query: q.Text, Limit: recallLimit, UserIDs: []string{c.ID}, Reader: string(r.reader)}
			if !r.gated {
				in.MinScore = &zero
			}
			t0 := time.Now()
			out, err := svc.Search(ctx, in)
			took := time.Since(t0)
			if ctx.Err() != nil {
				return res, fmt.Errorf("search %s (%s): %w", c.ID, r.name, ctx.Err())
			}
			if err != nil {
				res.Errors++
				continue
			}
			ms = append(ms, float64(took.Microseconds())/1000)
			ranked := make([]string, len(out.Hits))
			for j, h := range out.Hits {
				ranked[j] = h.Memory.ID
			}
			evidence := make([]string, len(q.Evidence))
			for j, d := range q.Evidence {
				evidence[j] = ins[i].memoryOf[d]
			}
			s := scoreQuestion(ranked, evidence, ins[i].sessionOf)
			overall.add(s)
			if byCat[q.Category] == nil {
				byCat[q.Category] = &tally{}
			}
			byCat[q.Category].add(s)
		}
	}
	res.Overall = overall.recall()
	for _, cat := range categoryOrder {
		t := byCat[cat]
		if t == nil {
			t = &tally{}
		}
		res.ByCategory[categoryNames[cat]] = t.recall()
	}
	res.Latency = latencyOf(ms)
	return res, nil
}

// openBenchEmbedder opens the embedder named kind as the app runs it:
// "hash" is the lexical test embedder; "glove" (or "") is the built-in
// GloVe model, one ORT thread per run, behind a Batcher. The ONNX Runtime
// library is found by ortLib, else next to this executable; ORT's own
// files go under cacheDir. The returned func frees the model.
func openBenchEmbedder(kind, cacheDir string) (memory.Embedder, func(), error) {
	switch kind {
	case "hash":
		h, err := embed.NewHash(embed.DefaultHashDims)
		return h, func() {}, err
	case "", "glove":
	default:
		return nil, nil, fmt.Errorf("unknown embedder %q (valid: glove, hash)", kind)
	}
	if _, err := embed.InitORT(embed.ORTOptions{Lib: ortLib(), ExeDir: exeDir(), CacheDir: cacheDir}); err != nil {
		return nil, nil, err
	}
	g, err := embed.NewGloVe(embed.SessionOptions{IntraOp: 1})
	if err != nil {
		return nil, nil, err
	}
	b := embed.NewBatcher(g, runtime.GOMAXPROCS(0))
	return b, func() { b.Close(); _ = g.Close() }, nil
}

// ortLib is the ONNX Runtime library to load: HYATLAS_ORT_LIB when set,
// else the copy the build scripts put in build/cache/ort/lib/ of the
// source tree the working directory is in (found by walking up to go.mod),
// else "" (InitORT then looks next to the binary).
func ortLib() string {
	if lib := os.Getenv("HYATLAS_ORT_LIB"); lib != "" {
		return lib
	}
	root, ok := repoRoot()
	if !ok {
		return ""
	}
	name := "libonnxruntime.so.1"
	switch runtime.GOOS {
	case "windows":
		name = "onnxruntime.dll"
	case "darwin":
		name = "libonnxruntime.1.dylib"
	}
	lib := filepath.Join(root, "build", "cache", "ort", "lib", name)
	if _, err := os.Stat(lib); err != nil {
		return ""
	}
	return lib
}

// repoRoot walks up from the working directory to the one holding go.mod.
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	for err == nil {
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}

func exeDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Dir(exe)
}

// machine names this machine and build, as the bench table does.
func machine() string {
	return fmt.Sprintf("HyAtlas %s: %s, %d cores, %s, %s, %s/%s", engine.Version, cpuModel(), runtime.NumCPU(),
		memTotal(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("print JSON: %w", err)
	}
	return nil
}

// printRecall prints the report as two markdown tables: overall numbers
// per reader, then turn R@5 per category per reader.
func printRecall(w io.Writer, rep RecallReport) {
	short := rep.DataSHA256
	if len(short) > 12 {
		short = short[:12]
	}
	fmt.Fprintf(w, "\n%s; embedder %s; LoCoMo sha256 %s\n", rep.Machine, rep.Embedder, short)
	fmt.Fprintf(w, "%d conversations, %d turns ingested in %.1f s, %d questions (categories 1-4; %d without usable evidence skipped, %d unknown evidence ids)\n\n",
		rep.Conversations, rep.Turns, rep.IngestSeconds, rep.Questions, rep.SkippedQuestions, rep.UnknownEvidence)
	fmt.Fprintln(w, "| reader | min score | turn R@1 | turn R@5 | turn R@10 | turn R@20 | recall-all@5 | session R@5 | session R@10 | empty results | mean ms | p50 ms | p95 ms |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rep.Readers {
		o := r.Overall
		name := r.Name
		if r.Errors > 0 {
			name = fmt.Sprintf("%s (**%d failed**)", name, r.Errors)
		}
		fmt.Fprintf(w, "| %s | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %.2f | %.2f | %.2f |\n",
			name, r.MinScore, o.Turn[1], o.Turn[5], o.Turn[10], o.Turn[20], o.All[5], o.Session[5], o.Session[10],
			o.Empty, r.Latency.Mean, r.Latency.P50, r.Latency.P95)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "| turn R@5 by category |")
	for _, cat := range categoryOrder {
		n := 0
		if len(rep.Readers) > 0 {
			n = rep.Readers[0].ByCategory[categoryNames[cat]].Questions
		}
		fmt.Fprintf(w, " %d %s (n=%d) |", cat, categoryNames[cat], n)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range rep.Readers {
		fmt.Fprintf(w, "| %s |", r.Name)
		for _, cat := range categoryOrder {
			fmt.Fprintf(w, " %.3f |", r.ByCategory[categoryNames[cat]].Turn[5])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nOff-topic questions answered with nothing (default floor): %.0f%% of %d\n",
		100*rep.OffTopicEmpty, rep.OffTopicAsked)
}
