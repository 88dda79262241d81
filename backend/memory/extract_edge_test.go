package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// A write deleted (or forgotten) while its extraction call runs leaves no
// facts behind.
func TestExtract_WriteDeletedDuringTheCall(t *testing.T) {
	for _, how := range []string{"deleted", "forgotten"} {
		t.Run(how, func(t *testing.T) {
			cfg := extractCfg()
			cfg.Extraction.Sync = false
			r, x := newExtractRig(t, cfg)
			raw, _ := r.write(t, "my locker code is 4512", "u1")
			x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) {
				var err error
				if how == "deleted" {
					err = r.svc.Delete(context.Background(), raw.ID)
				} else {
					_, err = r.svc.Retire(context.Background(), raw.ID, memory.RetireInput{How: "forgotten"})
				}
				if err != nil {
					t.Error(err)
				}
				return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user's locker code is 4512", Label: "project_state"}}}, nil
			})
			st, err := r.svc.ExtractOne(context.Background(), raw.ID)
			if err != nil || st == memory.StatusDone {
				t.Fatalf("ExtractOne: %s %v", st, err)
			}
			if facts := r.live(t, memory.LayerFact, "u1"); len(facts) != 0 {
				t.Errorf("a %s write left facts: %+v", how, facts)
			}
			if err := r.svc.Ready(context.Background()); err != nil {
				t.Errorf("index and store disagree: %v", err)
			}
		})
	}
}

// A row the endpoint refuses, or fails alone while it answers the rows
// after it, is charged a try each run, so it cannot hold a catch-up run at
// the front of the queue: the rows behind it are extracted in the first
// run and it ends as failed. (A row failing alone with nothing else to
// answer is an outage as far as a run can tell: it waits, uncharged.)
func TestCatchUp_GoesPastARowThatAlwaysFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cause error
	}{
		{"refused: context length", fmt.Errorf("HTTP 400 context length: %w", memory.ErrRejected)},
		{"unavailable for this row alone: the runner crashes on it", fmt.Errorf("HTTP 500 runner crashed: %w", memory.ErrProvider)},
		{"unavailable for this row alone: it times out", fmt.Errorf("timed out: %w", memory.ErrProvider)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := extractCfg()
			cfg.Extraction.Sync = false
			r, x := newExtractRig(t, cfg)
			bad, _ := r.write(t, "a write far too long for the model", "u1")
			for i := range 3 {
				r.write(t, fmt.Sprintf("ordinary write %d", i), "u1")
			}
			x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
				if strings.Contains(req.Text, "too long") {
					return memory.ExtractPlan{}, tc.cause
				}
				return memory.ExtractPlan{}, nil
			})
			for run := 1; run <= memory.MaxExtractTries; run++ {
				if run > 1 { // the endpoint answers another row in each run
					r.write(t, fmt.Sprintf("ordinary write of run %d", run), "u1")
				}
				for range 200 {
					r.clock.Now()
				}
				res, err := r.svc.CatchUp(context.Background(), 0)
				if err != nil || res.Stopped != nil {
					t.Fatalf("run %d: %+v %v", run, res, err)
				}
				if want := map[bool]int{true: 3, false: 1}[run == 1]; res.Done != want {
					t.Fatalf("run %d did %d rows behind the bad one, want %d", run, res.Done, want)
				}
			}
			if m := r.get(t, bad.ID); m.Extraction != memory.ExtractFailed || m.ExtractTries != memory.MaxExtractTries {
				t.Errorf("the bad row: %s after %d tries", m.Extraction, m.ExtractTries)
			}
			if st, _ := r.svc.Stats(context.Background()); st.Unextracted != 0 {
				t.Errorf("unextracted = %d", st.Unextracted)
			}
		})
	}
}

func TestExtract_DoneIntentionPointsAtTheWrite(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(plan(memory.ExtractPlan{Intentions: []memory.PlannedIntention{{Goal: "File the tax return"}}}))
	r.write(t, "I need to file the tax return", "u1")
	open := r.live(t, memory.LayerIntention, "u1")
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		return memory.ExtractPlan{IntentionsDone: []string{req.OpenIntentions[0].ID}}, nil
	})
	raw, _ := r.write(t, "tax return filed!", "u1")
	if m := r.get(t, open[0].ID); m.RetiredHow != memory.RetiredDone || m.RetiredBy != raw.ID {
		t.Errorf("done intention: how %s by %s, want done by %s", m.RetiredHow, m.RetiredBy, raw.ID)
	}
}

// An unreadable episode summary does not stall the episodes after it nor
// the Now page; an endpoint that is down leaves the episode for later.
func TestHousekeep_FailuresDoNotStall(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user is planning a trip", Label: "project_state"}}}))
	calls := 0
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		calls++
		if req.Kind == memory.SummaryEpisode && strings.Contains(strings.Join(req.Texts, " "), "first") {
			return "", fmt.Errorf("empty after think: %w", memory.ErrUnparseable)
		}
		return string(req.Kind) + " ok", nil
	}
	advance := func(d time.Duration) { r.clock.mu.Lock(); r.clock.now = r.clock.now.Add(d); r.clock.mu.Unlock() }
	r.write(t, "first episode, write one", "u1")
	r.write(t, "first episode, write two", "u1")
	advance(time.Hour)
	r.write(t, "second episode, write one", "u1")
	r.write(t, "second episode, write two", "u1")
	advance(time.Hour)
	res, err := r.svc.Housekeep(context.Background())
	if err == nil || res.Episodes != 1 || res.NowPages != 1 {
		t.Fatalf("pass 1: %+v %v, want one summary, one Now page and the failure reported", res, err)
	}
	calls = 0
	if res, _ := r.svc.Housekeep(context.Background()); res.Episodes != 0 || calls != 0 {
		t.Errorf("pass 2 asked again: %+v after %d calls", res, calls)
	}
}

// A user writing with and without an agent id has one Now page each (the
// page of no agent is built from the person's own facts only).
func TestNowPage_OneLivePerOwner(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.NowEvery = 0
	r, x := newExtractRig(t, cfg)
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user noted: " + req.Text, Label: "project_state"}}}, nil
	})
	x.summarize = func(req memory.SummaryRequest) (string, error) { return "now: " + req.Owner.AgentID, nil }
	ctx := context.Background()
	for i := range 3 {
		for _, agent := range []string{"", "hermes"} {
			said := map[string]string{"": "packing kitchen boxes", "hermes": "phoning removal firms"}[agent]
			if _, err := r.svc.Add(ctx, memory.AddInput{Text: fmt.Sprintf("%s, day %d", said, i),
				Owner: memory.Owner{UserID: "u1", AgentID: agent}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := r.svc.Housekeep(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pages := map[string]int{}
	for _, m := range r.live(t, memory.LayerSummary, "u1") {
		if m.Category == memory.CategoryNow {
			pages[m.Owner.AgentID]++
		}
	}
	if pages[""] != 1 || pages["hermes"] != 1 {
		t.Errorf("live Now pages per agent: %v, want one each", pages)
	}
}

// A person writing under two user ids of an alias group has one Now page,
// built from what both ids wrote, as their recall is one.
func TestNowPage_OnePerAliasGroup(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.NowEvery = 0
	cfg.Aliases = aliases(t, "u1,u1b")
	r, x := newExtractRig(t, cfg)
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user noted: " + req.Text, Label: "project_state"}}}, nil
	})
	var shown []string
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		if req.Kind == memory.SummaryNow {
			shown = req.Texts
		}
		return "now: " + strings.Join(req.Texts, "; "), nil
	}
	ctx := context.Background()
	for _, w := range []struct{ user, text string }{{"u1", "packing kitchen boxes"}, {"u1b", "phoning removal firms"}, {"u1", "labelling the boxes"}} {
		if _, err := r.svc.Add(ctx, memory.AddInput{Text: w.text, Owner: memory.Owner{UserID: w.user}}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.svc.Housekeep(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var pages []memory.Memory
	for _, u := range []string{"u1", "u1b"} {
		for _, m := range r.live(t, memory.LayerSummary, u) {
			if m.Category == memory.CategoryNow && !slices.ContainsFunc(pages, func(p memory.Memory) bool { return p.ID == m.ID }) {
				pages = append(pages, m)
			}
		}
	}
	if len(pages) != 1 {
		t.Fatalf("live Now pages of the group: %d, want 1: %+v", len(pages), pages)
	}
	joined := strings.Join(shown, "\n")
	for _, said := range []string{"packing kitchen boxes", "phoning removal firms", "labelling the boxes"} {
		if !strings.Contains(joined, said) {
			t.Errorf("the last Now page was built without %q: %q", said, shown)
		}
	}
	// Recall under either id returns that page.
	for _, u := range []string{"u1", "u1b"} {
		res, err := r.svc.Search(ctx, memory.SearchInput{Query: "what am I doing with the boxes", UserIDs: []string{u}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Now == nil || res.Now.ID != pages[0].ID {
			t.Errorf("recall of %s: Now page %+v, want %s", u, res.Now, pages[0].ID)
		}
	}
}

// Dates outside the years 1-9999 (in UTC), from any extractor, are dropped:
// the fact is undated, the intention has no due date, and the rows can
// still be written as JSON.
func TestExtract_DatesOutsideTheYearsJSONHoldsAreDropped(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(plan(memory.ExtractPlan{
		Facts:      []memory.PlannedFact{{Text: "Foxtrot ships at the end of time", Label: memory.LabelProjectState, EventAt: time.Date(10000, 1, 1, 4, 0, 0, 0, time.UTC)}},
		Intentions: []memory.PlannedIntention{{Goal: "Send the invoice", DueAt: time.Date(0, 12, 31, 23, 0, 0, 0, time.UTC)}},
	}))
	r.write(t, "Foxtrot ships at the end of time; send the invoice", "u1")
	rows := append(r.live(t, memory.LayerFact, "u1"), r.live(t, memory.LayerIntention, "u1")...)
	if len(rows) != 2 {
		t.Fatalf("rows: %+v", rows)
	}
	for _, m := range rows {
		if !m.EventAt.IsZero() && !memory.ValidTime(m.EventAt) || !m.DueAt.IsZero() {
			t.Errorf("%q kept a date outside the years 1-9999: event %v, due %v", m.Content, m.EventAt, m.DueAt)
		}
		if _, err := json.Marshal(m); err != nil {
			t.Errorf("%q cannot be written as JSON: %v", m.Content, err)
		}
	}
}

// A page the model fills with long values (within every cap of the reply)
// is kept within the metadata size a client may send: its long values are
// cut, every key stays, and the store's export imports.
func TestExtract_ALongEntityPageStaysImportable(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	state := map[string]string{}
	for i := range 12 {
		state[fmt.Sprintf("note %d", i)] = strings.Repeat("word ", 150) // 750 characters, under the 1,000 cap
	}
	x.set(plan(memory.ExtractPlan{Entities: []memory.EntityPage{{Name: "Dana", Kind: "person", State: state}}}))
	if _, st := r.write(t, "USER: everything about Dana", "u1"); st != memory.StatusDone {
		t.Fatalf("extraction: %s", st)
	}
	pages := r.live(t, memory.LayerEntity, "u1")
	if len(pages) != 1 || len(pages[0].Metadata[memory.MetaEntity]) > 8192 || strings.Count(pages[0].Content, "\n- note ") != 12 {
		t.Fatalf("page: %d bytes of record, %q", len(pages[0].Metadata[memory.MetaEntity]), pages[0].Content)
	}
	var buf bytes.Buffer
	if _, err := r.svc.Export(context.Background(), &buf, memory.ExportInput{}); err != nil {
		t.Fatalf("export: %v", err)
	}
	other := newRig(t, memory.Config{})
	if _, err := other.svc.Import(context.Background(), bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatalf("the store's own export cannot be imported: %v", err)
	}
}

// A row that met the endpoint down (no connection, a rate limit: any
// request would have failed) is never charged a try, even when a later
// row of the run gets an answer.
func TestCatchUp_TheEndpointDownChargesNoRow(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.Sync = false
	r, x := newExtractRig(t, cfg)
	first, _ := r.write(t, "the write that met the endpoint down", "u1")
	calls := 0
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		calls++
		if strings.Contains(req.Text, "met the endpoint down") {
			return memory.ExtractPlan{}, fmt.Errorf("connection refused: %w", memory.ErrEndpointDown)
		}
		return memory.ExtractPlan{}, nil
	})
	for run := 1; run <= memory.MaxExtractTries+1; run++ {
		r.write(t, fmt.Sprintf("ordinary write of run %d", run), "u1")
		for range 200 {
			r.clock.Now()
		}
		if _, err := r.svc.CatchUp(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
	}
	if m := r.get(t, first.ID); m.Extraction != memory.ExtractPending || m.ExtractTries != 0 {
		t.Errorf("the row is %s after %d tries (%d calls)", m.Extraction, m.ExtractTries, calls)
	}
}

// One agent's write is never shown another agent's facts, and never
// retires one (as restated, replaced or updated): an agent's facts are its
// own, as its recall is.
func TestExtract_OneAgentsWriteLeavesAnotherAgentsFacts(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	text := "Dana prefers the window seat on flights"
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: text, Label: memory.LabelUserPreferences}}}))
	add := func(agent string) {
		t.Helper()
		if _, err := r.svc.Add(context.Background(), memory.AddInput{Text: "USER: I always take the window seat",
			Owner: memory.Owner{UserID: "dana", AgentID: agent}}); err != nil {
			t.Fatal(err)
		}
	}
	add("hermes")
	hermes := r.live(t, memory.LayerFact, "dana")
	if len(hermes) != 1 {
		t.Fatalf("facts after hermes's write: %+v", hermes)
	}
	add("claude")
	if req := x.last(); len(req.RelatedFacts) != 0 {
		t.Errorf("claude's extraction was shown %+v, hermes's facts", req.RelatedFacts)
	}
	if got := r.get(t, hermes[0].ID); !got.Live() {
		t.Errorf("claude's write retired hermes's fact (%s, by %s)", got.RetiredHow, got.RetiredBy)
	}
	// The same agent saying it again still restates its own fact.
	add("hermes")
	if got := r.get(t, hermes[0].ID); got.Live() || got.RetiredHow != memory.RetiredRestated {
		t.Errorf("hermes's own fact said again: live %v, retired %q", got.Live(), got.RetiredHow)
	}
}

// An agent's write is shown the person's own facts (the agent recalls
// them) but cannot retire one: every agent would lose it to a row only
// this agent sees. The person's own write may replace an agent's fact.
func TestExtract_AnAgentSeesButCannotRetireThePersonsOwnFacts(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	ctx := context.Background()
	// write stores a turn of dana through agent, whose extraction plans
	// text, replacing the fact old (when set) if it was shown.
	write := func(agent, text string, old *memory.Memory) memory.ExtractRequest {
		t.Helper()
		x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
			f := memory.PlannedFact{Text: text, Label: memory.LabelProjectState}
			if old != nil {
				f.Replaces = []string{old.ID}
			}
			return memory.ExtractPlan{Facts: []memory.PlannedFact{f}}, nil
		})
		if _, err := r.svc.Add(ctx, memory.AddInput{Text: "USER: " + text, Owner: memory.Owner{UserID: "dana", AgentID: agent}}); err != nil {
			t.Fatal(err)
		}
		return x.last()
	}
	byText := func(text string) memory.Memory {
		t.Helper()
		for _, m := range r.live(t, memory.LayerFact, "dana") {
			if m.Content == text {
				return m
			}
		}
		t.Fatalf("no live fact %q", text)
		return memory.Memory{}
	}
	write("", "Dana lives in Berlin", nil)
	own := byText("Dana lives in Berlin")
	req := write("hermes", "Dana lives in Berlin Mitte", &own)
	if !slices.ContainsFunc(req.RelatedFacts, func(f memory.RelatedFact) bool { return f.ID == own.ID }) {
		t.Errorf("hermes was not shown the person's own fact: %+v", req.RelatedFacts)
	}
	if got := r.get(t, own.ID); !got.Live() {
		t.Errorf("hermes's write retired the person's own fact (%s)", got.RetiredHow)
	}
	agents := byText("Dana lives in Berlin Mitte")
	req = write("", "Dana lives in Berlin Mitte, near the park", &agents)
	if !slices.ContainsFunc(req.RelatedFacts, func(f memory.RelatedFact) bool { return f.ID == agents.ID }) {
		t.Fatalf("the person's own write was not shown hermes's fact: %+v", req.RelatedFacts)
	}
	if got := r.get(t, agents.ID); got.Live() || got.RetiredHow != memory.RetiredReplaced {
		t.Errorf("the person's own write did not replace hermes's fact: live %v, %q", got.Live(), got.RetiredHow)
	}
}
