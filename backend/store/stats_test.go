package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestStats(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, _ := openStoreDir(t, dir)
	pending := extraction(memory.ExtractPending)
	insert(t, s,
		row("r1", "raw pending", pending),
		row("r2", "raw pending", pending, embeddedBy("other-v2")),
		row("r3", "raw pending retired", pending),
		row("r4", "raw done", extraction(memory.ExtractDone), noVector),
		row("f1", "fact", inLayer(memory.LayerFact)),
		row("f2", "fact retired", inLayer(memory.LayerFact)),
		row("p1", "profile", inLayer(memory.LayerProfile), embeddedBy("other-v2")),
	)
	retire(t, s, "r3")
	retire(t, s, "f2")
	insert(t, s, row("gone", "raw deleted later"))
	if _, _, err := s.Delete(ctx, memory.DeleteFilter{IDs: []string{"gone"}}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []int64{3, 4} {
		if err := s.AddCounter(ctx, "searches", d); err != nil {
			t.Fatal(err)
		}
	}

	check := func(t *testing.T, s *Store) {
		st := mustStats(t, s)
		wantLive := map[memory.Layer]int{}
		for _, l := range memory.Layers {
			wantLive[l] = 0
		}
		wantLive[memory.LayerRaw], wantLive[memory.LayerFact], wantLive[memory.LayerProfile] = 3, 1, 1
		if !maps.Equal(st.Live, wantLive) {
			t.Errorf("Live = %v, want %v", st.Live, wantLive)
		}
		if st.Retired != 2 || st.Unextracted != 2 {
			t.Errorf("Retired %d, Unextracted %d; want 2, 2", st.Retired, st.Unextracted)
		}
		if want := map[string]int{testEmbedder: 2, "other-v2": 2}; !maps.Equal(st.Vectors, want) {
			t.Errorf("Vectors = %v, want %v", st.Vectors, want)
		}
		// Five raw rows were ever stored; retiring or deleting does not undo a write.
		if st.Writes != 5 || st.Searches != 7 {
			t.Errorf("Writes %d, Searches %d; want 5, 7", st.Writes, st.Searches)
		}
	}
	check(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, _ = openStoreDir(t, dir)
	t.Run("after reopen", func(t *testing.T) { check(t, s) })
}

func TestAddCounterCreatesNewCounters(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	for _, d := range []int64{5, -2} {
		if err := s.AddCounter(ctx, "custom", d); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, s, "SELECT value FROM counters WHERE name = 'custom'"); n != 3 {
		t.Errorf("custom counter = %d, want 3", n)
	}
}

func TestScanVectors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s,
		row("a", "one", ownedBy("u1", "bot")),
		row("b", "two", inLayer(memory.LayerFact), ownedBy("u2", "")),
		row("retired", "three"),
		row("other", "four", embeddedBy("other-v2")),
		row("none", "five", noVector),
	)
	retire(t, s, "retired")
	got := map[string]memory.IndexEntry{}
	if err := s.ScanVectors(ctx, testEmbedder, func(e memory.IndexEntry) error {
		e.Values = slices.Clone(e.Values) // Values is reused after fn returns
		got[e.ID] = e
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]memory.IndexEntry{
		"a": {ID: "a", Layer: memory.LayerRaw, Owner: memory.Owner{UserID: "u1", AgentID: "bot"}, Values: vec("a")},
		"b": {ID: "b", Layer: memory.LayerFact, Owner: memory.Owner{UserID: "u2"}, Values: vec("b")},
	}
	if !maps.EqualFunc(got, want, func(x, y memory.IndexEntry) bool {
		return x.ID == y.ID && x.Layer == y.Layer && x.Owner == y.Owner && slices.Equal(x.Values, y.Values)
	}) {
		t.Errorf("ScanVectors = %+v, want %+v", got, want)
	}

	stop := errors.New("stop")
	calls := 0
	err := s.ScanVectors(ctx, testEmbedder, func(memory.IndexEntry) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("ScanVectors with a failing callback: %v after %d calls", err, calls)
	}
}

func TestVector(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	values := []float32{0.125, -3.5e-7, 1e30, 0}
	insert(t, s, row("m", "x", func(r *memory.NewRow) { r.Vector.Values = values }), row("none", "y", noVector))
	v, err := s.Vector(ctx, "m")
	if err != nil || v.Embedder != testEmbedder || !slices.Equal(v.Values, values) {
		t.Errorf("Vector = %+v, %v", v, err)
	}
	for _, id := range []string{"none", "unknown"} {
		_, err := s.Vector(ctx, id)
		wantCode(t, err, memory.ENOTFOUND)
	}
}

// A long text's sentence vectors are stored with its vector and come back
// with it, in order, from Vector, ScanVectors and after an edit.
func TestSentenceVectors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	parts := [][]float32{vec("p1"), vec("p2"), vec("p3")}
	withParts := func(p [][]float32) func(*memory.NewRow) {
		return func(r *memory.NewRow) { r.Vector.Parts = p }
	}
	insert(t, s, row("long", "a long text", withParts(parts)), row("short", "a short text"))
	equalParts := func(got, want [][]float32) bool {
		return slices.EqualFunc(got, want, func(a, b []float32) bool { return slices.Equal(a, b) })
	}
	v, err := s.Vector(ctx, "long")
	if err != nil || !slices.Equal(v.Values, vec("long")) || !equalParts(v.Parts, parts) {
		t.Fatalf("Vector = %+v, %v; want the vector and 3 parts", v, err)
	}
	if v, _ := s.Vector(ctx, "short"); v.Parts != nil {
		t.Fatalf("a short text has parts %v", v.Parts)
	}
	got := map[string][][]float32{}
	if err := s.ScanVectors(ctx, testEmbedder, func(e memory.IndexEntry) error {
		for _, p := range e.Parts {
			got[e.ID] = append(got[e.ID], slices.Clone(p))
		}
		if !slices.Equal(e.Values, vec(e.ID)) {
			t.Errorf("ScanVectors %s: values %v", e.ID, e.Values)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !equalParts(got["long"], parts) || got["short"] != nil {
		t.Fatalf("ScanVectors parts = %v", got)
	}
	// An edit to a short text drops the parts; a part of the wrong length
	// is refused and changes nothing.
	text := "now short"
	if _, err := s.Update(ctx, "long", memory.Update{Content: &text, Vector: &memory.Vector{Embedder: testEmbedder, Values: vec("long")}, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Vector(ctx, "long"); v.Parts != nil {
		t.Fatalf("parts kept after an edit without them: %v", v.Parts)
	}
	bad := memory.Vector{Embedder: testEmbedder, Values: vec("short"), Parts: [][]float32{{1, 2}}}
	other := "other"
	if _, err := s.Update(ctx, "short", memory.Update{Content: &other, Vector: &bad, At: time.Now()}); err == nil {
		t.Fatal("a part of the wrong length was stored")
	}
	if m := mustGet(t, s, "short"); m.Content != "a short text" {
		t.Fatalf("refused update changed the row: %q", m.Content)
	}
}

// TestStatsFollowEveryWrite: Stats is answered from memory between writes,
// and a write is seen by the very next call.
func TestStatsFollowEveryWrite(t *testing.T) {
	s := openStore(t)
	live := func() int {
		st := mustStats(t, s)
		st.Live[memory.LayerRaw] += 1000 // a caller changing its copy changes nothing
		return st.Live[memory.LayerRaw] - 1000
	}
	for i := range 5 {
		if got := live(); got != i {
			t.Fatalf("after %d writes Stats says %d", i, got)
		}
		insert(t, s, row(fmt.Sprintf("r%d", i), "text"))
	}
	retire(t, s, "r0")
	if got := live(); got != 4 {
		t.Fatalf("after a retirement Stats says %d", got)
	}
}

// Changes moves with every committed write, an edit that changes no count
// too, and stays put while nothing is written.
func TestStatsChangesMoveWithEveryWrite(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	changes := func() uint64 { return mustStats(t, s).Changes }
	insert(t, s, row("a", "the first text"))
	before := changes()
	if again := changes(); again != before {
		t.Fatalf("Changes moved from %d to %d with no write", before, again)
	}
	text := "the text as an agent changed it"
	if _, err := s.Update(ctx, "a", memory.Update{Content: &text, Vector: &memory.Vector{Embedder: "test", Values: vec("a2")}, At: t0}); err != nil {
		t.Fatal(err)
	}
	if after := changes(); after == before {
		t.Errorf("an edit left Changes at %d: a live view would keep the old text", after)
	}
}

// mustStats is the store's Stats; an error ends the test.
func mustStats(t *testing.T, s *Store) memory.StoreStats {
	t.Helper()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}
