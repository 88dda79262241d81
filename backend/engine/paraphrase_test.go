package engine

import (
	"context"
	"testing"

	"hyatlas/backend/config"
	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
)

// TestGloVe_HybridFindsParaphrasesKeywordMisses: with the default model,
// a query that shares no word with the memory it means finds it through
// the vector leg, where keyword search finds nothing, once the caller
// accepts GloVe's cosines as evidence (min_score 0.6). With the default
// gate it finds nothing: GloVe scores off-topic questions as high as
// paraphrases, so a match with no word in common must be near-perfect
// to count (see the README's relevance gate).
func TestGloVe_HybridFindsParaphrasesKeywordMisses(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	cfg.Embed = config.EmbedConfig{Choice: config.EmbedGloVe, ORTLib: proctest.ORTLib()}
	e, err := Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !e.Memory.EmbedderInfo().Semantic {
		t.Fatalf("embedder %+v", e.Memory.EmbedderInfo())
	}
	memories := []string{
		"The kitten slept on the rug all afternoon",
		"Our quarterly budget review is on Thursday",
		"I renewed my passport for the trip to Japan",
		"The desk was moved into the study",
		"Grandma makes the best apple pie",
	}
	ids := map[string]string{}
	for _, text := range memories {
		res, err := e.Memory.Add(ctx, memory.AddInput{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		ids[text] = res.Memory.ID
	}
	tests := []struct{ query, want string }{
		{"cat resting on a carpet", "The kitten slept on the rug all afternoon"},
		{"travel documents for a holiday abroad", "I renewed my passport for the trip to Japan"},
		{"grandmother baking dessert", "Grandma makes the best apple pie"},
	}
	for _, tt := range tests {
		kw, err := e.Memory.Search(ctx, memory.SearchInput{Query: tt.query, Reader: "keyword"})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range kw.Hits {
			if h.Memory.ID == ids[tt.want] {
				t.Fatalf("%q: keyword search already finds it; pick a query without shared words", tt.query)
			}
		}
		if res, err := e.Memory.Search(ctx, memory.SearchInput{Query: tt.query}); err != nil || len(res.Hits) != 0 {
			t.Errorf("%q with the default gate: %d hits, %v; want none (GloVe cannot vouch for it)", tt.query, len(res.Hits), err)
		}
		floor := 0.6
		res, err := e.Memory.Search(ctx, memory.SearchInput{Query: tt.query, MinScore: &floor})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].Memory.ID != ids[tt.want] {
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.Memory.Content)
			}
			t.Errorf("%q: hybrid search gave %q, want %q first", tt.query, got, tt.want)
		}
	}
}
