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
