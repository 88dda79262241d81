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
// the vector leg, where keyword search finds nothing.
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
		res, err := e.Memory.Search(ctx, memory.SearchInput{Query: tt.query})
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
