package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestCrossTopicPass(t *testing.T) {
	cfg := consolidateCfg()
	cfg.Consolidate.CrossEvery = 24 * time.Hour
	r, c := newConsolidateRig(t, cfg)
	r.aliceFacts(t)
	var schemas []memory.Memory
	for _, s := range []struct{ text, topic, fact string }{
		{"Alice plans her week on Sundays", "c1", "f1"},
		{"Alice reviews code before lunch", "c1", "f2"},
		{"Alice runs along the river at dawn", "c2", "f3"},
		{"Alice cooks batch meals on weekends", "c2", "f4"},
	} {
		schemas = append(schemas, r.put(t, memory.Memory{Layer: memory.LayerSchema, Content: s.text,
			Owner: memory.Owner{UserID: "alice"}, SourceIDs: []string{s.fact}, Metadata: map[string]string{memory.MetaTopic: s.topic}}))
	}
	c.cross = func(req memory.CrossSchemaRequest) ([]memory.PlannedSchema, error) {
		return []memory.PlannedSchema{
			{Text: "Alice front-loads routine work to keep her days free", Evidence: []string{schemas[0].ID, schemas[3].ID, "m-invented"}},
			{Text: "Alice likes rivers", Evidence: []string{schemas[2].ID}},                             // one schema: not a pattern across
			{Text: "Alice plans her week on Sundays", Evidence: []string{schemas[0].ID, schemas[1].ID}}, // repeats a live one
		}, nil
	}
	rep := r.consolidate(t)
	if rep.CrossSchemas != 1 || len(c.crosses) != 1 || len(c.crosses[0].Schemas) != 4 {
		t.Fatalf("report %+v, %d cross calls", rep, len(c.crosses))
	}
	var cross []memory.Memory
	for _, m := range r.live(t, memory.LayerSchema, "alice") {
		if m.Metadata[memory.MetaCross] == "true" {
			cross = append(cross, m)
		}
	}
	if len(cross) != 1 || !slices.Equal(cross[0].SourceIDs, []string{"f1", "f4"}) {
		t.Fatalf("cross-topic schemas: %+v", cross)
	}
	for _, s := range schemas {
		if m := r.get(t, s.ID); !m.Live() || m.Content != s.Content {
			t.Fatalf("an existing schema changed: %+v", m)
		}
	}
	// At most once a day.
	r.consolidate(t)
	if len(c.crosses) != 1 {
		t.Fatalf("%d cross calls within a day", len(c.crosses))
	}
	r.advance(25 * time.Hour)
	r.consolidate(t)
	if len(c.crosses) != 2 {
		t.Fatalf("%d cross calls a day later", len(c.crosses))
	}
}

func TestCrossTopicNeedsSchemasFromTwoTopics(t *testing.T) {
	cfg := consolidateCfg()
	cfg.Consolidate.CrossEvery = 24 * time.Hour
	r, c := newConsolidateRig(t, cfg)
	r.aliceFacts(t)
	for _, text := range []string{"one pattern", "two patterns", "three patterns", "four patterns"} {
		r.put(t, memory.Memory{Layer: memory.LayerSchema, Content: text, Owner: memory.Owner{UserID: "alice"},
			Metadata: map[string]string{memory.MetaTopic: "c1"}})
	}
	r.consolidate(t)
	if len(c.crosses) != 0 {
		t.Fatal("a cross-topic call for schemas of one topic")
	}
}

func TestRawRetention(t *testing.T) {
	cfg := consolidateCfg()
	cfg.Consolidate.RawRetention = 48 * time.Hour
	r, c := newConsolidateRig(t, cfg)
	f := r.aliceFacts(t)
	c.set(reply(memory.ConsolidatePlan{Edges: []memory.PlannedEdge{{From: "Alice", To: "Globex", Relation: "works at",
		Evidence: []string{f.job1.ID, f.job2.ID}}}}))
	uncited := r.turn(t, "hello there", "alice")
	// Never distilled, so kept however old: waiting for extraction, given
	// up on (waiting for reprocess), written in lite mode.
	var undistilled []string
	for _, st := range []memory.ExtractState{memory.ExtractPending, memory.ExtractFailed, memory.ExtractSkipped} {
		m := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "not extracted: " + string(st), Owner: memory.Owner{UserID: "alice"}})
		if err := r.store.SetExtraction(context.Background(), m.ID, st, 0, ""); err != nil {
			t.Fatal(err)
		}
		undistilled = append(undistilled, m.ID)
	}
	rep := r.consolidate(t)
	if rep.PrunedRaw != 0 {
		t.Fatalf("young rows pruned: %+v", rep)
	}
	// Dropping chat leaves its turn uncited; retiring job1 leaves its turn
	// cited only by the relation (job2 still holds it).
	if _, err := r.svc.Retire(context.Background(), f.job1.ID, memory.RetireInput{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	c.set(reply(memory.ConsolidatePlan{Drops: []memory.PlannedDrop{{ID: f.chat.ID, Reason: "small talk"}}}))
	r.fact(t, "Alice reads before bed", "alice", r.turn(t, "books", "alice"), time.Time{})
	r.advance(72 * time.Hour)
	rep = r.consolidate(t)
	// Kept: the two job turns (the relation), the two tea turns and the
	// books turn (live facts) and the three undistilled rows; gone: hello
	// and the dropped chat's turn.
	if rep.PrunedRaw != 2 || rep.ProtectedRaw != 8 {
		t.Fatalf("report %+v", rep)
	}
	for _, id := range []string{uncited.ID, f.chat.SourceIDs[0]} {
		if _, err := r.store.Get(context.Background(), id); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("%s not deleted: %v", id, err)
		}
	}
	for _, id := range append(undistilled, f.job1.SourceIDs[0], f.tea1.SourceIDs[0]) {
		if _, err := r.store.Get(context.Background(), id); err != nil {
			t.Errorf("%s deleted: %v", id, err)
		}
	}
}

// crossRig is an ultra rig with cross-topic passes once a day and four of
// Alice's patterns from two topics, so every pass may make the call.
func crossRig(t *testing.T) (*rig, *scriptedConsolidator) {
	t.Helper()
	cfg := consolidateCfg()
	cfg.Consolidate.CrossEvery = 24 * time.Hour
	r, c := newConsolidateRig(t, cfg)
	r.aliceFacts(t)
	for i, text := range []string{"Alice plans her week on Sundays", "Alice reviews code before lunch",
		"Alice runs along the river at dawn", "Alice cooks batch meals on weekends"} {
		r.put(t, memory.Memory{Layer: memory.LayerSchema, Content: text, Owner: memory.Owner{UserID: "alice"},
			Metadata: map[string]string{memory.MetaTopic: []string{"c1", "c2"}[i/2]}})
	}
	return r, c
}

// A cross-topic call that went out and failed waits CrossEvery as a
// successful one does; one the endpoint refused before anything was
// looked at (ErrEndpointDown) is asked again on the next pass.
func TestConsolidate_FailedCrossTopicCallWaits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		calls int // after two passes
	}{
		{"its own call timed out", fmt.Errorf("timeout: %w", memory.ErrProvider), 1},
		{"an unreadable reply", fmt.Errorf("twice: %w", memory.ErrUnparseable), 1},
		{"the endpoint is down for any request", fmt.Errorf("no connection: %w", memory.ErrEndpointDown), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, c := crossRig(t)
			c.cross = func(memory.CrossSchemaRequest) ([]memory.PlannedSchema, error) { return nil, tc.err }
			r.consolidate(t)
			r.advance(time.Hour)
			r.consolidate(t)
			if len(c.crosses) != tc.calls {
				t.Fatalf("%d cross-topic calls in two passes an hour apart, want %d", len(c.crosses), tc.calls)
			}
			r.advance(25 * time.Hour)
			r.consolidate(t)
			if len(c.crosses) != tc.calls+1 {
				t.Fatalf("%d cross-topic calls a day later, want %d", len(c.crosses), tc.calls+1)
			}
		})
	}
}

// A snapshot restored while the cross-topic call runs keeps the topics it
// brought back: the pass does not save the owner's clusters as it read
// them before the restore (with the call's time) over the restored ones.
func TestConsolidate_CrossTopicKeepsARestoreDuringTheCall(t *testing.T) {
	r, c := crossRig(t)
	ctx := context.Background()
	restored := memory.OwnerClusters{NextSeq: 99} // the snapshot's topics
	c.cross = func(memory.CrossSchemaRequest) ([]memory.PlannedSchema, error) {
		r.restoreSnapshot(t, func(ctx context.Context) error {
			all, err := r.store.AllClusters(ctx)
			for _, o := range all {
				err = errors.Join(err, r.store.SaveClusters(ctx, o.Owner, restored))
			}
			return err
		})
		return nil, nil
	}
	r.consolidate(t)
	if len(c.crosses) != 1 {
		t.Fatalf("%d cross-topic calls, want 1", len(c.crosses))
	}
	all, err := r.store.AllClusters(ctx)
	if err != nil || len(all) == 0 {
		t.Fatalf("clusters: %+v, %v", all, err)
	}
	for _, o := range all {
		if o.State.NextSeq != restored.NextSeq || len(o.State.Clusters) != 0 || !o.State.CrossAt.IsZero() {
			t.Errorf("owner %s: clusters after the restore %+v, want the snapshot's %+v", o.Owner, o.State, restored)
		}
	}
}
