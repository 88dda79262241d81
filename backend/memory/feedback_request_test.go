package memory_test

import (
	"context"
	"testing"

	"hyatlas/backend/memory"
)

// TestFeedback_ARequestSentAgainCountsOnce: a feedback call sent again under
// its request id (its answer was lost) gets the first answer and counts
// nothing more; the same id on other memories is a conflict that counts
// nothing; past FeedbackRequestKeep the id is forgotten; a call without an
// id counts every time.
func TestFeedback_ARequestSentAgainCountsOnce(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	a := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Prefers tea"})
	b := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Lives in Lyon"})
	uses := func() (int, int) { return r.get(t, a.ID).UseCount, r.get(t, b.ID).UseCount }
	steps := []struct {
		name      string
		in        memory.FeedbackInput
		wantN     int
		wantCode  memory.Code
		wantA     int
		wantB     int
		advanceBy bool
	}{
		{name: "first call", in: memory.FeedbackInput{Used: []string{a.ID, b.ID}, RequestID: "r1"}, wantN: 2, wantA: 1, wantB: 1},
		{name: "sent again", in: memory.FeedbackInput{Used: []string{a.ID, b.ID}, RequestID: "r1"}, wantN: 2, wantA: 1, wantB: 1},
		{name: "sent again, ids in another order", in: memory.FeedbackInput{Used: []string{b.ID, a.ID, b.ID}, RequestID: "r1"}, wantN: 2, wantA: 1, wantB: 1},
		{name: "same id, other memories", in: memory.FeedbackInput{Used: []string{a.ID}, RequestID: "r1"}, wantCode: memory.ECONFLICT, wantA: 1, wantB: 1},
		{name: "another id", in: memory.FeedbackInput{Used: []string{a.ID}, RequestID: "r2"}, wantN: 1, wantA: 2, wantB: 1},
		{name: "no id", in: memory.FeedbackInput{Used: []string{a.ID}}, wantN: 1, wantA: 3, wantB: 1},
		{name: "no id again", in: memory.FeedbackInput{Used: []string{a.ID}}, wantN: 1, wantA: 4, wantB: 1},
		{name: "an id with a control character", in: memory.FeedbackInput{Used: []string{a.ID}, RequestID: "r\x01"}, wantCode: memory.EINVALID, wantA: 4, wantB: 1},
		{name: "first id, long after", in: memory.FeedbackInput{Used: []string{a.ID, b.ID}, RequestID: "r1"}, advanceBy: true, wantN: 2, wantA: 5, wantB: 2},
	}
	for _, s := range steps {
		if s.advanceBy {
			r.advance(memory.FeedbackRequestKeep + 1)
		}
		n, err := r.svc.Feedback(ctx, s.in)
		if memory.ErrorCode(err) != s.wantCode || (err == nil && n != s.wantN) {
			t.Fatalf("%s: counted %d, %v; want %d, code %q", s.name, n, err, s.wantN, s.wantCode)
		}
		if ua, ub := uses(); ua != s.wantA || ub != s.wantB {
			t.Fatalf("%s: uses %d and %d, want %d and %d", s.name, ua, ub, s.wantA, s.wantB)
		}
	}
}

// TestFeedback_ASendAgainAfterADeleteGetsItsFirstAnswer: a feedback call
// whose answer was lost, sent again after one of its memories was deleted,
// answers as it did the first time and counts nothing; a new call naming
// the deleted memory is still a 404, and so is one under an unknown id.
func TestFeedback_ASendAgainAfterADeleteGetsItsFirstAnswer(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	a := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Prefers tea"})
	b := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Lives in Lyon"})
	if n, err := r.svc.Feedback(ctx, memory.FeedbackInput{Used: []string{a.ID, b.ID}, RequestID: "r1"}); err != nil || n != 2 {
		t.Fatalf("first call: %d, %v", n, err)
	}
	if err := r.svc.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name     string
		in       memory.FeedbackInput
		wantN    int
		wantCode memory.Code
	}{
		{name: "sent again", in: memory.FeedbackInput{Used: []string{a.ID, b.ID}, RequestID: "r1"}, wantN: 2},
		{name: "same id, other memories", in: memory.FeedbackInput{Used: []string{b.ID}, RequestID: "r1"}, wantCode: memory.ECONFLICT},
		{name: "a new id", in: memory.FeedbackInput{Used: []string{a.ID, b.ID}, RequestID: "r2"}, wantCode: memory.ENOTFOUND},
		{name: "no id", in: memory.FeedbackInput{Used: []string{a.ID, b.ID}}, wantCode: memory.ENOTFOUND},
	}
	for _, s := range steps {
		n, err := r.svc.Feedback(ctx, s.in)
		if memory.ErrorCode(err) != s.wantCode || (err == nil && n != s.wantN) {
			t.Errorf("%s: counted %d, %v; want %d, code %q", s.name, n, err, s.wantN, s.wantCode)
		}
		if got := r.get(t, a.ID).UseCount; got != 1 {
			t.Fatalf("%s: a used %d times, want 1", s.name, got)
		}
	}
	// "a new id" recorded nothing: sent again later, once b is known, it is new.
	if n, err := r.svc.Feedback(ctx, memory.FeedbackInput{Used: []string{a.ID}, RequestID: "r2"}); err != nil || n != 1 {
		t.Fatalf("r2 after the 404: %d, %v; want a first count", n, err)
	}
}

// TestFeedback_OnARetiredMemoryCountsForTheVersionThatReplacedIt: a reply
// may name a memory that was replaced since it was recalled; the use
// counts for the live row that replaced it (following retired_by, over
// several versions), never for the hidden old one; a memory retired with
// nothing replacing it (forgotten, dropped) counts nothing and is no error.
// Naming an old version and its live one counts the live one once.
func TestFeedback_OnARetiredMemoryCountsForTheVersionThatReplacedIt(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	v15 := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Foxtrot uses Postgres 15"})
	v16 := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Foxtrot uses Postgres 16"})
	v17 := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Foxtrot uses Postgres 17"})
	gone := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Lives in Lyon"})
	for _, s := range []struct {
		id string
		in memory.RetireInput
	}{
		{v15.ID, memory.RetireInput{How: "replaced", By: v16.ID}},
		{v16.ID, memory.RetireInput{How: "replaced", By: v17.ID}},
		{gone.ID, memory.RetireInput{How: "forgotten"}},
	} {
		if _, err := r.svc.Retire(ctx, s.id, s.in); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		used []string
		want int // counted
		uses int // v17's uses after
	}{
		{"the first version", []string{v15.ID}, 1, 1},
		{"the one in between", []string{v16.ID}, 1, 2},
		{"an old version and the live one", []string{v15.ID, v17.ID}, 1, 3},
		{"a memory forgotten", []string{gone.ID}, 0, 3},
	} {
		n, err := r.svc.Feedback(ctx, memory.FeedbackInput{Used: c.used})
		if err != nil || n != c.want {
			t.Errorf("%s: counted %d, %v; want %d", c.name, n, err, c.want)
		}
		if got := r.get(t, v17.ID).UseCount; got != c.uses {
			t.Errorf("%s: the live version has %d uses, want %d", c.name, got, c.uses)
		}
	}
	for _, old := range []memory.Memory{v15, v16, gone} {
		if got := r.get(t, old.ID); got.UseCount != 0 || got.Strength != old.Strength {
			t.Errorf("the retired %q: %d uses, strength %v; want it untouched", old.Content, got.UseCount, got.Strength)
		}
	}
}
