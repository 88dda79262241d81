package memory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestHousekeep_EpisodeSummaryAndNowPage(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.NowEvery = time.Hour
	r, x := newExtractRig(t, cfg)
	x.set(plan(memory.ExtractPlan{
		Facts:      []memory.PlannedFact{{Text: "Foxtrot billing migrates to Postgres 16", Label: "project_state"}},
		Intentions: []memory.PlannedIntention{{Goal: "Finish the Foxtrot migration"}},
	}))
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		return string(req.Kind) + " summary of " + strings.Join(req.Texts, " | "), nil
	}
	ctx := context.Background()
	r.write(t, "starting the Foxtrot migration", "u1")
	r.write(t, "the Foxtrot migration is half done", "u1")

	res, err := r.svc.Housekeep(ctx)
	if err != nil || res.Episodes != 0 || res.NowPages != 1 {
		t.Fatalf("first pass: %+v %v, want no episode (still open) and one Now page", res, err)
	}
	now := r.live(t, memory.LayerSummary, "u1")
	if len(now) != 1 || now[0].Category != memory.CategoryNow || !strings.Contains(now[0].Content, "Open goal: Finish the Foxtrot migration") {
		t.Fatalf("Now page = %+v", now)
	}
	got, err := r.svc.Search(ctx, memory.SearchInput{Query: "Foxtrot migration", UserIDs: []string{"u1"}, MinScore: f64(0)})
	if err != nil || got.Now == nil || got.Now.ID != now[0].ID {
		t.Fatalf("search Now = %+v %v", got.Now, err)
	}
	for _, h := range got.Hits {
		if h.Memory.Category == memory.CategoryNow {
			t.Error("the Now page is also listed as a hit")
		}
	}

	// A later write marks the page stale, but it is rebuilt at most once an hour.
	r.write(t, "Foxtrot migration blocked on a lock timeout", "u1")
	if res, _ := r.svc.Housekeep(ctx); res.NowPages != 0 {
		t.Fatalf("Now page rebuilt before NowEvery: %+v", res)
	}
	r.clock.mu.Lock()
	r.clock.now = r.clock.now.Add(2 * time.Hour) // the episode ended; the page may be rebuilt
	r.clock.mu.Unlock()
	res, err = r.svc.Housekeep(ctx)
	if err != nil || res.Episodes != 1 || res.NowPages != 1 {
		t.Fatalf("second pass: %+v %v, want one episode summary and one Now page", res, err)
	}
	var episode, page []memory.Memory
	for _, m := range r.live(t, memory.LayerSummary, "u1") {
		switch m.Category {
		case memory.CategoryEpisode:
			episode = append(episode, m)
		case memory.CategoryNow:
			page = append(page, m)
		}
	}
	if len(episode) != 1 || len(episode[0].SourceIDs) != 3 || !strings.Contains(episode[0].Content, "lock timeout") {
		t.Fatalf("episode summaries = %+v", episode)
	}
	if len(page) != 1 || page[0].ID == now[0].ID {
		t.Fatalf("Now pages = %+v", page)
	}
	if old := r.get(t, now[0].ID); old.RetiredHow != memory.RetiredReplaced || old.RetiredBy != page[0].ID {
		t.Errorf("old Now page: %+v", old)
	}
	if res, _ := r.svc.Housekeep(ctx); res.Episodes != 0 {
		t.Errorf("an episode was summarised twice: %+v", res)
	}
}

// An agent ending its session (Hermes's on_session_end) closes the episode
// at once: the next pass summarises it without waiting for the idle gap.
func TestEndSession_ClosesTheEpisodeNow(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Kestrel ships on Fridays", Label: "project_state"}}}))
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		return "summary of " + strings.Join(req.Texts, " | "), nil
	}
	ctx := context.Background()
	r.write(t, "Kestrel release planning", "u1")
	if _, err := r.svc.Add(ctx, memory.AddInput{Text: "Kestrel ships on Fridays from now on", Owner: memory.Owner{UserID: "u1"}, SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if res, _ := r.svc.Housekeep(ctx); res.Episodes != 0 {
		t.Fatalf("an open episode was summarised: %+v", res)
	}
	if closed, err := r.svc.EndSession(ctx, memory.Owner{UserID: "u2"}, ""); err != nil || closed {
		t.Fatalf("another owner's session end: %v %v", closed, err)
	}
	// A session the episode holds no write of (mistyped, or long gone) ends nothing.
	if closed, err := r.svc.EndSession(ctx, memory.Owner{UserID: "u1"}, "zzz-unknown"); err != nil || closed {
		t.Fatalf("an unknown session closed the episode: %v %v", closed, err)
	}
	if res, _ := r.svc.Housekeep(ctx); res.Episodes != 0 {
		t.Fatalf("the episode was summarised after an unknown session's end: %+v", res)
	}
	if closed, err := r.svc.EndSession(ctx, memory.Owner{UserID: "u1"}, "s1"); err != nil || !closed {
		t.Fatalf("end session: %v %v", closed, err)
	}
	if res, err := r.svc.Housekeep(ctx); err != nil || res.Episodes != 1 {
		t.Fatalf("after the session ended: %+v %v, want its episode summarised", res, err)
	}
	if closed, _ := r.svc.EndSession(ctx, memory.Owner{UserID: "u1"}, ""); closed {
		t.Error("a second session end closed something")
	}
}

func TestReconcile_UpdateSupersedeLink(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.Reconcile = true
	cfg.Extraction.DedupeScore = 0
	r, x := newExtractRig(t, cfg)
	ctx := context.Background()
	olds := map[string]string{}
	for _, text := range []string{"Team standup is at 9 on Monday", "Team standup is held in room B", "Team standup uses the Zoom link"} {
		x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: text, Label: "project_state"}}}))
		r.write(t, "note "+text, "u1")
		for _, m := range r.live(t, memory.LayerFact, "u1") {
			olds[m.Content] = m.ID
		}
	}
	var asked []memory.ReconcilePair
	x.reconcile = func(pairs []memory.ReconcilePair) ([]memory.ReconcileDecision, error) {
		asked = pairs
		var out []memory.ReconcileDecision
		for _, p := range pairs {
			act := map[string]memory.ReconcileAction{
				"Team standup is at 9 on Monday":  memory.ReconcileUpdate,
				"Team standup is held in room B":  memory.ReconcileSupersede,
				"Team standup uses the Zoom link": memory.ReconcileLink,
			}[p.OldText]
			out = append(out, memory.ReconcileDecision{NewID: p.NewID, OldID: p.OldID, Action: act})
		}
		out = append(out, memory.ReconcileDecision{NewID: "m-invented", OldID: olds["Team standup uses the Zoom link"], Action: memory.ReconcileSupersede})
		return out, nil
	}
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Team standup is at 9 on Monday in room C", Label: "project_state"}}}))
	r.write(t, "standup moved to room C", "u1")
	if len(asked) != 3 {
		t.Fatalf("reconcile asked about %d pairs, want the similar facts", len(asked))
	}
	newID := asked[0].NewID
	checks := map[string]memory.RetireHow{
		"Team standup is at 9 on Monday": memory.RetiredUpdated,
		"Team standup is held in room B": memory.RetiredReplaced,
	}
	for _, p := range asked {
		want, retired := checks[p.OldText]
		got := r.get(t, p.OldID)
		if retired && (got.RetiredHow != want || got.RetiredBy != newID) {
			t.Errorf("%q: how %q by %q, want %s by %s", p.OldText, got.RetiredHow, got.RetiredBy, want, newID)
		}
		if !retired && !got.Live() {
			t.Errorf("%q was retired; LINK and invented ids must keep it", p.OldText)
		}
	}
	if r.get(t, newID).Metadata[memory.MetaCount] != "2" {
		t.Errorf("UPDATE did not count the repeat: %+v", r.get(t, newID).Metadata)
	}
	d, err := r.svc.Get(ctx, newID)
	if err != nil || len(d.Linked) != 1 || d.Linked[0].Content != "Team standup uses the Zoom link" {
		t.Errorf("linked rows = %+v %v, want the Zoom fact", d.Linked, err)
	}
}
