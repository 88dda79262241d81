package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"hyatlas/backend/bench"
)

// runBench runs `hyatlas bench`: with no subcommand, the performance
// targets table; `bench recall`, `bench search` and `bench graph` run the
// recall, search and knowledge-graph benches. All of them work on
// temporary data.
func runBench(ctx context.Context, e Env, args []string) (err error) {
	ctx, stop := stopOnSignal(ctx, e)
	defer func() {
		// What a bench's own clean-up left (it failed, or never ran),
		// while a signal still waits for it.
		if rerr := bench.RemoveTemps(); rerr != nil {
			fmt.Fprintln(e.Stderr, "hyatlas: some of the bench's temporary data could not be removed:", rerr)
		}
		if sig := stop(); sig != nil {
			err = signalled{sig}
		}
	}()
	return runBenchCommand(ctx, e, args)
}

// runBenchCommand runs the bench args name.
func runBenchCommand(ctx context.Context, e Env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "recall":
			return runBenchRecall(ctx, e, args[1:])
		case "search":
			return runBenchSearch(ctx, e, args[1:])
		case "graph":
			return runBenchGraph(ctx, e, args[1:])
		case "export":
			return runBenchExport(ctx, e, args[1:])
		case "snapshot":
			return runBenchSnapshot(ctx, e, args[1:])
		}
		if !strings.HasPrefix(args[0], "-") {
			return usageError{fmt.Sprintf("unknown bench %q (recall, search, graph, export or snapshot)", args[0])}
		}
		for _, a := range args[1:] {
			if benchNames[a] {
				return usageError{fmt.Sprintf("a bench's name comes before its flags: hyatlas bench %s %s", a, strings.Join(without(args, a), " "))}
			}
		}
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "small sizes, for a smoke run")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this executable: %w", err)
	}
	return bench.Run(ctx, bench.Options{Quick: *quick, Binary: self, Out: e.Stdout, Progress: e.Stderr})
}

// benchNames are the benches runBenchCommand runs by name.
var benchNames = map[string]bool{"recall": true, "search": true, "graph": true, "export": true, "snapshot": true}

// without returns args with the first x left out.
func without(args []string, x string) []string {
	for i, a := range args {
		if a == x {
			return append(append([]string{}, args[:i]...), args[i+1:]...)
		}
	}
	return args
}

// runBenchRecall runs `hyatlas bench recall`: recall on the LoCoMo
// conversations. Without the data file it says where to get it and
// succeeds (skipped).
func runBenchRecall(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("bench recall", flag.ContinueOnError)
	data := fs.String("locomo", "", "the LoCoMo data file (locomo10.json)")
	embedder := fs.String("embed", "glove", "embedder: glove or hash")
	convs := fs.Int("conversations", 0, "only the first N conversations (0: all)")
	questions := fs.Int("questions", 0, "only the first N questions of each conversation (0: all)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *embedder != "glove" && *embedder != "hash" {
		return usageError{fmt.Sprintf("bench recall: --embed must be glove or hash, not %q", *embedder)}
	}
	if *convs < 0 || *questions < 0 {
		return usageError{"bench recall: --conversations and --questions must not be negative"}
	}
	return bench.RunRecall(ctx, bench.RecallOptions{Data: *data, Embed: *embedder, Conversations: *convs,
		Questions: *questions, JSON: *asJSON, Out: e.Stdout, Progress: e.Stderr})
}

// runBenchSearch runs `hyatlas bench search`: search latency on synthetic
// stores of the sizes given with --n (repeatable, or comma-separated).
func runBenchSearch(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("bench search", flag.ContinueOnError)
	var sizes sizeList
	fs.Var(&sizes, "n", "store size in memories (repeatable or comma-separated; default 10000,100000)")
	embedder := fs.String("embed", "", "embedder: glove or hash (default: glove when ONNX Runtime loads, else hash)")
	queries := fs.Int("queries", 300, "timed queries per size")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *embedder != "" && *embedder != "glove" && *embedder != "hash" {
		return usageError{fmt.Sprintf("bench search: --embed must be glove or hash, not %q", *embedder)}
	}
	if *queries <= 0 || *queries > maxBenchSize {
		return usageError{fmt.Sprintf("bench search: --queries must be from 1 to %d", maxBenchSize)}
	}
	return bench.RunSearch(ctx, bench.SearchOptions{Sizes: sizes, Embed: *embedder, Queries: *queries,
		JSON: *asJSON, Out: e.Stdout, Progress: e.Stderr})
}

// runBenchGraph runs `hyatlas bench graph`: graph-as-of and change
// queries over a learned history of --n relations.
func runBenchGraph(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("bench graph", flag.ContinueOnError)
	n := fs.Int("n", 50_000, "relations to learn")
	queries := fs.Int("queries", 100, "timed queries of each kind")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *n <= 0 || *queries <= 0 || *n > maxBenchSize || *queries > maxBenchSize {
		return usageError{fmt.Sprintf("bench graph: --n and --queries must be from 1 to %d", maxBenchSize)}
	}
	return bench.RunGraph(ctx, bench.GraphOptions{Relations: *n, Queries: *queries, JSON: *asJSON,
		Out: e.Stdout, Progress: e.Stderr})
}

func runBenchExport(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("bench export", flag.ContinueOnError)
	n := fs.Int("n", 100_000, "memories to export and import")
	emb := fs.String("embed", "", "glove or hash (default: GloVe when ONNX Runtime loads)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *n <= 0 || *n > maxBenchSize {
		return usageError{fmt.Sprintf("bench export: --n must be from 1 to %d", maxBenchSize)}
	}
	if *emb != "" && *emb != "glove" && *emb != "hash" {
		return usageError{"bench export: --embed is glove or hash"}
	}
	return bench.RunExport(ctx, bench.ExportOptions{Memories: *n, Embed: *emb, JSON: *asJSON, Out: e.Stdout, Progress: e.Stderr})
}

func runBenchSnapshot(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("bench snapshot", flag.ContinueOnError)
	n := fs.Int("n", 100_000, "memories in the store")
	emb := fs.String("embed", "", "glove or hash (default: GloVe when ONNX Runtime loads)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *n <= 0 || *n > maxBenchSize || (*emb != "" && *emb != "glove" && *emb != "hash") {
		return usageError{fmt.Sprintf("bench snapshot: --n must be from 1 to %d and --embed glove or hash", maxBenchSize)}
	}
	return bench.RunSnapshot(ctx, bench.SnapshotOptions{Memories: *n, Embed: *emb, JSON: *asJSON, Out: e.Stdout, Progress: e.Stderr})
}

// sizeList is a repeatable flag of positive counts; each value may be a
// comma-separated list.
type sizeList []int

// maxBenchSize bounds a bench's store: ten times the largest target
// (100,000 memories), which a laptop's disk and an hour still hold.
const maxBenchSize = 1_000_000

func (s *sizeList) String() string {
	parts := make([]string, len(*s))
	for i, n := range *s {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func (s *sizeList) Set(v string) error {
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a positive count", f)
		}
		if n > maxBenchSize {
			return fmt.Errorf("%d is more than a bench stores (at most %d)", n, maxBenchSize)
		}
		*s = append(*s, n)
	}
	return nil
}

// stopOnSignal returns ctx cancelled by the first interrupt or
// termination, so a bench stops where it is and its clean-up runs (its
// stores closed, then its temporary data, up to gigabytes, removed). A
// second signal stops without waiting for the bench: the temporary data
// is removed (a removal under way is finished) and the process ends with
// 128 + the signal's number. stop stops listening and returns the
// signal that cancelled ctx (nil if none came).
func stopOnSignal(parent context.Context, e Env) (ctx context.Context, stop func() os.Signal) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	done := make(chan struct{})
	var first atomic.Value
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case sig := <-sigs:
				if first.CompareAndSwap(nil, sig) {
					fmt.Fprintln(e.Stderr, "stopping the bench and removing its temporary data (again to stop without waiting)")
					cancel()
					continue
				}
				_ = bench.RemoveTemps()
				fmt.Fprintln(e.Stderr, "bench stopped; its temporary data is removed")
				os.Exit(signalled{sig}.code())
			case <-done:
				return
			}
		}
	})
	return ctx, func() os.Signal {
		signal.Stop(sigs)
		close(done)
		wg.Wait()
		cancel()
		if sig, ok := first.Load().(os.Signal); ok {
			return sig
		}
		return nil
	}
}

// signalled is a command stopped by a signal: the CLI exits with 128 +
// its number, as a shell does (130 for Ctrl+C, 143 for a termination).
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "stopped by " + s.sig.String() }

func (s signalled) code() int {
	if n, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}
