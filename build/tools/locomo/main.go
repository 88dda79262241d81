// Command locomo measures recall on the LoCoMo benchmark (Maharana et al.,
// ACL 2024; CC BY-NC 4.0: evaluation only, never shipped) with an
// embedder of one's choice, such as a GloVe build of build/tools/genglove,
// through the same code as `hyatlas bench recall` (backend/bench). With
// -calibrate it prints the cosines that set an embedder's vector floor
// instead.
//
//	go run ./build/tools/locomo -data ../shared/data/locomo/locomo10.json [-embed glove|hash] [-glove DIR] [-calibrate] [-json]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"

	"hyatlas/backend/bench"
	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
)

func main() {
	data := flag.String("data", "../shared/data/locomo/locomo10.json", "locomo10.json")
	kind := flag.String("embed", "glove", "glove | hash")
	gloveDir := flag.String("glove", "", "a genglove output dir (default: the built-in model)")
	ortLib := flag.String("ort", os.Getenv("HYATLAS_ORT_LIB"), "ONNX Runtime library")
	convs := flag.Int("conversations", 0, "the first N conversations (0: all)")
	calibrate := flag.Bool("calibrate", false, "print the cosines that set the vector floor")
	asJSON := flag.Bool("json", false, "print JSON")
	flag.Parse()
	if err := run(*data, *kind, *gloveDir, *ortLib, *convs, *calibrate, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "locomo:", err)
		os.Exit(1)
	}
}

func run(data, kind, gloveDir, ortLib string, convs int, calibrate, asJSON bool) error {
	emb, closeEmb, err := openEmbedder(kind, gloveDir, ortLib)
	if err != nil {
		return err
	}
	defer closeEmb()
	ctx := context.Background()
	o := bench.RecallOptions{Data: data, Embedder: emb, Conversations: convs, JSON: asJSON, Out: os.Stdout,
		Progress: os.Stderr}
	if !calibrate {
		return bench.RunRecall(ctx, o)
	}
	rep, err := bench.CalibrateFloor(ctx, o)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	bench.PrintFloor(os.Stdout, rep)
	return nil
}

// openEmbedder opens the hash test embedder, the built-in GloVe model, or
// the GloVe build in dir, as the app runs GloVe (one ORT thread per run
// behind a Batcher). The returned func frees it.
func openEmbedder(kind, dir, lib string) (memory.Embedder, func(), error) {
	switch kind {
	case "hash":
		h, err := embed.NewHash(embed.DefaultHashDims)
		return h, func() {}, err
	case "glove":
	default:
		return nil, nil, fmt.Errorf("unknown embedder %q (valid: glove, hash)", kind)
	}
	cache, err := os.MkdirTemp("", "locomo-ort-")
	if err != nil {
		return nil, nil, err
	}
	if _, err := embed.InitORT(embed.ORTOptions{Lib: lib, CacheDir: cache}); err != nil {
		return nil, nil, err
	}
	var g *embed.GloVe
	if dir != "" {
		g, err = embed.LoadGloVeDir(dir, embed.SessionOptions{IntraOp: 1})
	} else {
		g, err = embed.NewGloVe(embed.SessionOptions{IntraOp: 1})
	}
	if err != nil {
		return nil, nil, err
	}
	b := embed.NewBatcher(g, runtime.GOMAXPROCS(0))
	return b, func() { b.Close(); _ = g.Close(); _ = os.RemoveAll(cache) }, nil
}
