package store

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

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
	if _, err := s.Delete(ctx, memory.DeleteFilter{IDs: []string{"gone"}}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []int64{3, 4} {
		if err := s.AddCounter(ctx, "searches", d); err != nil {
			t.Fatal(err)
		}
	}

	check := func(t *testing.T, s *Store) {
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
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
