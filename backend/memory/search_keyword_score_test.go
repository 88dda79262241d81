package memory_test

import (
	"math"
	"testing"

	"hyatlas/backend/memory"
)

// TestSearch_KeywordHitsReportTheirCosine: a keyword-only search ranks by
// keywords but reports each hit's score as the cosine between the query
// and the memory, as the public contract does for every reader (it was 0).
func TestSearch_KeywordHitsReportTheirCosine(t *testing.T) {
	r := newRig(t, memory.Config{})
	m := r.add(t, "Foxtrot billing migrates to Postgres 16", "u1")
	kw := searchRes(t, r, memory.SearchInput{Query: "Foxtrot Postgres", Reader: "keyword", MinScore: f64(0)})
	vec := searchRes(t, r, memory.SearchInput{Query: "Foxtrot Postgres", Reader: "vector", MinScore: f64(0)})
	if len(kw.Hits) != 1 || len(vec.Hits) != 1 || kw.Hits[0].Memory.ID != m.ID {
		t.Fatalf("hits: keyword %d, vector %d", len(kw.Hits), len(vec.Hits))
	}
	if got, want := kw.Hits[0].Score, vec.Hits[0].Score; got <= 0 || math.Abs(got-want) > 1e-6 {
		t.Errorf("the keyword hit's score is %v, want its cosine %v", got, want)
	}
}
