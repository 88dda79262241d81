package memory_test

import (
	"context"
	"testing"
	"time"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/vector"
)

// A client's last contact is known at once, reaches the store on the first
// call, then at most once a minute, and in full at Flush; a new run over
// the same store still knows it.
func TestContacts_SurviveARestart(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, memory.Config{})
	if _, ok, err := r.svc.LastContact(ctx, "hermes"); ok || err != nil {
		t.Fatalf("never called: ok %v, err %v", ok, err)
	}
	stored := func() time.Time {
		t.Helper()
		ms, err := r.store.Counter(ctx, "contact:hermes")
		if err != nil {
			t.Fatal(err)
		}
		return time.UnixMilli(ms).UTC()
	}
	if err := r.svc.NoteContact(ctx, "hermes"); err != nil {
		t.Fatal(err)
	}
	first, ok, err := r.svc.LastContact(ctx, "hermes")
	if !ok || err != nil || !stored().Equal(first) {
		t.Fatalf("first call: %v %v %v, stored %v", first, ok, err, stored())
	}
	for range 5 { // five calls a second apart: within the minute, not written
		if err := r.svc.NoteContact(ctx, "hermes"); err != nil {
			t.Fatal(err)
		}
	}
	last, _, _ := r.svc.LastContact(ctx, "hermes")
	if !last.After(first) || !stored().Equal(first) {
		t.Fatalf("later calls: last %v (first %v), stored %v", last, first, stored())
	}
	if err := r.svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if !stored().Equal(last) {
		t.Fatalf("after Flush the store holds %v, want %v", stored(), last)
	}

	h, err := embed.NewHash(64)
	if err != nil {
		t.Fatal(err)
	}
	again, err := memory.NewService(memory.Config{Mode: memory.ModeLite, MinScore: -1},
		memory.Deps{Store: r.store, Index: vector.New(64), Embedder: h})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := again.LastContact(ctx, "hermes"); !ok || err != nil || !got.Equal(last) {
		t.Errorf("after a restart: %v %v %v, want %v", got, ok, err, last)
	}
	if _, ok, _ := again.LastContact(ctx, "someone-else"); ok {
		t.Error("another client has a contact it never made")
	}
}
