package memory_test

import (
	"testing"

	"hyatlas/backend/memory"
)

// TestSearch_GraphLinksFollowTheRules: a graph link brings a memory in
// only within the asked layer, and lends relevance only from a match that
// is relevant itself, so an off-topic query stays unanswered when the
// nearest rows happen to be linked.
func TestSearch_GraphLinksFollowTheRules(t *testing.T) {
	g := &fakeGraph{}
	r := newRig(t, memory.Config{}, func(d *memory.Deps) { d.Graph = g })
	job := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Globex"})
	nuts := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice bought walnuts for the office"})
	turn := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "I started at Globex in March"})
	r.put(t, memory.Memory{Layer: memory.LayerEntity, Content: "Globex (organization): Alice's employer",
		Metadata: map[string]string{memory.MetaEntity: `{"name":"Globex","kind":"organization"}`}})
	offTopic := memory.SearchInput{Query: "recipe for banana bread with walnuts cinnamon and raisins", Limit: 10, MinScore: f64(0.9)}
	if res := searchRes(t, r, offTopic); res.Gated == "" {
		t.Fatalf("without links the off-topic query was answered: %v", hitTexts(res))
	}
	g.links = map[string][]string{job.ID: {nuts.ID, turn.ID}, nuts.ID: {job.ID, turn.ID}, turn.ID: {job.ID, nuts.ID}}
	if res := searchRes(t, r, offTopic); res.Gated == "" {
		t.Errorf("with the rows linked the off-topic query was answered: %v", hitTexts(res))
	}
	res := searchRes(t, r, memory.SearchInput{Query: "started Globex", Layer: "l2_raw", Limit: 10, MinScore: f64(0)})
	for _, h := range res.Hits {
		if h.Memory.Layer != memory.LayerRaw {
			t.Errorf("a search of l2_raw returned a %s row: %q (why %+v)", h.Memory.Layer, h.Memory.Content, h.Why)
		}
	}
	if len(res.Hits) != 1 || res.Hits[0].Memory.ID != turn.ID {
		t.Errorf("a search of l2_raw found %v, want the turn", hitTexts(res))
	}
	// A relevant match still lends its links relevance and a part.
	res = searchRes(t, r, memory.SearchInput{Query: "Globex", Limit: 10, MinScore: f64(0.9)})
	found := map[string]memory.Why{}
	for _, h := range res.Hits {
		found[h.Memory.ID] = h.Why
	}
	if w, ok := found[nuts.ID]; !ok || w.Graph <= 0 {
		t.Errorf("the row linked to a relevant match: %+v (found %v)", w, ok)
	}
}

func hitTexts(res memory.SearchResult) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, string(h.Memory.Layer)+": "+h.Memory.Content)
	}
	return out
}
