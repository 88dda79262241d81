package memory_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestSearch_FindsByKeywordAndVector(t *testing.T) {
	r := newRig(t, memory.Config{})
	pg := r.add(t, "Foxtrot uses Postgres 16 as its database", "u1")
	cfg := r.add(t, "set HYATLAS_SYNC_EXTRACT=on to make writes wait", "u1")
	r.add(t, "the weather in Lisbon was sunny", "u1")

	if ids := r.search(t, memory.SearchInput{Query: "HYATLAS_SYNC_EXTRACT", UserIDs: []string{"u1"}}); len(ids) == 0 || ids[0] != cfg.ID {
		t.Errorf("identifier query: got %v, want %s first", ids, cfg.ID)
	}
	// Stemming: "databases" matches "database".
	if ids := r.search(t, memory.SearchInput{Query: "databases", Reader: "keyword"}); !contains(ids, pg.ID) {
		t.Errorf("stemmed keyword query missed the fact: %v", ids)
	}
	// The vector leg alone finds it by shared words.
	if ids := r.search(t, memory.SearchInput{Query: "Foxtrot postgres", Reader: "vector", MinScore: f64(0.3)}); len(ids) == 0 || ids[0] != pg.ID {
		t.Errorf("vector query: got %v", ids)
	}
}

func TestSearch_Explains(t *testing.T) {
	r := newRig(t, memory.Config{})
	m := r.add(t, "Foxtrot uses Postgres 16", "u1")
	res, err := r.svc.Search(context.Background(), memory.SearchInput{Query: "Foxtrot Postgres", MinScore: f64(0.1)})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("hits %v err %v", res.Hits, err)
	}
	w := res.Hits[0].Why
	if res.Hits[0].Memory.ID != m.ID || w.VectorRank != 1 || w.KeywordRank != 1 || w.Vector <= 0 || w.Keyword <= 0 {
		t.Errorf("why = %+v", w)
	}
	// The best keyword match counts 1, the cosine 0.5 × (cos − floor)/(1 −
	// floor) (the hash embedder's floor is 0.25); the session part lends
	// 0.6 × the best base of its conversation (here its own); strength 0.5
	// multiplies by 1.
	base := 1 + 0.5*(w.Vector-0.25)/0.75
	if want := base + w.Session; w.Session != 0.6*base || w.Strength != 1 || w.Fused < want-1e-9 || w.Fused > want+1e-9 {
		t.Errorf("why = %+v, want fused %v", w, want)
	}
	if res.Hits[0].Score != w.Vector {
		t.Errorf("score %v is not the cosine %v", res.Hits[0].Score, w.Vector)
	}
	if res.Timings["vector"] <= 0 || res.Timings["keyword"] <= 0 {
		t.Errorf("stage timings missing: %v", res.Timings)
	}
}

// TestSearch_WhyNamesTheBetterHitANearDuplicateRepeats: a near duplicate's
// score is halved, and its why says so: duplicate_of names the better
// memory it repeats and demotion the factor, so the parts still give the
// fused score ((legs + boosts) × strength × demotion).
func TestSearch_WhyNamesTheBetterHitANearDuplicateRepeats(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Foxtrot uses Postgres 16 for the billing database"})
	r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Foxtrot uses Postgres 16 for the billing database now"})
	res := searchRes(t, r, memory.SearchInput{Query: "Foxtrot Postgres billing database", MinScore: f64(0)})
	if len(res.Hits) != 2 {
		t.Fatalf("hits %v, want both", ids(res))
	}
	best := math.Max(res.Hits[0].Why.Keyword, res.Hits[1].Why.Keyword)
	for _, h := range res.Hits {
		w := h.Why
		base := w.Keyword/best + 0.5*math.Max(0, (w.Vector-0.25)/0.75) // the hash embedder's floor is 0.25
		factor := 1.0
		if w.Demotion != 0 {
			factor = w.Demotion
		}
		want := (base + w.Session + w.Speaker + w.Date + w.Entity + w.Graph + w.Recency + w.Usage + w.Intention) * w.Strength * factor
		if math.Abs(w.Fused-want) > 1e-6 {
			t.Errorf("%s: fused %.4f, its parts give %.4f; why %+v", h.Memory.ID, w.Fused, want, w)
		}
	}
	if w := res.Hits[0].Why; w.DuplicateOf != "" || w.Demotion != 0 {
		t.Errorf("the better hit is marked a duplicate: %+v", w)
	}
	if w := res.Hits[1].Why; w.DuplicateOf != res.Hits[0].Memory.ID || w.Demotion != 0.5 {
		t.Errorf("the near duplicate's why: duplicate_of %q demotion %v; want %s, 0.5", w.DuplicateOf, w.Demotion, res.Hits[0].Memory.ID)
	}
}

func TestSearch_FloorDropsWeakVectorHits(t *testing.T) {
	r := newRig(t, memory.Config{})
	r.add(t, "apples oranges pears bananas grapes melons", "u1")
	// One shared word out of six: a weak cosine.
	if ids := r.search(t, memory.SearchInput{Query: "apples cars trucks", Reader: "vector", MinScore: f64(0.9)}); len(ids) != 0 {
		t.Errorf("floor 0.9 kept %v", ids)
	}
	if ids := r.search(t, memory.SearchInput{Query: "apples cars trucks", Reader: "vector", MinScore: f64(0)}); len(ids) != 1 {
		t.Errorf("floor 0 (disabled) gave %v", ids)
	}
	if ids := r.search(t, memory.SearchInput{Query: "zebra giraffe", MinScore: f64(0.2)}); len(ids) != 0 {
		t.Errorf("an off-topic query returned %v", ids)
	}
}

func TestSearch_OwnerScope(t *testing.T) {
	aliases, _ := memory.ParseAliases("alice,alice-discord")
	r := newRig(t, memory.Config{Aliases: aliases})
	a1 := r.add(t, "alice likes green tea", "alice")
	a2 := r.add(t, "alice-discord likes green tea too", "alice-discord")
	b := r.add(t, "bob likes green tea", "bob")
	ctx := context.Background()
	hermes, err := r.svc.Add(ctx, memory.AddInput{Text: "green tea agent note", Owner: memory.Owner{UserID: "bob", AgentID: "hermes"}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := r.svc.Add(ctx, memory.AddInput{Text: "green tea note of another agent", Owner: memory.Owner{UserID: "bob", AgentID: "claude"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		in    memory.SearchInput
		want  []string
		never []string
	}{
		{"alias group", memory.SearchInput{UserIDs: []string{"alice"}}, []string{a1.ID, a2.ID}, []string{b.ID, hermes.Memory.ID}},
		{"other user", memory.SearchInput{UserIDs: []string{"bob"}}, []string{b.ID, hermes.Memory.ID, other.Memory.ID}, []string{a1.ID, a2.ID}},
		// An agent recalls its own rows and what the person wrote with no
		// agent, never another agent's.
		{"agent filter", memory.SearchInput{UserIDs: []string{"bob"}, AgentID: "hermes"}, []string{hermes.Memory.ID, b.ID}, []string{other.Memory.ID, a1.ID}},
		{"an agent with no rows", memory.SearchInput{UserIDs: []string{"bob"}, AgentID: "new"}, []string{b.ID}, []string{hermes.Memory.ID, other.Memory.ID}},
		{"everyone", memory.SearchInput{}, []string{a1.ID, a2.ID, b.ID, hermes.Memory.ID}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Query, tt.in.Limit, tt.in.MinScore = "green tea", 10, f64(0.1)
			ids := r.search(t, tt.in)
			for _, id := range tt.want {
				if !contains(ids, id) {
					t.Errorf("missing %s in %v", id, ids)
				}
			}
			for _, id := range tt.never {
				if contains(ids, id) {
					t.Errorf("%s leaked into %v", id, ids)
				}
			}
		})
	}
}

func TestSearch_ChannelsAndDuplicates(t *testing.T) {
	r := newRig(t, memory.Config{})
	fact := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Prefers dark roast coffee"})
	profile := r.put(t, memory.Memory{Layer: memory.LayerProfile, Content: "prefers  DARK roast coffee"})
	page := r.put(t, memory.Memory{Layer: memory.LayerEntity, Content: "Coffee: dark roast, from Lisbon roaster"})
	goal := r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "buy dark roast coffee beans"})
	exp := r.put(t, memory.Memory{Layer: memory.LayerFact, Category: memory.CategoryExperience, Content: "grinding coffee finer fixed the sour dark roast"})
	res, err := r.svc.Search(context.Background(), memory.SearchInput{Query: "dark roast coffee", Limit: 10, MinScore: f64(0.1)})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]memory.Channel{}
	for ch, hits := range res.Channels {
		for _, h := range hits {
			byID[h.Memory.ID] = ch
		}
	}
	if _, ok := byID[fact.ID]; ok {
		t.Errorf("the fact mirrored by a profile row was not folded: %v", byID)
	}
	want := map[string]memory.Channel{profile.ID: memory.ChannelProfile, page.ID: memory.ChannelPages,
		goal.ID: memory.ChannelProactive, exp.ID: memory.ChannelExperiences}
	for id, ch := range want {
		if byID[id] != ch {
			t.Errorf("%s in channel %q, want %q", id, byID[id], ch)
		}
	}
}

func TestSearch_LimitAndValidation(t *testing.T) {
	r := newRig(t, memory.Config{})
	for i := range 12 {
		r.add(t, fmt.Sprintf("kiwi fruit note number %d", i), "u1")
	}
	if ids := r.search(t, memory.SearchInput{Query: "kiwi"}); len(ids) != memory.DefaultSearchLimit {
		t.Errorf("default limit gave %d hits", len(ids))
	}
	if ids := r.search(t, memory.SearchInput{Query: "kiwi", Limit: 10}); len(ids) != 10 {
		t.Errorf("limit 10 gave %d hits", len(ids))
	}
	bad := []struct {
		in   memory.SearchInput
		code memory.Code
	}{
		{memory.SearchInput{Query: ""}, memory.EBADREQUEST},
		{memory.SearchInput{Query: "kiwi", Limit: -1}, memory.EINVALID},
		{memory.SearchInput{Query: "kiwi", Limit: 1_000_000}, memory.EINVALID},
		{memory.SearchInput{Query: "kiwi", Layer: "l9"}, memory.EINVALID},
		{memory.SearchInput{Query: "kiwi", MinScore: f64(-0.5)}, memory.EINVALID},
		{memory.SearchInput{Query: "kiwi", MinScore: f64(1.5)}, memory.EINVALID},
	}
	for _, b := range bad {
		if _, err := r.svc.Search(context.Background(), b.in); memory.ErrorCode(err) != b.code {
			t.Errorf("%+v: err %v, want %s", b.in, err, b.code)
		}
	}
}

func TestSearch_SkipsRetiredAndCountsSearches(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	m := r.add(t, "the parking spot is B12", "u1")
	if _, err := r.svc.Retire(ctx, m.ID, memory.RetireInput{Reason: "moved"}); err != nil {
		t.Fatal(err)
	}
	if ids := r.search(t, memory.SearchInput{Query: "parking spot"}); len(ids) != 0 {
		t.Errorf("a retired row was recalled: %v", ids)
	}
	if _, err := r.svc.Restore(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if ids := r.search(t, memory.SearchInput{Query: "parking spot", Reader: "vector", MinScore: f64(0.5)}); !contains(ids, m.ID) {
		t.Errorf("a restored row is not recalled by vector: %v", ids)
	}
	if err := r.svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	st, _ := r.store.Stats(ctx)
	if st.Searches != 2 {
		t.Errorf("searches counter = %d, want 2 after flush", st.Searches)
	}
}
