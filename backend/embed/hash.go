// Package embed holds the embedders: models that turn text into vectors.
package embed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"

	"hyatlas/backend/memory"
)

// Hash is a deterministic, lexical embedder for tests and development: each
// word (as the keyword leg splits words, without stop words) adds ±1 to one
// of Dims buckets chosen by its FNV hash, and the sum is L2-normalised.
// Texts that share words are close; synonyms are not. It is not semantic,
// and status says so. A text with no words maps to a bucket of its own, so
// it neither yields NaN nor matches everything.
type Hash struct {
	dims int
}

// DefaultHashDims matches BGE-small, so measurements with the hash
// embedder cost what they would with the real model.
const DefaultHashDims = 384

// NewHash returns a hash embedder with the given number of dimensions.
func NewHash(dims int) (*Hash, error) {
	if dims < 8 {
		return nil, fmt.Errorf("hash embedder needs at least 8 dimensions, got %d", dims)
	}
	return &Hash{dims: dims}, nil
}

// Info describes the embedder.
func (h *Hash) Info() memory.EmbedderInfo {
	return memory.EmbedderInfo{
		ID:        fmt.Sprintf("hash-%d-v1", h.dims),
		Name:      "lexical hash (test embedder, not semantic)",
		Dims:      h.dims,
		Semantic:  false,
		MinScore:  0.25,
		GateScore: 0.25,
	}
}

// Embed implements memory.Embedder. Queries and documents embed alike.
func (h *Hash) Embed(ctx context.Context, texts []string, _ memory.EmbedPurpose) ([][]float32, error) {
	if err := ctx.Err(); err != nil { // also for an empty batch
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = h.vector(t)
	}
	return out, nil
}

func (h *Hash) vector(text string) []float32 {
	v := make([]float32, h.dims)
	words := memory.KeywordTerms(text)
	if len(words) == 0 {
		v[0] = 1 // bucket 0 is kept for texts without words
		return v
	}
	for _, w := range words {
		f := fnv.New64a()
		_, _ = f.Write([]byte(w))
		sum := f.Sum64()
		bucket := 1 + int(sum%uint64(h.dims-1))
		if sum>>63 == 1 {
			v[bucket]--
		} else {
			v[bucket]++
		}
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 { // every word cancelled out
		v[0] = 1
		return v
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= inv
	}
	return v
}

var _ memory.Embedder = (*Hash)(nil)
