package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestExtract_PromotesFactsWithMirrorAndReplaces(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{
		{Text: "The user runs Postgres 15 for project Foxtrot", Label: memory.LabelUserPreferences, EventAt: day},
	}}))
	raw1, st := r.write(t, "USER: Foxtrot runs on Postgres 15", "u1")
	if st != memory.StatusDone {
		t.Fatalf("status = %s, want done", st)
	}
	if got := r.get(t, raw1.ID); got.Extraction != memory.ExtractDone {
		t.Fatalf("raw row state = %s", got.Extraction)
	}
	facts := r.live(t, memory.LayerFact, "u1")
	profile := r.live(t, memory.LayerProfile, "u1")
	if len(facts) != 1 || len(profile) != 1 {
		t.Fatalf("facts %d profile %d, want 1 and 1", len(facts), len(profile))
	}
	old := facts[0]
	if !old.EventAt.Equal(day) || old.Category != memory.CategoryPreference ||
		old.Metadata[memory.MetaLabel] != memory.LabelUserPreferences || old.SourceIDs[0] != raw1.ID {
		t.Errorf("fact = %+v", old)
	}
	if profile[0].Metadata[memory.MetaMirrorOf] != old.ID || profile[0].Content != old.Content {
		t.Errorf("profile mirror = %+v", profile[0])
	}

	// The preference changes: the model is offered the old fact with its id
	// and says the new one replaces it.
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		var ids []string
		for _, f := range req.RelatedFacts {
			ids = append(ids, f.ID)
		}
		return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user runs Postgres 16 for project Foxtrot",
			Label: memory.LabelUserPreferences, Replaces: ids}}}, nil
	})
	r.write(t, "USER: I moved Foxtrot from Postgres 15 to 16", "u1")
	req := x.last()
	if len(req.RelatedFacts) == 0 || req.RelatedFacts[0].ID != old.ID {
		t.Fatalf("related facts offered = %+v, want the Postgres 15 fact", req.RelatedFacts)
	}
	facts = r.live(t, memory.LayerFact, "u1")
	if len(facts) != 1 || facts[0].Content != "The user runs Postgres 16 for project Foxtrot" {
		t.Fatalf("live facts = %+v", facts)
	}
	gone := r.get(t, old.ID)
	if gone.Live() || gone.RetiredHow != memory.RetiredReplaced || gone.RetiredBy != facts[0].ID {
		t.Errorf("old fact: retired %v how %s by %s, want replaced by %s", gone.RetiredAt, gone.RetiredHow, gone.RetiredBy, facts[0].ID)
	}
	if p := r.live(t, memory.LayerProfile, "u1"); len(p) != 1 || p[0].Content != facts[0].Content {
		t.Errorf("profile after change = %+v, want only the new mirror", p)
	}
	if _, ok := r.index.Vector(old.ID); ok {
		t.Error("the replaced fact is still in the vector index")
	}
	if _, ok := r.index.Vector(facts[0].ID); !ok {
		t.Error("the new fact is not in the vector index")
	}
}

// A fact the model was offered, edited or deleted by hand while the model
// was thinking, is not retired by the reply, whether the reply says the
// new fact replaces it or updates it: the new fact stands beside it.
func TestExtract_FactsChangedDuringTheCallStay(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, r *rig, id string)
	}{
		{"edited", func(t *testing.T, r *rig, id string) {
			text := "The user runs Postgres 14 for project Foxtrot"
			if _, err := r.svc.Edit(context.Background(), id, memory.EditInput{Content: &text}); err != nil {
				t.Fatal(err)
			}
		}},
		{"deleted", func(t *testing.T, r *rig, id string) {
			if err := r.svc.Delete(context.Background(), id); err != nil {
				t.Fatal(err)
			}
		}},
		{"unchanged", func(*testing.T, *rig, string) {}},
	} {
		for _, how := range []string{"replaces", "updates"} {
			t.Run(tc.name+" "+how, func(t *testing.T) {
				r, x := newExtractRig(t, extractCfg())
				x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{
					{Text: "The user runs Postgres 15 for project Foxtrot", Label: memory.LabelProjectState}}}))
				r.write(t, "USER: Foxtrot runs on Postgres 15", "u1")
				old := r.live(t, memory.LayerFact, "u1")[0]
				x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
					if len(req.RelatedFacts) != 1 || req.RelatedFacts[0].ID != old.ID {
						return memory.ExtractPlan{}, fmt.Errorf("offered %+v, want the Postgres 15 fact", req.RelatedFacts)
					}
					tc.change(t, r, old.ID)
					f := memory.PlannedFact{Text: "The user runs Postgres 16 for project Foxtrot", Label: memory.LabelProjectState}
					if how == "replaces" {
						f.Replaces = []string{old.ID}
					} else {
						f.Updates = old.ID
					}
					return memory.ExtractPlan{Facts: []memory.PlannedFact{f}}, nil
				})
				if _, st := r.write(t, "USER: Foxtrot moved to Postgres 16", "u1"); st != memory.StatusDone {
					t.Fatalf("status %s, want done", st)
				}
				got, err := r.store.Get(context.Background(), old.ID)
				switch tc.name {
				case "edited":
					if err != nil || !got.Live() || got.Content != "The user runs Postgres 14 for project Foxtrot" {
						t.Errorf("the edited fact was retired: %+v %v", got, err)
					}
				case "deleted":
					if err == nil {
						t.Errorf("the deleted fact is back: %+v", got)
					}
				case "unchanged":
					if err != nil || got.Live() {
						t.Errorf("the unchanged fact should be retired: %+v %v", got, err)
					}
				}
				live := r.live(t, memory.LayerFact, "u1")
				if !slices.ContainsFunc(live, func(m memory.Memory) bool {
					return m.Content == "The user runs Postgres 16 for project Foxtrot"
				}) {
					t.Errorf("the new fact is missing: %+v", live)
				}
			})
		}
	}
}

func TestExtract_InventedIDsRetireNothing(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Deploys happen on Fridays", Label: "decision"}}}))
	r.write(t, "we deploy on Fridays", "u1")
	kept := r.live(t, memory.LayerFact, "u1")[0]
	x.set(plan(memory.ExtractPlan{
		Facts:          []memory.PlannedFact{{Text: "Lunch is at noon", Label: "nonsense", Replaces: []string{kept.ID + "x", "m1"}, Updates: "m2"}},
		IntentionsDone: []string{kept.ID},
	}))
	r.write(t, "lunch is at noon", "u1")
	if got := r.get(t, kept.ID); !got.Live() {
		t.Fatalf("a fact the model was not offered was retired: %+v", got)
	}
	for _, f := range r.live(t, memory.LayerFact, "u1") {
		if f.Content == "Lunch is at noon" && (f.Metadata[memory.MetaLabel] != memory.LabelProjectState || f.Category != memory.CategoryFact) {
			t.Errorf("unknown label kept as %q (category %q), want project_state (fact)", f.Metadata[memory.MetaLabel], f.Category)
		}
	}
}

func TestExtract_UpdatesKeepACount(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user went running in the park", Label: "project_state"}}}))
	r.write(t, "went running in the park today", "u1")
	for i := 2; i <= 3; i++ {
		x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
			if len(req.RelatedFacts) == 0 {
				return memory.ExtractPlan{}, fmt.Errorf("no related fact offered")
			}
			return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user went running in the park again",
				Label: "project_state", Updates: req.RelatedFacts[0].ID}}}, nil
		})
		r.write(t, "went running in the park again", "u1")
		facts := r.live(t, memory.LayerFact, "u1")
		if len(facts) != 1 || facts[0].Metadata[memory.MetaCount] != fmt.Sprint(i) {
			t.Fatalf("after %d runs: facts %+v, want one with count %d", i, facts, i)
		}
	}
	rows, _, _ := r.store.List(context.Background(), memory.ListFilter{Layers: []memory.Layer{memory.LayerFact}, IncludeRetired: true, Limit: 10})
	updated := 0
	for _, m := range rows {
		if m.RetiredHow == memory.RetiredUpdated && m.RetiredBy != "" {
			updated++
		}
	}
	if updated != 2 {
		t.Errorf("%d facts retired as updated, want 2", updated)
	}
}

func TestExtract_DedupeRestatementNeedsSameDigits(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	write := func(text string) {
		x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: text, Label: "project_state"}}}))
		r.write(t, "note: "+text, "u1")
	}
	write("Open pull request 101722 fixes the login bug")
	first := r.live(t, memory.LayerFact, "u1")[0]
	write("Open pull request 96783 fixes the login bug")
	if len(r.live(t, memory.LayerFact, "u1")) != 2 {
		t.Fatal("facts with different numbers were folded together")
	}
	write("Open pull request 101722 fixes the login bug")
	got := r.get(t, first.ID)
	if got.Live() || got.RetiredHow != memory.RetiredRestated {
		t.Fatalf("a restatement did not retire the old fact: %+v", got)
	}
	if n := len(r.live(t, memory.LayerFact, "u1")); n != 2 {
		t.Errorf("%d live facts, want 2", n)
	}
}

func TestExtract_IntentionsDueAndDone(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	due := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	x.set(plan(memory.ExtractPlan{Intentions: []memory.PlannedIntention{{Goal: "Renew the TLS certificate", DueAt: due}}}))
	r.write(t, "remind me to renew the TLS certificate tomorrow", "u1")
	intents := r.live(t, memory.LayerIntention, "u1")
	if len(intents) != 1 || !intents[0].DueAt.Equal(due) {
		t.Fatalf("intentions = %+v", intents)
	}
	// A turn continuing the same goal does not write it again.
	r.write(t, "still working on the TLS certificate", "u1")
	if n := len(r.live(t, memory.LayerIntention, "u1")); n != 1 {
		t.Fatalf("%d open intentions after a continuing turn, want 1", n)
	}
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		if len(req.OpenIntentions) != 1 {
			return memory.ExtractPlan{}, fmt.Errorf("open intentions offered: %+v", req.OpenIntentions)
		}
		return memory.ExtractPlan{IntentionsDone: []string{req.OpenIntentions[0].ID}}, nil
	})
	if _, st := r.write(t, "the TLS certificate is renewed", "u1"); st != memory.StatusDone {
		t.Fatalf("status %s", st)
	}
	if got := r.get(t, intents[0].ID); got.Live() || got.RetiredHow != memory.RetiredDone {
		t.Errorf("intention after done: %+v", got)
	}
}

func TestExtract_EntityPagesKeepHistory(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(plan(memory.ExtractPlan{Entities: []memory.EntityPage{{Name: "Foxtrot", Kind: "project",
		State: map[string]string{"database": "Postgres 15"}, Summary: "The billing service"}}}))
	r.write(t, "Foxtrot is our billing service on Postgres 15", "u1")
	x.set(plan(memory.ExtractPlan{Entities: []memory.EntityPage{{Name: "foxtrot", Kind: "project",
		State: map[string]string{"database": "Postgres 16"}}}}))
	r.write(t, "Foxtrot now runs Postgres 16", "u1")
	if req := x.last(); len(req.Entities) != 1 || req.Entities[0].State["database"] != "Postgres 15" {
		t.Fatalf("entity pages offered = %+v, want the Foxtrot page", req.Entities)
	}
	pages := r.live(t, memory.LayerEntity, "u1")
	if len(pages) != 1 {
		t.Fatalf("%d pages, want one per thing", len(pages))
	}
	p := pages[0]
	for _, want := range []string{"Foxtrot (project): The billing service", "database: Postgres 16", "database was Postgres 15"} {
		if !strings.Contains(p.Content, want) {
			t.Errorf("page text %q lacks %q", p.Content, want)
		}
	}
	if h, _ := r.store.History(context.Background(), p.ID); len(h) == 0 {
		t.Error("the page's edit left no history entry")
	}
}

func TestExtract_ExperiencesHaveTheirChannel(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(plan(memory.ExtractPlan{Experiences: []memory.PlannedExperience{{Task: "flaky CI", Lesson: "pin the Go version"}}}))
	r.write(t, "CI was flaky until we pinned Go", "u1")
	facts := r.live(t, memory.LayerFact, "u1")
	if len(facts) != 1 || memory.ChannelOf(facts[0]) != memory.ChannelExperiences {
		t.Fatalf("experience rows = %+v", facts)
	}
}

func TestExtract_FailuresLeaveTheRowQueued(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) {
		return memory.ExtractPlan{}, fmt.Errorf("503 from endpoint: %w", memory.ErrProvider)
	})
	raw, st := r.write(t, "a write while the endpoint is down", "u1")
	if st != memory.StatusPending {
		t.Fatalf("status = %s, want pending", st)
	}
	got := r.get(t, raw.ID)
	if got.Extraction != memory.ExtractPending || got.ExtractTries != 0 || got.ExtractError == "" {
		t.Fatalf("after a provider error: %+v", got)
	}
	if p := r.svc.WritePipeline(context.Background()); p != "degraded: 503 from endpoint: "+memory.ErrProvider.Error() {
		t.Errorf("write pipeline after a provider error = %q", p)
	}
	x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) {
		return memory.ExtractPlan{}, fmt.Errorf("prose: %w", memory.ErrUnparseable)
	})
	for try := 1; try <= memory.MaxExtractTries; try++ {
		st, err := r.svc.ExtractOne(context.Background(), raw.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := memory.StatusPending
		if try == memory.MaxExtractTries {
			want = memory.StatusFailed
		}
		if got := r.get(t, raw.ID); st != want || got.ExtractTries != try {
			t.Fatalf("try %d: status %s tries %d, want %s", try, st, got.ExtractTries, want)
		}
	}
	if n := len(r.live(t, memory.LayerFact, "u1")); n != 0 {
		t.Errorf("a failed extraction wrote %d facts", n)
	}
	if p := r.svc.WritePipeline(context.Background()); !strings.HasPrefix(p, "degraded: prose") {
		t.Errorf("write pipeline after an unreadable reply = %q", p)
	}
	x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) {
		return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "the endpoint is back", Label: "fact"}}}, nil
	})
	if _, st := r.write(t, "a write once the endpoint answers", "u1"); st != memory.StatusDone {
		t.Fatalf("status = %s, want done", st)
	}
	if p := r.svc.WritePipeline(context.Background()); p != "ok" {
		t.Errorf("write pipeline after a good extraction = %q, want ok", p)
	}
}

func TestExtract_NoKeyWaitsThenCatchesUp(t *testing.T) {
	var state atomic.Value
	state.Store(memory.LLMAwaitingKey)
	x := &scriptedExtractor{}
	r := newRig(t, extractCfg(), func(d *memory.Deps) {
		d.Extractor, d.LLMState = x, func() memory.LLMState { return state.Load().(memory.LLMState) }
	})
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user likes tea", Label: "user_preferences"}}}))
	raw, st := r.write(t, "I like tea", "u1")
	if st != memory.StatusAwaitingKey {
		t.Fatalf("status = %s, want awaiting_key", st)
	}
	if res, err := r.svc.CatchUp(context.Background(), 0); err != nil || res.Tried != 0 {
		t.Fatalf("catch-up without a key: %+v %v", res, err)
	}
	state.Store(memory.LLMOK)
	for range 150 { // the clock moves a second per call: pass the 2-minute floor
		r.clock.Now()
	}
	res, err := r.svc.CatchUp(context.Background(), 168*time.Hour)
	if err != nil || res.Done != 1 {
		t.Fatalf("catch-up with a key: %+v %v", res, err)
	}
	if got := r.get(t, raw.ID); got.Extraction != memory.ExtractDone {
		t.Errorf("raw row state = %s", got.Extraction)
	}
	st2, _ := r.svc.Stats(context.Background())
	if st2.Unextracted != 0 {
		t.Errorf("unextracted = %d", st2.Unextracted)
	}
}

// An endpoint down for three rows in a row stops the run and charges
// nothing; once it is back the run hands the rest to the workers.
func TestCatchUp_StopsAtProviderErrorAndHandsOnTheBacklog(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.Sync = false
	r2, x := newExtractRig(t, cfg) // asynchronous: writes only queue
	down := true
	x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) {
		if down {
			return memory.ExtractPlan{}, memory.ErrProvider
		}
		return memory.ExtractPlan{}, nil
	})
	for i := range 45 {
		r2.write(t, fmt.Sprintf("queued write %d", i), "u1")
	}
	for range 200 {
		r2.clock.Now()
	}
	res, err := r2.svc.CatchUp(context.Background(), 0)
	if err != nil || res.Tried != 3 || !errors.Is(res.Stopped, memory.ErrProvider) || len(res.Backlog) != 0 {
		t.Fatalf("run while down: %+v %v", res, err)
	}
	if st, _ := r2.svc.Stats(context.Background()); st.Unextracted != 45 {
		t.Fatalf("an outage charged rows: unextracted = %d", st.Unextracted)
	}
	down = false
	res, err = r2.svc.CatchUp(context.Background(), 0)
	if err != nil || res.Done != memory.CatchUpBatch || len(res.Backlog) != 45-memory.CatchUpBatch {
		t.Fatalf("run after recovery: done %d backlog %d err %v", res.Done, len(res.Backlog), err)
	}
	for _, id := range res.Backlog {
		if _, err := r2.svc.ExtractOne(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := r2.svc.Stats(context.Background()); st.Unextracted != 0 {
		t.Errorf("unextracted = %d after draining the backlog", st.Unextracted)
	}
}

// Writes queued while the endpoint was down, under a clock that ran ahead;
// the clock is corrected and the endpoint comes back. The rows are hours
// old in real time, though dated in the future: the next run takes them.
func TestCatchUp_RowsDatedInTheFutureAfterTheClockWasSetBack(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.Sync = false
	r, x := newExtractRig(t, cfg)
	down := true
	x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) {
		if down {
			return memory.ExtractPlan{}, memory.ErrProvider
		}
		return memory.ExtractPlan{}, nil
	})
	real := r.clock.Now()
	r.clock.mu.Lock()
	r.clock.now = real.Add(48 * time.Hour) // the clock runs two days ahead
	r.clock.mu.Unlock()
	for i := range 5 {
		r.write(t, fmt.Sprintf("queued while the clock ran ahead %d", i), "u1")
	}
	// Hours later the clock is corrected (NTP) and the endpoint is back.
	r.clock.mu.Lock()
	r.clock.now = real.Add(6 * time.Hour)
	r.clock.mu.Unlock()
	down = false
	res, err := r.svc.CatchUp(context.Background(), 168*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := r.svc.Stats(context.Background())
	if res.Tried != 5 || st.Unextracted != 0 {
		t.Errorf("catch-up after the clock was corrected tried %d of 5 waiting rows (unextracted = %d)", res.Tried, st.Unextracted)
	}
}
