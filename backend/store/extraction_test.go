package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestApply_AllOrNothingAndStaleRaw(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s,
		row("raw1", "a write", extraction(memory.ExtractPending)),
		row("edited", "a write, edited since", extraction(memory.ExtractPending)),
		row("old", "an old fact", inLayer(memory.LayerFact)),
		row("gone-before", "retired before", inLayer(memory.LayerFact)))
	retire(t, s, "gone-before")
	at := t0.Add(time.Minute)
	c := memory.Changes{
		Extracted: "raw1", ExtractedContent: "a write",
		Insert: []memory.NewRow{row("new", "a new fact", inLayer(memory.LayerFact))},
		Retire: []memory.RowRetirement{
			{ID: "old", Retirement: memory.Retirement{How: memory.RetiredReplaced, By: "new", At: at}},
			{ID: "gone-before", Retirement: memory.Retirement{How: memory.RetiredReplaced, By: "new", At: at}},
			{ID: "never-existed", Retirement: memory.Retirement{How: memory.RetiredReplaced, By: "new", At: at}},
		},
		Links: []memory.Link{{A: "new", B: "old", Kind: "related", At: at}},
	}
	if _, err := s.Apply(ctx, c); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if m := mustGet(t, s, "raw1"); m.Extraction != memory.ExtractDone {
		t.Errorf("raw row state %s, want done", m.Extraction)
	}
	if m := mustGet(t, s, "old"); m.RetiredHow != memory.RetiredReplaced || m.RetiredBy != "new" {
		t.Errorf("old: %+v", m)
	}
	if m := mustGet(t, s, "gone-before"); m.RetiredHow != memory.RetiredDropped {
		t.Errorf("an already retired row was retired again: %+v", m)
	}
	if ids, err := s.Linked(ctx, "old"); err != nil || !slices.Equal(ids, []string{"new"}) {
		t.Errorf("Linked(old) = %v %v", ids, err)
	}

	// The same raw row again (extracted now), a deleted one, or one whose
	// text was edited while the model read it: nothing applies.
	for raw, read := range map[string]string{"raw1": "a write", "deleted": "a write", "edited": "a write"} {
		c := memory.Changes{Extracted: raw, ExtractedContent: read, Insert: []memory.NewRow{row("extra-"+raw, "x", inLayer(memory.LayerFact))}}
		if _, err := s.Apply(ctx, c); !errors.Is(err, memory.ErrStaleExtraction) {
			t.Fatalf("Apply for %s: %v, want ErrStaleExtraction", raw, err)
		}
		if _, err := s.Get(ctx, "extra-"+raw); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("a stale extraction inserted a row: %v", err)
		}
	}
}

func TestPendingAndRequeue(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s,
		row("p1", "one", extraction(memory.ExtractPending), createdAt(t0)),
		row("p2", "two", extraction(memory.ExtractPending), createdAt(t0.Add(time.Hour))),
		row("p3", "three", extraction(memory.ExtractPending), createdAt(t0.Add(2*time.Hour))),
		row("f1", "failed", extraction(memory.ExtractFailed), createdAt(t0.Add(3*time.Hour))),
		row("lite", "lite", extraction(memory.ExtractSkipped), createdAt(t0.Add(4*time.Hour))),
		row("done", "done", extraction(memory.ExtractDone), createdAt(t0.Add(5*time.Hour))),
		row("fact", "fact", inLayer(memory.LayerFact), createdAt(t0.Add(6*time.Hour))))
	if err := s.SetExtraction(ctx, "p2", memory.ExtractPending, 3, "unreadable"); err != nil {
		t.Fatal(err)
	}
	got, err := s.PendingExtraction(ctx, t0.Add(time.Minute), t0.Add(3*time.Hour), memory.MaxExtractTries, 10)
	if err != nil || !slices.Equal(got, []string{"p3"}) {
		t.Errorf("window [t0+1m, t0+3h], under 3 tries: %v %v, want [p3]", got, err)
	}
	if got, _ = s.PendingExtraction(ctx, time.Time{}, time.Time{}, 5, 2); !slices.Equal(got, []string{"p1", "p2"}) {
		t.Errorf("unbounded, limit 2: %v", got)
	}

	ids, err := s.RequeueExtraction(ctx, nil, 3, time.Now())
	if err != nil || !slices.Equal(ids, []string{"p1", "p2", "p3"}) {
		t.Fatalf("requeue the oldest 3: %v %v", ids, err)
	}
	if m := mustGet(t, s, "p2"); m.ExtractTries != 0 || m.ExtractError != "" {
		t.Errorf("p2 not reset: %+v", m)
	}
	if m := mustGet(t, s, "f1"); m.Extraction != memory.ExtractFailed {
		t.Errorf("max 3 requeued a fourth row: %s", m.Extraction)
	}
	ids, _ = s.RequeueExtraction(ctx, nil, 0, time.Now())
	if !slices.Equal(ids, []string{"p1", "p2", "p3", "f1", "lite"}) {
		t.Errorf("requeue all not extracted: %v", ids)
	}
	ids, _ = s.RequeueExtraction(ctx, []string{"done", "fact", "nope"}, 0, time.Now())
	if !slices.Equal(ids, []string{"done"}) || mustGet(t, s, "done").Extraction != memory.ExtractPending {
		t.Errorf("requeue by id: %v", ids)
	}
}

// TestRequeuedRowsCountFromWhenAsked: a row older than the catch-up's age
// limit that was asked for again (reprocess) is listed while the request
// is within the limit, so a restart or a failed call before its
// extraction does not forget it.
func TestRequeuedRowsCountFromWhenAsked(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	now := t0.Add(30 * 24 * time.Hour)
	insert(t, s,
		row("old", "a turn from lite mode", extraction(memory.ExtractSkipped), createdAt(t0)),
		row("stale", "an old pending turn", extraction(memory.ExtractPending), createdAt(t0)))
	from := now.Add(-7 * 24 * time.Hour) // HYATLAS_CATCHUP_MAX_AGE
	if got, _ := s.PendingExtraction(ctx, from, now, memory.MaxExtractTries, 10); len(got) != 0 {
		t.Fatalf("rows older than the limit listed before any request: %v", got)
	}
	if ids, err := s.RequeueExtraction(ctx, []string{"old"}, 0, now); err != nil || !slices.Equal(ids, []string{"old"}) {
		t.Fatalf("requeue: %v %v", ids, err)
	}
	if got, _ := s.PendingExtraction(ctx, from, now, memory.MaxExtractTries, 10); !slices.Equal(got, []string{"old"}) {
		t.Errorf("after the request: %v, want [old] (and not stale, never asked for)", got)
	}
	if got, _ := s.PendingExtraction(ctx, from.Add(8*24*time.Hour), now.Add(8*24*time.Hour), memory.MaxExtractTries, 10); len(got) != 0 {
		t.Errorf("past the limit after the request too: %v, want none", got)
	}
}

func TestEpisodes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	alice, bob := memory.Owner{UserID: "alice"}, memory.Owner{UserID: "bob", AgentID: "hermes"}
	gap := 30 * time.Minute
	for _, w := range []struct {
		o  memory.Owner
		at time.Duration
	}{{alice, 0}, {alice, 10 * time.Minute}, {bob, 15 * time.Minute}, {alice, 35 * time.Minute}, {alice, 2 * time.Hour}} {
		if err := s.TouchEpisode(ctx, w.o, t0.Add(w.at), gap); err != nil {
			t.Fatal(err)
		}
	}
	// alice's first episode (0-35m) closed when the 2h write came; bob's
	// and alice's second are open until idle.
	due, err := s.DueEpisodes(ctx, t0)
	if err != nil || len(due) != 1 || due[0].Owner != alice || due[0].Writes != 3 || !due[0].LastAt.Equal(t0.Add(35*time.Minute).Truncate(time.Millisecond)) {
		t.Fatalf("due = %+v %v", due, err)
	}
	due, _ = s.DueEpisodes(ctx, t0.Add(3*time.Hour))
	if len(due) != 3 {
		t.Fatalf("after everyone went idle: %+v", due)
	}
	if err := s.SetEpisodeSummary(ctx, due[0].Seq, "m-summary"); err != nil {
		t.Fatal(err)
	}
	if due, _ = s.DueEpisodes(ctx, t0.Add(3*time.Hour)); len(due) != 2 || due[0].Owner != bob {
		t.Errorf("a summarised episode is still due: %+v", due)
	}
	// A summary applied with its episode marks it in the same commit (a
	// crash in between would have it summarised twice); a failed apply
	// leaves it due.
	bad := memory.Changes{Insert: []memory.NewRow{row("sum-bad", "half a summary"), row("sum-bad", "the same id again")}, Episode: due[0].Seq}
	if _, err := s.Apply(ctx, bad); err == nil {
		t.Fatal("an apply with a duplicated id went through")
	}
	if again, _ := s.DueEpisodes(ctx, t0.Add(3*time.Hour)); len(again) != 2 {
		t.Errorf("a failed summary marked its episode: %+v", again)
	}
	if _, err := s.Apply(ctx, memory.Changes{Insert: []memory.NewRow{row("sum-bob", "bob's summary")}, Episode: due[0].Seq}); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.DueEpisodes(ctx, t0.Add(3*time.Hour)); len(again) != 1 || again[0].Seq == due[0].Seq {
		t.Errorf("the episode a summary was applied with is still due: %+v", again)
	}
}

func TestEgressLedger(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	for i, outcome := range []string{"http_error", "ok"} {
		if err := s.AddEgress(ctx, memory.EgressCall{At: t0.Add(time.Duration(i) * time.Second), Host: "llm.test",
			Model: "m", Purpose: "extract", BytesOut: 100 + i, BytesIn: 7, Status: 200, Outcome: outcome, Duration: 12}); err != nil {
			t.Fatal(err)
		}
	}
	calls, err := s.ListEgress(ctx, 10)
	if err != nil || len(calls) != 2 || calls[0].Outcome != "ok" || calls[1].BytesOut != 100 || calls[0].Host != "llm.test" {
		t.Fatalf("ledger = %+v %v", calls, err)
	}
	if calls, _ = s.ListEgress(ctx, 1); len(calls) != 1 {
		t.Errorf("limit 1 gave %d", len(calls))
	}
}
