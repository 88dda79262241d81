package memory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// TestIntentions_ADueDayIsTheOwnersDay: an intention due on a day (no time
// of day, kept as midnight UTC) is due at the start of that day where the
// owner is and stays current a day after that: through the due day, west
// of UTC as east of it.
func TestIntentions_ADueDayIsTheOwnersDay(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	r := newRig(t, memory.Config{Search: memory.SearchConfig{IntentionTTL: 168 * time.Hour},
		Extraction: memory.ExtractionConfig{Location: la}})
	due := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) // "due on 30 November"
	in := r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "renew the passport", DueAt: due})
	for _, c := range []struct {
		name string
		at   time.Time
		want bool
	}{
		{"the morning of the due day", time.Date(2026, 11, 30, 9, 0, 0, 0, la), true},
		{"5 pm on the due day (past midnight UTC)", time.Date(2026, 11, 30, 17, 0, 0, 0, la), true},
		{"11 pm on the due day", time.Date(2026, 11, 30, 23, 0, 0, 0, la), true},
		{"the morning after", time.Date(2026, 12, 1, 9, 0, 0, 0, la), false},
	} {
		r.clock.now = c.at
		res := searchRes(t, r, memory.SearchInput{Query: "renew passport", MinScore: f64(0)})
		found := len(res.Hits) > 0 && res.Hits[0].Memory.ID == in.ID
		if found != c.want {
			t.Errorf("%s: found %v, want %v", c.name, found, c.want)
		}
	}
}

// TestIntentions_AGoalStatedAgain: a goal restating a current intention is
// not written again; given a new due date it is, and the old one is
// retired as updated; one restating an intention past its TTL is written
// anew, so recall finds it.
func TestIntentions_AGoalStatedAgain(t *testing.T) {
	cfg := extractCfg()
	cfg.Search.IntentionTTL = 168 * time.Hour
	r, x := newExtractRig(t, cfg)
	goal := func(text string, due time.Time) {
		t.Helper()
		x.set(plan(memory.ExtractPlan{Intentions: []memory.PlannedIntention{{Goal: text, DueAt: due}}}))
		r.write(t, "about: "+text, "u1")
	}
	liveGoals := func() []memory.Memory { return r.live(t, memory.LayerIntention, "u1") }
	goal("Call mom about the trip", time.Time{})
	goal("Call mom about the trip", time.Time{})
	if n := len(liveGoals()); n != 1 {
		t.Fatalf("a goal stated twice in a row: %d live intentions, want 1", n)
	}
	first := liveGoals()[0]
	dec10 := time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC)
	goal("Call mom about the trip", dec10)
	live := liveGoals()
	if len(live) != 1 || !live[0].DueAt.Equal(dec10) || live[0].ID == first.ID {
		t.Fatalf("the goal given a due date: %+v; want one intention, due 10 December", live)
	}
	if old := r.get(t, first.ID); old.RetiredHow != memory.RetiredUpdated || old.RetiredBy != live[0].ID {
		t.Errorf("the undated goal: retired %q by %q, want updated by the dated one", old.RetiredHow, old.RetiredBy)
	}

	goal("Book the dentist", time.Time{})
	r.advance(8 * 24 * time.Hour) // past the TTL: no longer current
	goal("Book the dentist", time.Time{})
	res := searchRes(t, r, memory.SearchInput{Query: "book dentist", UserIDs: []string{"u1"}, Layer: "l7_intention", MinScore: f64(0)})
	dentist := 0
	for _, h := range res.Hits {
		if h.Memory.Content == "Book the dentist" {
			dentist++
		}
	}
	if dentist != 1 {
		t.Errorf("the goal stated again after its TTL: found %d times, want once (written anew)", dentist)
	}
}

// TestIntentions_NoLongerCurrentIsNotOffered: an intention past its TTL is
// neither offered to the model as open (so a goal said again is new to
// it) nor put on the Now page as an open goal.
func TestIntentions_NoLongerCurrentIsNotOffered(t *testing.T) {
	cfg := extractCfg()
	cfg.Search.IntentionTTL = 168 * time.Hour
	r, x := newExtractRig(t, cfg)
	x.set(plan(memory.ExtractPlan{Intentions: []memory.PlannedIntention{{Goal: "Call mom about the trip"}}}))
	var pages []string
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		pages = append(pages, strings.Join(req.Texts, " | "))
		return "now", nil
	}
	r.write(t, "I should call mom about the trip", "u1")
	r.advance(8 * 24 * time.Hour)
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Bought a new kettle", Label: "project_state"}}}))
	r.write(t, "bought a new kettle", "u1")
	if open := x.last().OpenIntentions; len(open) != 0 {
		t.Errorf("offered as open after its TTL: %+v", open)
	}
	if _, err := r.svc.Housekeep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 || strings.Contains(pages[len(pages)-1], "Call mom") {
		t.Errorf("the Now page was built from %q; want it without the goal past its TTL", pages)
	}
}

// TestIntentions_SchedulingWordsAskOnlyADate: "what is due tomorrow?",
// "any plans for tomorrow?" and the like name no subject, only a date, as
// "what do I have tomorrow?" does: the intention due then answers them
// (the relevance gate takes its due date as the reason); a query that
// names a subject still gets nothing for the date alone.
func TestIntentions_SchedulingWordsAskOnlyADate(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	due := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) // tomorrow: the rig's today is 30 November
	in := r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "renew the passport", DueAt: due})
	for _, q := range []string{"what do I have tomorrow?", "what is due tomorrow?", "any plans for tomorrow?",
		"what's on my schedule tomorrow?", "my agenda for tomorrow", "upcoming meetings tomorrow?", "to-do list for tomorrow",
		"which tasks are due tomorrow", "any appointments tomorrow?"} {
		res := searchRes(t, r, memory.SearchInput{Query: q})
		if !contains(ids(res), in.ID) {
			t.Errorf("%q: the intention due tomorrow not found (gate %q)", q, res.Gated)
		}
	}
	if res := searchRes(t, r, memory.SearchInput{Query: "a poem about tomorrow"}); len(res.Hits) != 0 {
		t.Errorf("a poem about tomorrow: %v, want nothing for the date alone", ids(res))
	}
}

// TestIntentions_ADueDayEndsAtTheOwnersNextMidnight: an intention due on a
// day (no time of day) is current until the next midnight where the owner
// is, not 24 hours after the day began: the day clocks go back is 25 hours
// long (it stays until 23:59), the day they go forward 23 (it is gone at
// 00:30 the day after). Recall and the prompt block read it alike.
func TestIntentions_ADueDayEndsAtTheOwnersNextMidnight(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	r := newRig(t, memory.Config{Search: memory.SearchConfig{IntentionTTL: 168 * time.Hour},
		Extraction: memory.ExtractionConfig{Location: la}})
	put := func(text string, day time.Time) memory.Memory {
		return r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: text, DueAt: day, Strength: 0.9,
			Category: memory.CategoryGoal})
	}
	back := put("renew the passport", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) // US clocks go back on 1 November 2026
	forward := put("file the taxes", time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC))   // and forward on 8 March
	for _, c := range []struct {
		name  string
		in    memory.Memory
		query string
		at    time.Time
		want  bool
	}{
		{"23:30 on the day clocks go back", back, "renew passport", time.Date(2026, 11, 1, 23, 30, 0, 0, la), true},
		{"00:30 the day after clocks went back", back, "renew passport", time.Date(2026, 11, 2, 0, 30, 0, 0, la), false},
		{"23:30 on the day clocks go forward", forward, "file taxes", time.Date(2026, 3, 8, 23, 30, 0, 0, la), true},
		{"00:30 the day after clocks went forward", forward, "file taxes", time.Date(2026, 3, 9, 0, 30, 0, 0, la), false},
	} {
		r.clock.now = c.at
		res := searchRes(t, r, memory.SearchInput{Query: c.query, MinScore: f64(0)})
		if found := contains(ids(res), c.in.ID); found != c.want {
			t.Errorf("%s: recall finds %q %v, want %v", c.name, c.in.Content, found, c.want)
		}
		block, err := r.svc.Prompt(context.Background(), memory.PromptInput{})
		if err != nil {
			t.Fatal(err)
		}
		if held := strings.Contains(block.Text, c.in.Content); held != c.want {
			t.Errorf("%s: the prompt block holds %q %v, want %v", c.name, c.in.Content, held, c.want)
		}
	}
}

// TestIntentions_AWeekdayOrADayAheadFindsWhatIsDueThen: a weekday or a day
// without its year reads as the last one for what happened ("what did I
// do on Friday?"), and also as the next one for what is due then, so
// "what do I have on Friday?" asked on a Monday finds the plan for that
// Friday. An explicit date does not look ahead.
func TestIntentions_AWeekdayOrADayAheadFindsWhatIsDueThen(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	friday := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC) // the rig's today is Monday 30 November
	in := r.put(t, memory.Memory{Layer: memory.LayerIntention, Content: "dentist appointment at 10", DueAt: friday})
	for _, q := range []string{"what do I have on Friday?", "what do I have on December 4?", "what do I have this Friday?",
		"anything due on 4 December?"} {
		res := searchRes(t, r, memory.SearchInput{Query: q})
		if !contains(ids(res), in.ID) {
			t.Errorf("%q: the intention due Friday 4 December not found (gate %q, hits %v)", q, res.Gated, ids(res))
		}
	}
	if res := searchRes(t, r, memory.SearchInput{Query: "what do I have on 2025-12-04?"}); contains(ids(res), in.ID) {
		t.Errorf("an explicit date a year back found the intention due this Friday")
	}
}

// TestIntentions_AGoalStatedAgainStaysCurrent: an undated goal counts its
// HYATLAS_INTENTION_TTL from when it was last stated: said again on day 6
// it is still recalled on day 8 (the row written on day 6 replaces the
// first, retired as restated, with a reference's bump). Said again within
// a day, nothing is written.
func TestIntentions_AGoalStatedAgainStaysCurrent(t *testing.T) {
	cfg := extractCfg()
	cfg.Search.IntentionTTL = 168 * time.Hour
	r, x := newExtractRig(t, cfg)
	x.set(plan(memory.ExtractPlan{Intentions: []memory.PlannedIntention{{Goal: "Book the dentist"}}}))
	r.write(t, "I need to book the dentist", "u1")
	first := r.live(t, memory.LayerIntention, "u1")
	r.advance(time.Hour)
	r.write(t, "really, I need to book the dentist", "u1")
	if got := r.live(t, memory.LayerIntention, "u1"); len(got) != 1 || len(first) != 1 || got[0].ID != first[0].ID {
		t.Fatalf("said again within the hour: %v, want the first row alone (%v)", got, first)
	}
	r.advance(6 * 24 * time.Hour)
	r.write(t, "still need to book the dentist", "u1")
	r.advance(2 * 24 * time.Hour)
	res := searchRes(t, r, memory.SearchInput{Query: "book dentist", UserIDs: []string{"u1"}, Layer: "l7_intention", MinScore: f64(0)})
	if len(res.Hits) != 1 || res.Hits[0].Memory.ID == first[0].ID {
		t.Fatalf("two days after it was stated again: %v, want the renewed goal", ids(res))
	}
	if res.Hits[0].Memory.Strength <= first[0].Strength {
		t.Errorf("the renewed goal's strength %.2f, want the first's %.2f raised", res.Hits[0].Memory.Strength, first[0].Strength)
	}
	old, err := r.store.Get(context.Background(), first[0].ID)
	if err != nil || old.Live() || old.RetiredHow != memory.RetiredRestated || old.RetiredBy != res.Hits[0].Memory.ID {
		t.Errorf("the first row: %+v %v, want it retired as restated by the renewed one", old, err)
	}
}

// TestIntentions_PlanNounsAreWordsForOtherRows: "meetings" in a dated
// question is a word to match for rows other than intentions: a week
// without a meeting answers "what meetings did I have last week?" with
// nothing (not with all of that week), and a meeting fact dated outside
// the week is still found by its word.
func TestIntentions_PlanNounsAreWordsForOtherRows(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	lastWeek := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) // the rig's today is Monday 30 November
	// A floor no hash-embedder cosine reaches: the keyword and the date decide.
	ask := memory.SearchInput{Query: "what meetings did I have last week?", MinScore: f64(0.9)}
	r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Lunch with Bob at the harbour", EventAt: lastWeek})
	if res := searchRes(t, r, ask); len(res.Hits) != 0 {
		t.Errorf("a week without a meeting: %v, want nothing", ids(res))
	}
	weekly := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "A weekly meeting with the design team",
		EventAt: time.Date(2026, 8, 4, 9, 0, 0, 0, time.UTC)})
	if res := searchRes(t, r, ask); !contains(ids(res), weekly.ID) {
		t.Errorf("the weekly meeting fact: %v, want it found by its word", ids(res))
	}
}
