package memory_test

// Owner isolation: one owner's data never reaches another owner's answers,
// and one owner's action never changes another owner's data.

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// With the alias group "amy,bea", a different person whose user id is
// "amy,bea" is consolidated apart: never in one call with amy, never
// merged with her.
func TestOwner_AnAliasGroupIsNotAUserNamedLikeIt(t *testing.T) {
	cfg := consolidateCfg()
	al, err := memory.ParseAliases("amy,bea")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Aliases = al
	r, c := newConsolidateRig(t, cfg)
	amy := r.fact(t, "Drinks green tea every morning", "amy", r.turn(t, "tea time", "amy"), time.Time{})
	other := r.fact(t, "Drinks green tea every morning", "amy,bea", r.turn(t, "tea time", "amy,bea"), time.Time{})
	c.set(reply(memory.ConsolidatePlan{Merges: []memory.PlannedMerge{{IDs: []string{amy.ID, other.ID},
		Text: "Drinks green tea every morning"}}}))
	r.consolidate(t)
	for _, req := range c.requests {
		var ids []string
		for _, f := range req.Facts {
			ids = append(ids, f.ID)
		}
		if slices.Contains(ids, amy.ID) && slices.Contains(ids, other.ID) {
			t.Errorf("one consolidation call holds the facts of user %q and of user %q (not aliases): %v", "amy", "amy,bea", ids)
		}
	}
	if got := r.get(t, other.ID); !got.Live() {
		t.Errorf("user %q's fact was retired (%s, by %s) by a merge in user %q's cluster", "amy,bea", got.RetiredHow, got.RetiredBy, "amy")
	}
	if got := r.get(t, amy.ID); !got.Live() {
		t.Errorf("user %q's fact was retired (%s) by a merge with user %q's fact", "amy", got.RetiredHow, "amy,bea")
	}
}

// TestOwner_ConsolidationIgnoresAnotherOwnersIDs: a reply for alice's cluster that
// names bob's facts (merge, drop, pattern evidence, relation evidence)
// must change nothing of bob's, and bob's facts must never be shown in
// alice's call.
func TestOwner_ConsolidationIgnoresAnotherOwnersIDs(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	f := r.aliceFacts(t)
	b1 := r.fact(t, "Bob works at Initech as a tester", "bob", r.turn(t, "I work at Initech", "bob"), date("2025-01-01"))
	b2 := r.fact(t, "Bob joined Initech in January 2025", "bob", r.turn(t, "Initech since January", "bob"), date("2025-01-01"))
	c.set(func(req memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		for _, x := range req.Facts {
			if x.ID == b1.ID || x.ID == b2.ID {
				return memory.ConsolidatePlan{}, nil // bob's own call: nothing
			}
		}
		return memory.ConsolidatePlan{
			Merges:  []memory.PlannedMerge{{IDs: []string{f.job1.ID, b1.ID}, Text: "works at Globex"}},
			Drops:   []memory.PlannedDrop{{ID: b2.ID, Reason: "noise"}},
			Schemas: []memory.PlannedSchema{{Text: "Works in offices", Evidence: []string{f.job1.ID, b1.ID, b2.ID}}},
			Edges: []memory.PlannedEdge{{From: "Alice", To: "Initech", Relation: "works at",
				Evidence: []string{f.job1.ID, b1.ID, b2.ID}}},
		}, nil
	})
	r.consolidate(t)
	for _, req := range c.requests {
		var hasA, hasB bool
		for _, x := range req.Facts {
			hasA = hasA || x.ID == f.job1.ID
			hasB = hasB || x.ID == b1.ID || x.ID == b2.ID
		}
		if hasA && hasB {
			t.Errorf("alice's and bob's facts in one call")
		}
	}
	for _, id := range []string{b1.ID, b2.ID} {
		if m := r.get(t, id); !m.Live() {
			t.Errorf("bob's fact %s retired by a consolidation reply: %s", id, m.RetiredHow)
		}
	}
	view, err := r.svc.GraphAsOf(context.Background(), memory.GraphQuery{UserID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range view.Edges {
		for _, id := range e.Facts {
			if id == b1.ID || id == b2.ID {
				t.Errorf("alice's relation %s cites bob's fact %s", e.ID, id)
			}
		}
	}
	for _, m := range r.live(t, memory.LayerSchema, "alice") {
		for _, id := range m.SourceIDs {
			if id == b1.ID || id == b2.ID {
				t.Errorf("alice's pattern cites bob's fact %s", id)
			}
		}
	}
}

// TestOwner_ExtractionIgnoresAnotherOwnersIDs: an extraction reply for bob's turn
// that names alice's fact and intention ids, and alice's entity page by
// name, must not change alice's rows, nor be shown alice's rows.
func TestOwner_ExtractionIgnoresAnotherOwnersIDs(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	ctx := context.Background()
	aFact := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice lives in Lisbon near the river", Owner: memory.Owner{UserID: "alice"}})
	aGoal := r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "Alice will move to Porto in spring", Owner: memory.Owner{UserID: "alice"}, Category: memory.CategoryGoal})
	x.set(plan(memory.ExtractPlan{Entities: []memory.EntityPage{{Name: "Lisbon", Kind: "place", Summary: "Alice's city", State: map[string]string{"resident": "alice"}}}}))
	r.write(t, "Alice says Lisbon is home, near the river", "alice")
	aPages := r.live(t, memory.LayerEntity, "alice")
	if len(aPages) != 1 {
		t.Fatalf("alice's pages: %d", len(aPages))
	}
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		for _, f := range req.RelatedFacts {
			if f.ID == aFact.ID {
				t.Errorf("bob's extraction was shown alice's fact")
			}
		}
		for _, in := range req.OpenIntentions {
			if in.ID == aGoal.ID {
				t.Errorf("bob's extraction was shown alice's intention")
			}
		}
		for _, e := range req.Entities {
			if e.ID == aPages[0].ID {
				t.Errorf("bob's extraction was shown alice's page")
			}
		}
		return memory.ExtractPlan{
			Facts: []memory.PlannedFact{{Text: "Bob lives in Lisbon near the river", Label: memory.LabelProjectState,
				Replaces: []string{aFact.ID}, Updates: aFact.ID}},
			IntentionsDone: []string{aGoal.ID},
			Entities:       []memory.EntityPage{{Name: "Lisbon", Kind: "place", Summary: "Bob's city", State: map[string]string{"resident": "bob"}}},
		}, nil
	})
	r.write(t, "Bob says he lives in Lisbon near the river", "bob")
	if m := r.get(t, aFact.ID); !m.Live() {
		t.Errorf("alice's fact retired by bob's extraction: %s by %s", m.RetiredHow, m.RetiredBy)
	}
	if m := r.get(t, aGoal.ID); !m.Live() {
		t.Errorf("alice's intention closed by bob's extraction: %s", m.RetiredHow)
	}
	if m := r.get(t, aPages[0].ID); m.Content != aPages[0].Content || !m.Live() {
		t.Errorf("alice's entity page changed by bob's extraction:\n%s\n->\n%s", aPages[0].Content, m.Content)
	}
	if n := len(r.live(t, memory.LayerEntity, "bob")); n != 1 {
		t.Errorf("bob has %d pages, want his own one", n)
	}
	_ = ctx
}

// One user's facts written through two agents are not merged into one
// row: a read scoped to either agent keeps its fact.
func TestOwner_NoMergeAcrossAgents(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	work := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Drinks green tea every morning",
		Owner: memory.Owner{UserID: "alice", AgentID: "work"}, SourceIDs: []string{r.turn(t, "tea", "alice").ID}})
	home := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Drinks green tea every morning",
		Owner: memory.Owner{UserID: "alice", AgentID: "home"}, SourceIDs: []string{r.turn(t, "tea!", "alice").ID}})
	c.set(reply(memory.ConsolidatePlan{Merges: []memory.PlannedMerge{{IDs: []string{work.ID, home.ID}, Text: "Drinks green tea every morning"}}}))
	r.consolidate(t)
	res, err := r.svc.List(context.Background(), memory.ListInput{UserID: "alice", AgentID: "home", Layer: "l3_fact"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total == 0 {
		h := r.get(t, home.ID)
		by := r.get(t, h.RetiredBy)
		t.Errorf("agent home's fact was merged into a fact of agent %q; agent home has no fact left", by.Owner.AgentID)
	}
}

// Compaction counts the facts of the alias group "amy,bea" and of the
// user "amy,bea" apart.
func TestOwner_CompactionKeepsAUserNamedLikeAnAliasGroupApart(t *testing.T) {
	cfg := consolidateCfg()
	al, err := memory.ParseAliases("amy,bea")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Aliases, cfg.CompactThreshold = al, 1
	r, _ := newConsolidateRig(t, cfg)
	r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Amy plays chess", Owner: memory.Owner{UserID: "amy"}, Strength: 0.9})
	other := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Likes sailing", Owner: memory.Owner{UserID: "amy,bea"}, Strength: 0.3})
	n, err := r.svc.Compact(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m := r.get(t, other.ID); !m.Live() {
		t.Errorf("user \"amy,bea\" has one fact (threshold 1) yet it was retired as %s (%d compacted)", m.RetiredHow, n)
	}
}

// What the person wrote themselves (no agent: the Atlas, the CLI) is every
// one of their agents' to recall, in search and in the prompt block; what
// an agent wrote stays that agent's, and so does what consolidation
// derived from the facts of all of them. Listing, forgetting and deleting for
// an agent keep to that agent's own rows.
func TestOwner_AnAgentRecallsThePersonsOwnRowsAndActsOnlyOnItsOwn(t *testing.T) {
	r := newRig(t, memory.Config{Strength: memory.DefaultStrengthConfig()})
	ctx := context.Background()
	strong := 0.9
	remember := func(text, agent string) memory.Memory {
		m, err := r.svc.Remember(ctx, memory.RememberInput{Content: text, Layer: "l1_profile", Strength: &strong,
			Owner: memory.Owner{UserID: "bob", AgentID: agent}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	own := remember("Bob wrote a note about peanuts: he is allergic", "")
	hermes := remember("Bob asked Hermes about peanuts", "hermes")
	other := remember("Bob told Claude about peanuts", "claude")
	// What consolidation derived from the person's facts of every agent
	// has no agent too, but is not the person's own writing.
	derived := r.put(t, memory.Memory{Layer: memory.LayerSchema, Content: "Bob keeps away from peanuts", Strength: strong,
		Source: memory.SourceConsolidation, Owner: memory.Owner{UserID: "bob"}})

	found := r.search(t, memory.SearchInput{Query: "peanuts", UserIDs: []string{"bob"}, AgentID: "hermes", Limit: 10, MinScore: f64(0)})
	block, err := r.svc.Prompt(ctx, memory.PromptInput{UserID: "bob", AgentID: "hermes"})
	if err != nil {
		t.Fatal(err)
	}
	var inBlock []string
	for _, m := range block.Memories {
		inBlock = append(inBlock, m.ID)
	}
	list, err := r.svc.List(ctx, memory.ListInput{UserID: "bob", AgentID: "hermes", Layer: "l1_profile"})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range list.Memories {
		listed = append(listed, m.ID)
	}
	tests := []struct {
		name        string
		got         []string
		want, never []string
	}{
		{"search", found, []string{own.ID, hermes.ID}, []string{other.ID, derived.ID}},
		{"prompt block", inBlock, []string{own.ID, hermes.ID}, []string{other.ID, derived.ID}},
		{"list", listed, []string{hermes.ID}, []string{own.ID, other.ID}},
	}
	for _, tc := range tests {
		for _, id := range tc.want {
			if !slices.Contains(tc.got, id) {
				t.Errorf("%s for hermes lacks %s: %v", tc.name, id, tc.got)
			}
		}
		for _, id := range tc.never {
			if slices.Contains(tc.got, id) {
				t.Errorf("%s for hermes holds %s: %v", tc.name, id, tc.got)
			}
		}
	}

	// The agent forgets what is "about peanuts": only its own row goes.
	if _, err := r.svc.Forget(ctx, memory.ForgetInput{Text: "about peanuts", Contains: true, UserID: "bob", AgentID: "hermes"}); err != nil {
		t.Fatal(err)
	}
	if !r.get(t, own.ID).Live() || !r.get(t, other.ID).Live() || r.get(t, hermes.ID).Live() {
		t.Errorf("forget for hermes: own live %v, claude's live %v, hermes's live %v (want true, true, false)",
			r.get(t, own.ID).Live(), r.get(t, other.ID).Live(), r.get(t, hermes.ID).Live())
	}
}

// The person's own Now page (no agent) is built from their own rows only:
// an agent that recalls it (shared as the person's) never sees through it
// what another agent was told.
func TestOwner_ThePersonsNowPageHoldsNoAgentsMemories(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		if strings.Contains(req.Text, "PIN") {
			return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Bob's bank PIN is 4711", Label: "project_state"}}}, nil
		}
		return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Bob plans a trip to Lisbon", Label: "project_state"}}}, nil
	})
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		return string(req.Kind) + " page: " + strings.Join(req.Texts, " | "), nil
	}
	ctx := context.Background()
	if _, err := r.svc.Add(ctx, memory.AddInput{Text: "my bank PIN is 4711, keep it", Owner: memory.Owner{UserID: "bob", AgentID: "claude"}}); err != nil {
		t.Fatal(err)
	}
	// Bob himself notes something in the Atlas (no agent).
	if _, err := r.svc.Add(ctx, memory.AddInput{Text: "planning a trip to Lisbon", Owner: memory.Owner{UserID: "bob"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Housekeep(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := r.svc.Search(ctx, memory.SearchInput{Query: "what is Bob doing", UserIDs: []string{"bob"}, AgentID: "hermes", MinScore: f64(0)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Now != nil && strings.Contains(got.Now.Content, "4711") {
		t.Errorf("Hermes's search shows a Now page (owner %+v) holding what Bob told Claude: %q", got.Now.Owner, got.Now.Content)
	}
	for _, h := range got.Hits {
		if strings.Contains(h.Memory.Content, "4711") {
			t.Errorf("Hermes's search holds Claude's memory through %s row %s (owner %+v): %q", h.Memory.Layer, h.Memory.ID, h.Memory.Owner, h.Memory.Content)
		}
	}
	block, err := r.svc.Prompt(ctx, memory.PromptInput{UserID: "bob", AgentID: "hermes"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range block.Memories {
		if strings.Contains(m.Content, "4711") {
			t.Errorf("Hermes's prompt block holds Claude's memory through %s row (owner %+v): %q", m.Layer, m.Owner, m.Content)
		}
	}
}
