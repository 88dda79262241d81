package memory_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// restoreSnapshot replaces the rig's store as a snapshot restore does,
// with change run on the store while writes wait (nil: the snapshot holds
// the same data, and still nothing read before it may land after it).
func (r *rig) restoreSnapshot(t *testing.T, change func(context.Context) error) {
	t.Helper()
	if change == nil {
		change = func(context.Context) error { return nil }
	}
	err := r.svc.ReplaceStore(context.Background(), change, r.index, r.svc.EmbedderInfo().ID,
		func(context.Context) (memory.VectorIndex, error) { return r.index, nil })
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
}

// An extraction whose model call spans a restore promotes nothing: the
// facts it worked out belong to the data before. A write the snapshot
// also holds is still queued and is extracted again; one it lacks stays
// gone, with no fact of it.
func TestExtract_NothingLandsAcrossARestore(t *testing.T) {
	for _, tc := range []struct {
		name          string
		snapshotHasIt bool
	}{
		{"the snapshot holds the write", true},
		{"the snapshot lacks the write", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := extractCfg()
			cfg.Extraction.Sync = false // queued: the test runs the extraction
			r, x := newExtractRig(t, cfg)
			ctx := context.Background()
			fact := memory.PlannedFact{Text: "The user keeps bees on the allotment", Label: memory.LabelUserPreferences}
			var raw memory.Memory
			x.set(func(memory.ExtractRequest) (memory.ExtractPlan, error) {
				r.restoreSnapshot(t, func(ctx context.Context) error {
					if tc.snapshotHasIt {
						return nil
					}
					_, _, err := r.store.Delete(ctx, memory.DeleteFilter{IDs: []string{raw.ID}})
					return err
				})
				return memory.ExtractPlan{Facts: []memory.PlannedFact{fact}}, nil
			})
			res, err := r.svc.Add(ctx, memory.AddInput{Text: "USER: I keep bees on the allotment", Owner: memory.Owner{UserID: "u1"}})
			if err != nil {
				t.Fatal(err)
			}
			raw = res.Memory
			st, err := r.svc.ExtractOne(ctx, raw.ID)
			if err != nil {
				t.Fatalf("extract across a restore: %v", err)
			}
			if got := r.live(t, memory.LayerFact, "u1"); len(got) != 0 {
				t.Fatalf("facts after a restore during the call: %+v", got)
			}
			if !tc.snapshotHasIt {
				if st != memory.StatusSkipped {
					t.Errorf("status %s, want skipped", st)
				}
				return
			}
			if st != memory.StatusPending || r.get(t, raw.ID).Extraction != memory.ExtractPending || r.get(t, raw.ID).ExtractTries != 0 {
				t.Fatalf("status %s, row %+v: want still queued, no try counted", st, r.get(t, raw.ID))
			}
			x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{fact}}))
			if st, err := r.svc.ExtractOne(ctx, raw.ID); err != nil || st != memory.StatusDone {
				t.Fatalf("extracting again: %s, %v", st, err)
			}
			if got := r.live(t, memory.LayerFact, "u1"); len(got) != 1 || got[0].Content != fact.Text {
				t.Fatalf("facts after extracting again: %+v", got)
			}
		})
	}
}

// A consolidation pass whose call spans a restore writes nothing into the
// restored data (no merge, drop, schema, relation, arc, nor the cluster's
// progress), charges the cluster no failure, and the next pass runs it.
func TestConsolidate_NothingLandsAcrossARestore(t *testing.T) {
	r, c := newConsolidateRig(t, consolidateCfg())
	f := r.aliceFacts(t)
	good := f.goodPlan()
	c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		r.restoreSnapshot(t, nil)
		return good, nil
	})
	rep := r.consolidate(t)
	if rep.Merged+rep.Dropped+rep.Schemas+rep.Edges+rep.Arc != 0 || rep.ClustersPending != 1 {
		t.Fatalf("report after a restore during the call: %+v", rep)
	}
	if !slices.ContainsFunc(rep.Errors, func(e string) bool { return strings.Contains(e, "restored") }) {
		t.Errorf("the report does not say why: %q", rep.Errors)
	}
	for _, m := range []memory.Memory{f.tea1, f.tea2, f.chat} {
		if !r.get(t, m.ID).Live() {
			t.Errorf("%q was retired by a plan from before the restore", m.Content)
		}
	}
	for _, l := range []memory.Layer{memory.LayerSchema, memory.LayerKnowledge, memory.LayerSummary} {
		if got := r.live(t, l, "alice"); len(got) != 0 {
			t.Errorf("%s rows written across the restore: %+v", l, got)
		}
	}
	if view, err := r.svc.GraphAsOf(context.Background(), memory.GraphQuery{UserID: "alice"}); err != nil || len(view.Edges) != 0 {
		t.Errorf("graph after the restore: %+v, %v", view, err)
	}

	c.set(reply(good))
	rep = r.consolidate(t)
	if c.calls() != 2 || rep.ClustersRun != 1 || rep.Merged != 2 || rep.Dropped != 1 || rep.Schemas != 1 || rep.Arc != 1 {
		t.Fatalf("the next pass: %d calls, report %+v", c.calls(), rep)
	}
}

// An episode summary or Now page whose model call spans a restore is not
// written; the episode stays due and the page out of date, and the next
// pass writes both from the restored data.
func TestHousekeep_NothingLandsAcrossARestore(t *testing.T) {
	cfg := extractCfg()
	cfg.Extraction.NowEvery = time.Hour
	r, x := newExtractRig(t, cfg)
	x.set(plan(memory.ExtractPlan{Intentions: []memory.PlannedIntention{{Goal: "Finish the Foxtrot migration"}}}))
	ctx := context.Background()
	r.write(t, "starting the Foxtrot migration", "u1")
	r.write(t, "the Foxtrot migration is half done", "u1")
	r.advance(2 * time.Hour) // the episode ended
	restores := 0
	x.summarize = func(req memory.SummaryRequest) (string, error) {
		if restores < 2 {
			restores++
			r.restoreSnapshot(t, nil)
		}
		return string(req.Kind) + " summary", nil
	}
	res, err := r.svc.Housekeep(ctx)
	if !errors.Is(err, memory.ErrStoreReplaced) || res.Episodes != 0 || res.NowPages != 0 {
		t.Fatalf("a pass across restores: %+v, %v", res, err)
	}
	if got := r.live(t, memory.LayerSummary, "u1"); len(got) != 0 {
		t.Fatalf("summaries written across a restore: %+v", got)
	}
	res, err = r.svc.Housekeep(ctx)
	if err != nil || res.Episodes != 1 || res.NowPages != 1 {
		t.Fatalf("the next pass: %+v, %v; want the episode and the page", res, err)
	}
}
