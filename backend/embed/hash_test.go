package embed

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

func newHash(t *testing.T, dims int) *Hash {
	t.Helper()
	h, err := NewHash(dims)
	if err != nil {
		t.Fatalf("NewHash(%d): %v", dims, err)
	}
	return h
}

func embedTexts(t *testing.T, h *Hash, texts ...string) [][]float32 {
	t.Helper()
	vs, err := h.Embed(context.Background(), texts, memory.PurposeDocument)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("Embed returned %d vectors for %d texts", len(vs), len(texts))
	}
	return vs
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var sample = []string{
	"Foxtrot uses Postgres for the billing service",
	"Alice prefers dark mode in every editor",
	"the deploy runs nightly at 02:00 UTC",
	"HYATLAS_SYNC_EXTRACT makes writes wait for extraction",
	"x",
	"",
	"?!",
	"the of and",
	"日本語のテキスト",
	strings.Repeat("word ", 1000),
}

func TestNewHashDims(t *testing.T) {
	for _, dims := range []int{-1, 0, 1, 7} {
		if h, err := NewHash(dims); err == nil || h != nil {
			t.Errorf("NewHash(%d) = %v, %v; want nil and an error", dims, h, err)
		}
	}
	for _, dims := range []int{8, 9, 384} {
		if h := newHash(t, dims); h.Info().Dims != dims {
			t.Errorf("NewHash(%d).Info().Dims = %d", dims, h.Info().Dims)
		}
	}
}

func TestInfo(t *testing.T) {
	for _, dims := range []int{8, 256, DefaultHashDims} {
		info := newHash(t, dims).Info()
		if info.Semantic {
			t.Errorf("dims %d: Semantic = true", dims)
		}
		if !strings.Contains(info.ID, strconv.Itoa(dims)) {
			t.Errorf("dims %d: ID %q does not include the dims", dims, info.ID)
		}
		if info.Dims != dims || info.Name == "" {
			t.Errorf("dims %d: Info = %+v", dims, info)
		}
	}
	if a, b := newHash(t, 256).Info().ID, newHash(t, 384).Info().ID; a == b {
		t.Errorf("different dims share ID %q", a)
	}
}

func TestDeterministic(t *testing.T) {
	h1, h2 := newHash(t, DefaultHashDims), newHash(t, DefaultHashDims)
	first := embedTexts(t, h1, sample...)
	again := embedTexts(t, h1, sample...)
	other := embedTexts(t, h2, sample...)
	for i := range sample {
		if !equal(first[i], again[i]) || !equal(first[i], other[i]) {
			t.Errorf("%q: vectors differ across calls or instances", sample[i])
		}
	}
	// Batching and purpose do not change a vector.
	for i, s := range sample {
		one, err := h2.Embed(context.Background(), []string{s}, memory.PurposeQuery)
		if err != nil {
			t.Fatal(err)
		}
		if !equal(one[0], first[i]) {
			t.Errorf("%q: single query vector differs from batched document vector", s)
		}
	}
}

func TestUnitNorm(t *testing.T) {
	for _, dims := range []int{8, 9, 64, DefaultHashDims} {
		h := newHash(t, dims)
		for i, v := range embedTexts(t, h, sample...) {
			if len(v) != dims {
				t.Fatalf("dims %d, %q: len %d", dims, sample[i], len(v))
			}
			var n float64
			for _, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("dims %d, %q: non-finite component %v", dims, sample[i], x)
				}
				n += float64(x) * float64(x)
			}
			if math.Abs(math.Sqrt(n)-1) > 1e-5 {
				t.Errorf("dims %d, %q: norm %v", dims, sample[i], math.Sqrt(n))
			}
		}
	}
}

func TestSharedWordsAreCloser(t *testing.T) {
	h := newHash(t, DefaultHashDims)
	tests := []struct{ a, b, unrelated string }{
		{"Foxtrot uses Postgres for billing", "the billing database of Foxtrot is Postgres", "Alice likes green tea in the morning"},
		{"deploy the service nightly", "nightly deploy failed", "my cat sleeps on the sofa"},
		{"HYATLAS_SYNC_EXTRACT", "sync extract setting", "quarterly revenue report"},
	}
	for _, tt := range tests {
		v := embedTexts(t, h, tt.a, tt.b, tt.unrelated)
		related, unrelated := cosine(v[0], v[1]), cosine(v[0], v[2])
		if related <= unrelated {
			t.Errorf("%q: cos(%q) = %.3f not above cos(%q) = %.3f", tt.a, tt.b, related, tt.unrelated, unrelated)
		}
		if related < 0.25 { // the embedder's own MinScore
			t.Errorf("%q vs %q: cosine %.3f below MinScore", tt.a, tt.b, related)
		}
	}
}

func TestCaseAndPunctuationInsensitive(t *testing.T) {
	h := newHash(t, DefaultHashDims)
	pairs := [][2]string{
		{"Foxtrot, uses POSTGRES!", "foxtrot uses postgres"},
		{"  Dark-Mode; editor?? ", "dark mode editor"},
		{"The Foxtrot uses postgres", "foxtrot uses postgres"}, // stop word
		{"postgres postgres foxtrot", "foxtrot postgres"},      // each word once
	}
	for _, p := range pairs {
		v := embedTexts(t, h, p[0], p[1])
		if !equal(v[0], v[1]) {
			t.Errorf("%q and %q embed differently (cos %.4f)", p[0], p[1], cosine(v[0], v[1]))
		}
	}
}

func TestNoWords(t *testing.T) {
	h := newHash(t, DefaultHashDims)
	empty := []string{"", "?!", "the of and", "a", "  \n\t", "I am"}
	normal := []string{"foxtrot uses postgres", "Alice prefers dark mode", "x y z words", "nightly deploy"}
	ev := embedTexts(t, h, empty...)
	nv := embedTexts(t, h, normal...)
	for i, e := range ev {
		if !equal(e, ev[0]) {
			t.Errorf("%q and %q embed differently; every wordless text should share one vector", empty[i], empty[0])
		}
		for j, n := range nv {
			c := cosine(e, n)
			if math.IsNaN(c) || c >= 0.1 {
				t.Errorf("cos(%q, %q) = %v, want < 0.1", empty[i], normal[j], c)
			}
		}
	}
}

func TestEmbedEmptyBatch(t *testing.T) {
	vs, err := newHash(t, 8).Embed(context.Background(), nil, memory.PurposeDocument)
	if err != nil || len(vs) != 0 {
		t.Errorf("Embed(nil) = %v, %v", vs, err)
	}
}

func TestCancelledContext(t *testing.T) {
	h := newHash(t, DefaultHashDims)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, texts := range [][]string{nil, {"foxtrot"}, sample} {
		vs, err := h.Embed(ctx, texts, memory.PurposeQuery)
		if !errors.Is(err, context.Canceled) || vs != nil {
			t.Errorf("%d texts: Embed = %v, %v; want nil, context.Canceled", len(texts), vs, err)
		}
	}
}
