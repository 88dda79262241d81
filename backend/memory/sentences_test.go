package memory

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSentencesOf(t *testing.T) {
	long := "Foxtrot is the billing service and runs on Postgres 16 in the Frankfurt region. " +
		"Its on-call rotation is owned by the payments team. Deploys go out every Tuesday morning!"
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"short text", "Foxtrot uses Postgres. Deploys on Tuesday.", nil},
		{"three sentences", long, []string{
			"Foxtrot is the billing service and runs on Postgres 16 in the Frankfurt region.",
			"Its on-call rotation is owned by the payments team.",
			"Deploys go out every Tuesday morning!"}},
		{"abbreviations and versions stay whole",
			"We compared several tools, e.g. ripgrep and ag, and chose ripgrep v14.1 for the monorepo search. " +
				"The config lives in the repository root under tools/search with its own README file.",
			[]string{"We compared several tools, e.g. ripgrep and ag, and chose ripgrep v14.1 for the monorepo search.",
				"The config lives in the repository root under tools/search with its own README file."}},
		{"line breaks split, short pieces dropped",
			"Meeting notes from the quarterly architecture review held on Monday\nOk.\n" +
				"Decision: the event bus moves to NATS JetStream before the March release of the billing platform",
			[]string{"Meeting notes from the quarterly architecture review held on Monday",
				"Decision: the event bus moves to NATS JetStream before the March release of the billing platform"}},
		{"one sentence only", strings.Repeat("word ", 40), nil},
		{"capped", strings.Repeat("This is one more sentence here. ", 12), slices.Repeat([]string{"This is one more sentence here."}, maxSentenceParts)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := sentencesOf(tc.text); !slices.Equal(got, tc.want) {
				t.Fatalf("sentencesOf = %q\nwant %q", got, tc.want)
			}
		})
	}
}

// scriptedEmbedder returns a vector per text from a function of the text.
type scriptedEmbedder struct {
	dims  int
	calls [][]string
	vec   func(text string) []float32
	err   error
}

func (e *scriptedEmbedder) Info() EmbedderInfo { return EmbedderInfo{ID: "scripted", Dims: e.dims} }
func (e *scriptedEmbedder) Embed(_ context.Context, texts []string, _ EmbedPurpose) ([][]float32, error) {
	e.calls = append(e.calls, texts)
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vec(t)
	}
	return out, nil
}

func TestEmbedDocuments(t *testing.T) {
	long := "The staging cluster runs in Frankfurt on three nodes. Its database is Postgres 16 with nightly backups."
	long += " " + long
	byLen := func(s string) []float32 { return []float32{float32(len(s)), 1} }
	e := &scriptedEmbedder{dims: 2, vec: byLen}
	vs, err := embedDocuments(context.Background(), e, []string{"short one", long, "short two"})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.calls) != 1 {
		t.Fatalf("%d calls to the embedder, want one batch", len(e.calls))
	}
	sentences := sentencesOf(long)
	if len(vs) != 3 || vs[0].Parts != nil || vs[2].Parts != nil || len(vs[1].Parts) != len(sentences) {
		t.Fatalf("vectors %+v", vs)
	}
	for i, s := range sentences {
		if !slices.Equal(vs[1].Parts[i], byLen(s)) {
			t.Fatalf("part %d = %v, want the vector of %q", i, vs[1].Parts[i], s)
		}
	}
	if !slices.Equal(vs[2].Values, byLen("short two")) || vs[1].Embedder != "scripted" {
		t.Fatalf("texts and vectors out of step: %+v", vs)
	}
	for name, bad := range map[string]*scriptedEmbedder{
		"failing":   {dims: 2, vec: byLen, err: errors.New("down")},
		"malformed": {dims: 2, vec: func(s string) []float32 { return []float32{1} }},
		"zero part": {dims: 2, vec: func(s string) []float32 {
			if s == sentences[1] {
				return []float32{0, 0}
			}
			return byLen(s)
		}},
	} {
		if _, err := embedDocuments(context.Background(), bad, []string{long}); err == nil {
			t.Errorf("%s embedder: no error", name)
		}
	}
}
