package memory_test

import (
	"context"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func searchRes(t *testing.T, r *rig, in memory.SearchInput) memory.SearchResult {
	t.Helper()
	res, err := r.svc.Search(context.Background(), in)
	if err != nil {
		t.Fatalf("search %q: %v", in.Query, err)
	}
	return res
}

func ids(res memory.SearchResult) []string {
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.Memory.ID
	}
	return out
}

func TestSearch_TrivialAndOffTopicReturnNothing(t *testing.T) {
	r := newRig(t, memory.Config{})
	r.add(t, "my cat Miso loves tuna and sleeps on the radiator", "u1")
	r.add(t, "the vet said Miso needs a dental cleaning in spring", "u1")
	for _, q := range []string{"ok", "Thanks!", "thank you", "/status", "/model\tgpt/4", "👍", "...", "sounds good"} {
		res := searchRes(t, r, memory.SearchInput{Query: q})
		if len(res.Hits) != 0 || res.Gated == "" {
			t.Errorf("%q: %d hits, gated %q; want none, gated", q, len(res.Hits), res.Gated)
		}
	}
	for _, q := range []string{"Which Kubernetes version deprecated the beta ingress API?", "What is the boiling point of ethanol?"} {
		if res := searchRes(t, r, memory.SearchInput{Query: q}); len(res.Hits) != 0 {
			t.Errorf("off-topic %q returned %v", q, ids(res))
		}
	}
	if res := searchRes(t, r, memory.SearchInput{Query: "what does Miso the cat eat"}); len(res.Hits) == 0 {
		t.Error("an on-topic question returned nothing")
	}
	if res := searchRes(t, r, memory.SearchInput{Query: "/miso/cat/food: what does Miso the cat eat"}); len(res.Hits) == 0 {
		t.Errorf("a question that starts with a path was taken for a slash command (gated %q)", res.Gated)
	}
}

// TestSearch_AQueryOfOnlyAcknowledgementWordsAsksNothing: a query whose
// every word is an acknowledgement, a greeting or filler ("great,
// thanks!", "got it", "good evening", "hmmm") is trivial, in any
// combination, even when a memory holds those words; one word that asks
// something ("thanks, where did the deploy get stuck?") makes it a query.
func TestSearch_AQueryOfOnlyAcknowledgementWordsAsksNothing(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	r.add(t, "Thanks, the Postgres migration worked great", "u1")
	r.add(t, "Good evening! The deploy got stuck again", "u1")
	for _, q := range []string{"great, thanks!", "got it, thanks", "thanks so much", "good evening", "hmmm", "ok great",
		"perfect, thank you", "no thanks", "Good morning!!", "ok, sounds good, go ahead", "yes please"} {
		res := searchRes(t, r, memory.SearchInput{Query: q})
		if len(res.Hits) != 0 || res.Gated != "the query is an acknowledgement" {
			t.Errorf("%q: %d hits, gate %q; want none, an acknowledgement", q, len(res.Hits), res.Gated)
		}
	}
	for _, q := range []string{"thanks, where did the deploy get stuck?", "good evening, did the Postgres migration work?",
		"evening deploy"} {
		if res := searchRes(t, r, memory.SearchInput{Query: q}); len(res.Hits) == 0 {
			t.Errorf("%q: no hit (gate %q), want the memory it asks about", q, res.Gated)
		}
	}
}

func TestKindOfAndIdentifiers(t *testing.T) {
	r := newRig(t, memory.Config{})
	code := r.add(t, "deploy failed: error E1234 in src/main.go", "u1")
	res := searchRes(t, r, memory.SearchInput{Query: "E1234", MinScore: f64(0)})
	if len(res.Hits) == 0 || res.Hits[0].Memory.ID != code.ID || res.Hits[0].Why.KeywordRank != 1 {
		t.Errorf("identifier query: %+v", res.Hits)
	}
}

// A conversation that holds a strong match lends its other turns part of
// that score: the answer sits next to the question's words.
func TestSearch_SessionPart(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	add := func(text, session string) memory.Memory {
		res, err := r.svc.Add(ctx, memory.AddInput{Text: text, Owner: memory.Owner{UserID: "u1"}, SessionID: session})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory
	}
	add("USER: where did I put the spare bike key", "s1")
	answer := add("ASSISTANT: in the blue drawer, with the bike pump", "s1")
	other := add("USER: the drawer in the kitchen is stuck", "s2")
	res := searchRes(t, r, memory.SearchInput{Query: "spare bike key drawer", Limit: 10, MinScore: f64(0)})
	pos := map[string]int{}
	for i, h := range res.Hits {
		pos[h.Memory.ID] = i
	}
	a, okA := pos[answer.ID]
	o, okO := pos[other.ID]
	if !okA || !okO || a > o {
		t.Fatalf("the answer (%d) should rank above the other session's turn (%d): %v", a, o, ids(res))
	}
	for _, h := range res.Hits {
		if h.Memory.ID == answer.ID && h.Why.Session <= 0 {
			t.Errorf("no session part: %+v", h.Why)
		}
	}
}

// A query naming a date finds what is dated then, even with no word in
// common, and prefers it among equal matches.
func TestSearch_DateWindow(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	day := func(d int) time.Time { return time.Date(2026, 11, 30+d, 12, 0, 0, 0, time.UTC) }
	old := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "deployed the billing service", EventAt: day(-10)})
	yest := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "deployed the billing service again", EventAt: day(-1)})
	lunch := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "lunch with Dana at the harbour", EventAt: day(-1)})
	res := searchRes(t, r, memory.SearchInput{Query: "what happened yesterday", Limit: 10})
	got := ids(res)
	if !contains(got, yest.ID) || !contains(got, lunch.ID) || contains(got, old.ID) {
		t.Errorf("date-only query: %v, want yesterday's two rows only", got)
	}
	res = searchRes(t, r, memory.SearchInput{Query: "billing deploy yesterday", Limit: 10, MinScore: f64(0)})
	if len(res.Hits) < 2 || res.Hits[0].Memory.ID != yest.ID || res.Hits[0].Why.Date <= 0 {
		t.Errorf("dated match first: %v %+v", ids(res), res.Hits)
	}
}

// A query naming an entity brings its page first and lends its mentions a
// part; a linked memory comes along through the graph.
func TestSearch_EntityAndGraph(t *testing.T) {
	g := &fakeGraph{}
	r := newRig(t, memory.Config{}, func(d *memory.Deps) { d.Graph = g })
	page := r.put(t, memory.Memory{Layer: memory.LayerEntity, Content: "Foxtrot (project): the billing service",
		Metadata: map[string]string{memory.MetaEntity: `{"name":"Foxtrot","kind":"project"}`}})
	fact := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Foxtrot moved its launch to Friday"})
	linked := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Dana owns the QA pass before any release"})
	g.links = map[string][]string{fact.ID: {linked.ID}}
	res := searchRes(t, r, memory.SearchInput{Query: "when is the Foxtrot launch", Limit: 10, MinScore: f64(0)})
	why := map[string]memory.Why{}
	for _, h := range res.Hits {
		why[h.Memory.ID] = h.Why
	}
	if why[page.ID].Entity <= 0 || why[fact.ID].Entity <= 0 {
		t.Errorf("entity parts: page %+v fact %+v", why[page.ID], why[fact.ID])
	}
	if w, ok := why[linked.ID]; !ok || w.Graph <= 0 {
		t.Errorf("the linked memory: %+v (found %v)", w, ok)
	}
}

type fakeGraph struct{ links map[string][]string }

func (g *fakeGraph) Neighbours(_ context.Context, ids []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, id := range ids {
		if l, ok := g.links[id]; ok {
			out[id] = l
		}
	}
	return out, nil
}

// Newer wins a close call with recency on; usage and strength lift a
// memory; each shows in why.
func TestSearch_RecencyUsageStrength(t *testing.T) {
	cfg := memory.Config{Search: memory.SearchConfig{Recency: true, UsageLearning: true}}
	r := newRig(t, cfg)
	older := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "the team standup moved to ten"})
	newer := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "the team standup moved to nine"})
	res := searchRes(t, r, memory.SearchInput{Query: "team standup moved", Limit: 2, MinScore: f64(0)})
	if len(res.Hits) != 2 || res.Hits[0].Memory.ID != newer.ID || res.Hits[0].Why.Recency <= res.Hits[1].Why.Recency {
		t.Fatalf("recency: %v %+v", ids(res), res.Hits)
	}
	for range 3 {
		if _, err := r.svc.Feedback(context.Background(), memory.FeedbackInput{Used: []string{older.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	res = searchRes(t, r, memory.SearchInput{Query: "team standup moved", Limit: 2, MinScore: f64(0)})
	if res.Hits[0].Memory.ID != older.ID || res.Hits[0].Why.Usage <= 0 {
		t.Errorf("usage: %v %+v", ids(res), res.Hits[0].Why)
	}
	strong := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "the team standup moved to eight", Strength: 1})
	res = searchRes(t, r, memory.SearchInput{Query: "team standup moved", Limit: 3, MinScore: f64(0)})
	if res.Hits[0].Memory.ID != strong.ID || res.Hits[0].Why.Strength != 1.25 {
		t.Errorf("strength: %v %+v", ids(res), res.Hits[0].Why)
	}
	if _, err := r.svc.Feedback(context.Background(), memory.FeedbackInput{Used: []string{"m-nope"}}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("feedback for an unknown id: %v", err)
	}
}

func TestSearch_IntentionsStayCurrent(t *testing.T) {
	cfg := memory.Config{Search: memory.SearchConfig{IntentionTTL: 7 * 24 * time.Hour}}
	r := newRig(t, cfg)
	now := r.clock.Now()
	mine := r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "renew the passport", SessionID: "s-mine"})
	theirs := r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "renew the passport photos", SessionID: "s-other"})
	overdue := r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "renew the passport form", DueAt: now.Add(-72 * time.Hour)})
	due := r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "renew the passport appointment", DueAt: now.Add(24 * time.Hour)})
	got := ids(searchRes(t, r, memory.SearchInput{Query: "renew passport", Limit: 10, MinScore: f64(0)}))
	if !contains(got, mine.ID) || !contains(got, theirs.ID) || !contains(got, due.ID) || contains(got, overdue.ID) {
		t.Errorf("today: %v, want every intention but the one three days overdue", got)
	}
	r.clock.mu.Lock()
	r.clock.now = r.clock.now.Add(8 * 24 * time.Hour) // the undated ones pass the TTL
	r.clock.mu.Unlock()
	res := searchRes(t, r, memory.SearchInput{Query: "renew passport", Limit: 10, MinScore: f64(0)})
	got = ids(res)
	if contains(got, mine.ID) || contains(got, theirs.ID) || contains(got, overdue.ID) || contains(got, due.ID) {
		// after 8 days: the undated pass the TTL, and both dated are over a day past due
		t.Errorf("stale intentions recalled: %v", got)
	}
	r2 := newRig(t, cfg)
	mine = r2.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "renew the passport", SessionID: "s-mine"})
	theirs = r2.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "renew the passport today", SessionID: "s-other"})
	res = searchRes(t, r2, memory.SearchInput{Query: "renew passport", Limit: 10, MinScore: f64(0), SessionID: "s-mine"})
	if len(res.Hits) != 2 || res.Hits[0].Memory.ID != mine.ID || res.Hits[0].Why.Intention <= 0 {
		t.Errorf("the caller's session first: %v", ids(res))
	}
}

// Near copies are demoted and MMR spreads the top; a hit lists what it
// replaced.
func TestSearch_DiversityAndReplaced(t *testing.T) {
	r := newRig(t, memory.Config{Search: memory.SearchConfig{MMRLambda: 0.75}})
	ctx := context.Background()
	a := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Foxtrot database is Postgres 16 on the main cluster"})
	r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "foxtrot database is postgres 16 on the main cluster!"})
	b := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Foxtrot backups run nightly to the database replica"})
	res := searchRes(t, r, memory.SearchInput{Query: "Foxtrot database", Limit: 2, MinScore: f64(0)})
	if got := ids(res); len(got) != 2 || !contains(got, b.ID) {
		t.Errorf("the top two should not both be the same text: %v", got)
	}
	old := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Foxtrot database is Postgres 15"})
	if _, err := r.svc.Retire(ctx, old.ID, memory.RetireInput{How: "replaced", By: a.ID}); err != nil {
		t.Fatal(err)
	}
	for _, h := range searchRes(t, r, memory.SearchInput{Query: "Foxtrot Postgres", Limit: 5, MinScore: f64(0)}).Hits {
		if h.Memory.ID == a.ID && (len(h.Replaced) != 1 || h.Replaced[0] != old.ID) {
			t.Errorf("replaced versions of %s: %v", a.ID, h.Replaced)
		}
	}
}

// A "when" question with no date of its own leans on the matching
// memories that carry a date: in their words, or set by extraction.
func TestSearch_WhenQuestionsLeanOnDatedMemories(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	undated := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Dana moved to Lisbon with her partner"})
	worded := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Dana moved to Lisbon last week"})
	extracted := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Dana moved flats in Lisbon",
		EventAt: time.Date(2025, 4, 2, 0, 0, 0, 0, time.UTC)})
	res := searchRes(t, r, memory.SearchInput{Query: "When did Dana move to Lisbon?", Limit: 10, MinScore: f64(0)})
	date := map[string]float64{}
	for _, h := range res.Hits {
		date[h.Memory.ID] = h.Why.Date
	}
	if date[worded.ID] <= 0 || date[extracted.ID] <= 0 || date[undated.ID] != 0 {
		t.Fatalf("date parts %v: want worded and extracted > 0, undated 0", date)
	}
	if got := ids(res); len(got) < 2 || got[0] == undated.ID {
		t.Errorf("when question ranks the undated memory first: %v", got)
	}
	res = searchRes(t, r, memory.SearchInput{Query: "Where did Dana move?", Limit: 10, MinScore: f64(0)})
	for _, h := range res.Hits {
		if h.Why.Date != 0 {
			t.Errorf("a question not about time gave %s a date part %v", h.Memory.ID, h.Why.Date)
		}
	}
}

// A transcript line of the speaker the query names tells of that speaker
// in the first person and outranks the other speaker's line that only
// mentions the name; naming no speaker, or both, leaves the legs' order.
func TestSearch_SpeakerPart(t *testing.T) {
	r := newRig(t, memory.Config{})
	mentions := r.add(t, "Caroline: Melanie, you painted a sunset on the beach with your kids!", "u1")
	speaks := r.add(t, "Melanie: I painted a horse on the old barn wall with my kids", "u1")
	for _, tc := range []struct {
		query   string
		first   memory.Memory
		speaker bool // the first hit has a speaker part
	}{
		{"What has Melanie painted?", speaks, true},
		{"what did melanie's kids paint", speaks, true},
		{"Who painted a sunset?", mentions, false},
		{"What have Melanie and Caroline painted?", mentions, true},
	} {
		res := searchRes(t, r, memory.SearchInput{Query: tc.query, Limit: 5, MinScore: f64(0)})
		if len(res.Hits) < 2 {
			t.Fatalf("%q: %d hits, want both lines", tc.query, len(res.Hits))
		}
		first := res.Hits[0]
		if first.Memory.ID != tc.first.ID {
			t.Errorf("%q: first hit %q, want %q", tc.query, first.Memory.Content, tc.first.Content)
		}
		if got := first.Why.Speaker > 0; got != tc.speaker {
			t.Errorf("%q: speaker part %.3f, want one: %v", tc.query, first.Why.Speaker, tc.speaker)
		}
	}
	// An agent's turns are headed by roles, which name nobody.
	turn := r.add(t, "USER: I like dark roast coffee in the morning", "u1")
	res := searchRes(t, r, memory.SearchInput{Query: "what coffee does the user like", Limit: 5, MinScore: f64(0)})
	for _, h := range res.Hits {
		if h.Memory.ID == turn.ID && h.Why.Speaker != 0 {
			t.Errorf("a USER: turn got a speaker part %.3f", h.Why.Speaker)
		}
	}
}
