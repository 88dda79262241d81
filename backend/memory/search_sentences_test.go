package memory_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/vector"
)

// A long memory is found by one of its sentences: its vector score is that
// sentence's cosine, not the diluted cosine of the whole text, and the
// sentence vectors survive a restart (the index rebuilt from the store).
func TestSearch_LongTextFoundBySentence(t *testing.T) {
	r := newRig(t, memory.Config{})
	long := r.add(t, "Notes from the planning meeting about the new office. The team agreed on standing desks for everyone. "+
		"Lunch will be catered on Fridays by the Lebanese place downstairs. Parking permits are handed out by reception.", "u1")
	r.add(t, "Parking near the station costs twelve euros a day", "u1")
	query := "who hands out parking permits"
	in := memory.SearchInput{Query: query, Reader: string(memory.ReaderVector), MinScore: f64(0)}

	emb, _ := embed.NewHash(64)
	vs, _ := emb.Embed(context.Background(), []string{query, long.Content, "Parking permits are handed out by reception."}, memory.PurposeQuery)
	cos := func(a, b []float32) float64 {
		var s float64
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	whole, sentence := cos(vs[0], vs[1]), cos(vs[0], vs[2])
	if sentence <= whole {
		t.Fatalf("fixture: the sentence (%.3f) must match better than the whole text (%.3f)", sentence, whole)
	}
	check := func(label string, res memory.SearchResult) {
		t.Helper()
		if len(res.Hits) == 0 || res.Hits[0].Memory.ID != long.ID {
			t.Fatalf("%s: hits %v, want the long memory first", label, ids(res))
		}
		if got := res.Hits[0].Why.Vector; math.Abs(got-sentence) > 0.01 {
			t.Fatalf("%s: vector score %.3f, want the sentence's %.3f (whole text %.3f)", label, got, sentence, whole)
		}
	}
	check("after the write", searchRes(t, r, in))

	rebuilt := vector.New(64)
	if err := r.store.ScanVectors(context.Background(), emb.Info().ID, func(e memory.IndexEntry) error {
		e.Values = slices.Clone(e.Values)
		return rebuilt.Upsert(e)
	}); err != nil {
		t.Fatal(err)
	}
	hits, err := rebuilt.Search(context.Background(), vs[0], 1, memory.VectorFilter{})
	if err != nil || len(hits) != 1 || hits[0].ID != long.ID || math.Abs(hits[0].Score-sentence) > 0.01 {
		t.Fatalf("rebuilt index: hits %v, err %v; want %s at %.3f", hits, err, long.ID, sentence)
	}
	if rebuilt.Len() != 2 {
		t.Fatalf("rebuilt index holds %d rows, want 2", rebuilt.Len())
	}
}
