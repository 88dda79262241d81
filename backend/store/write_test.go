package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestInsertIsAtomicPerCall(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		rows []memory.NewRow
	}{
		{"duplicate of a stored id", []memory.NewRow{row("n1", "zebra one"), row("n2", "zebra two"), row("dup", "zebra three")}},
		{"duplicate inside the call", []memory.NewRow{row("n1", "zebra one"), row("n1", "zebra again")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			insert(t, s, row("dup", "the original"))
			if err := s.Insert(ctx, tc.rows...); err == nil {
				t.Fatal("Insert with a duplicate id succeeded")
			}
			for _, id := range []string{"n1", "n2"} {
				_, err := s.Get(ctx, id)
				wantCode(t, err, memory.ENOTFOUND)
			}
			if m := mustGet(t, s, "dup"); m.Content != "the original" {
				t.Errorf("stored row changed to %q", m.Content)
			}
			if n := ftsCount(t, s, "zebra"); n != 0 {
				t.Errorf("%d FTS entries of the failed call remain", n)
			}
			if n := count(t, s, "SELECT count(*) FROM embeddings"); n != 1 {
				t.Errorf("%d embeddings, want 1", n)
			}
			if st, err := s.Stats(ctx); err != nil || st.Writes != 1 {
				t.Errorf("writes counter = %d (%v), want 1", st.Writes, err)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	ctx := context.Background()
	str := func(s string) *string { return &s }
	num := func(f float64) *float64 { return &f }
	at := t0.Add(time.Hour)
	newVec := &memory.Vector{Embedder: testEmbedder, Values: []float32{9, 8, 7, 6}}

	t.Run("content", func(t *testing.T) {
		s := openStore(t)
		insert(t, s, row("m", "lives in lisbon"))
		got, err := s.Update(ctx, "m", memory.Update{Content: str("lives in porto"), Vector: newVec, At: at})
		if err != nil {
			t.Fatal(err)
		}
		wantAt := at.Truncate(time.Millisecond)
		if got.Content != "lives in porto" || !got.UpdatedAt.Equal(wantAt) {
			t.Errorf("Update returned %q at %v", got.Content, got.UpdatedAt)
		}
		equalMemory(t, mustGet(t, s, "m"), got)
		if v, err := s.Vector(ctx, "m"); err != nil || !slices.Equal(v.Values, newVec.Values) {
			t.Errorf("vector after edit = %v, %v", v, err)
		}
		// The FTS index changed in the same transaction.
		if ftsCount(t, s, "lisbon") != 0 || ftsCount(t, s, "porto") != 1 {
			t.Errorf("FTS: lisbon %d, porto %d", ftsCount(t, s, "lisbon"), ftsCount(t, s, "porto"))
		}
		if hits, _ := s.Keyword(ctx, memory.KeywordQuery{Terms: []string{"lisbon"}, Limit: 5}); len(hits) != 0 {
			t.Errorf("old word still found: %v", hits)
		}
		h, err := s.History(ctx, "m")
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 1 || h[0].Action != memory.HistoryEdited || h[0].OldContent != "lives in lisbon" || !h[0].At.Equal(wantAt) {
			t.Errorf("history = %+v", h)
		}
	})

	t.Run("content without vector changes nothing", func(t *testing.T) {
		s := openStore(t)
		insert(t, s, row("m", "lives in lisbon"))
		before := mustGet(t, s, "m")
		_, err := s.Update(ctx, "m", memory.Update{Content: str("lives in porto"), Category: str("home"), At: at})
		if err == nil {
			t.Fatal("content change without a vector succeeded")
		}
		equalMemory(t, mustGet(t, s, "m"), before)
		if h, _ := s.History(ctx, "m"); len(h) != 0 {
			t.Errorf("history written: %+v", h)
		}
		if ftsCount(t, s, "porto") != 0 || ftsCount(t, s, "lisbon") != 1 {
			t.Error("FTS changed by a failed update")
		}
	})

	t.Run("category and strength", func(t *testing.T) {
		s := openStore(t)
		insert(t, s, row("m", "likes tea", func(r *memory.NewRow) { r.Memory.Category = "food" }))
		got, err := s.Update(ctx, "m", memory.Update{Category: str("drink"), Strength: num(0.9), At: at})
		if err != nil {
			t.Fatal(err)
		}
		if got.Category != "drink" || got.Strength != 0.9 {
			t.Errorf("Update returned %q %v", got.Category, got.Strength)
		}
		equalMemory(t, mustGet(t, s, "m"), got)
		h, _ := s.History(ctx, "m")
		if len(h) != 1 || h[0].OldContent != "" ||
			h[0].Detail != `category "food" -> "drink"; strength 0.50 -> 0.90` {
			t.Errorf("history = %+v", h)
		}
	})

	t.Run("no-op writes no history", func(t *testing.T) {
		s := openStore(t)
		insert(t, s, row("m", "likes tea", func(r *memory.NewRow) { r.Memory.Category = "food" }))
		before := mustGet(t, s, "m")
		got, err := s.Update(ctx, "m", memory.Update{Content: str("likes tea"), Category: str("food"),
			Strength: num(memory.DefaultStrength), At: at})
		if err != nil {
			t.Fatal(err)
		}
		equalMemory(t, got, before)
		equalMemory(t, mustGet(t, s, "m"), before)
		if h, _ := s.History(ctx, "m"); len(h) != 0 {
			t.Errorf("no-op update wrote history: %+v", h)
		}
	})

	t.Run("empty content gets filled", func(t *testing.T) {
		s := openStore(t)
		insert(t, s, row("m", ""))
		got, err := s.Update(ctx, "m", memory.Update{Content: str("now filled"), Vector: newVec, At: at})
		if err != nil {
			t.Fatal(err)
		}
		if stored := mustGet(t, s, "m"); stored.Content != "now filled" || stored.Content != got.Content {
			t.Errorf("Update returned %q, stored %q", got.Content, stored.Content)
		}
		if h, _ := s.History(ctx, "m"); len(h) != 1 || h[0].Action != memory.HistoryEdited {
			t.Errorf("history = %+v", h)
		}
	})

	t.Run("unknown id", func(t *testing.T) {
		s := openStore(t)
		_, err := s.Update(ctx, "nope", memory.Update{Category: str("x"), At: at})
		wantCode(t, err, memory.ENOTFOUND)
	})
}

func TestRetireAndRestore(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s, row("old", "works at acme"), row("new", "works at globex"))
	r := memory.Retirement{How: memory.RetiredReplaced, Reason: "changed jobs", By: "new", At: t0.Add(time.Hour)}
	retiredAt := r.At.Truncate(time.Millisecond)

	got, _, err := s.Retire(ctx, "old", r)
	if err != nil {
		t.Fatal(err)
	}
	stored := mustGet(t, s, "old")
	equalMemory(t, stored, got)
	if stored.Live() || !stored.RetiredAt.Equal(retiredAt) || stored.RetiredBy != "new" ||
		stored.RetiredHow != memory.RetiredReplaced || stored.RetireReason != "changed jobs" || !stored.UpdatedAt.Equal(retiredAt) {
		t.Errorf("retired row = %+v", stored)
	}
	if hits, _ := s.Keyword(ctx, memory.KeywordQuery{Terms: []string{"acme"}, Limit: 5}); len(hits) != 0 {
		t.Errorf("retired row found by Keyword: %v", hits)
	}
	if rows, total, _ := s.List(ctx, memory.ListFilter{Limit: 10}); total != 1 || !slices.Equal(idsOf(rows), []string{"new"}) {
		t.Errorf("List shows %v (total %d)", idsOf(rows), total)
	}
	if rows, _, _ := s.List(ctx, memory.ListFilter{RetiredBy: "new", IncludeRetired: true, Limit: 10}); !slices.Equal(idsOf(rows), []string{"old"}) {
		t.Errorf("RetiredBy list = %v", idsOf(rows))
	}

	_, _, err = s.Retire(ctx, "old", memory.Retirement{How: memory.RetiredDropped, Reason: "again", At: t0.Add(2 * time.Hour)})
	wantCode(t, err, memory.ECONFLICT)
	equalMemory(t, mustGet(t, s, "old"), stored)

	restoreAt := t0.Add(3 * time.Hour)
	back, _, err := s.Restore(ctx, "old", restoreAt)
	if err != nil {
		t.Fatal(err)
	}
	equalMemory(t, mustGet(t, s, "old"), back)
	if !back.Live() || back.RetiredBy != "" || back.RetiredHow != "" || back.RetireReason != "" ||
		!back.UpdatedAt.Equal(restoreAt.Truncate(time.Millisecond)) {
		t.Errorf("restored row = %+v", back)
	}
	if hits, _ := s.Keyword(ctx, memory.KeywordQuery{Terms: []string{"acme"}, Limit: 5}); !slices.Equal(hitIDs(hits), []string{"old"}) {
		t.Errorf("restored row not found by Keyword: %v", hits)
	}
	_, _, err = s.Restore(ctx, "old", restoreAt)
	wantCode(t, err, memory.ECONFLICT)

	h, err := s.History(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	want := []memory.HistoryEntry{
		{MemoryID: "old", At: retiredAt, Action: memory.HistoryRetired, How: memory.RetiredReplaced, Reason: "changed jobs", By: "new"},
		{MemoryID: "old", At: restoreAt.Truncate(time.Millisecond), Action: memory.HistoryRestored, How: memory.RetiredReplaced, Reason: "changed jobs", By: "new"},
	}
	if !slices.EqualFunc(h, want, func(a, b memory.HistoryEntry) bool { return a == b }) {
		t.Errorf("history =\n%+v\nwant\n%+v", h, want)
	}

	_, _, err = s.Retire(ctx, "nope", r)
	wantCode(t, err, memory.ENOTFOUND)
	_, _, err = s.Restore(ctx, "nope", restoreAt)
	wantCode(t, err, memory.ENOTFOUND)
}

// RetireMany retires the live rows of its list in one transaction and
// passes over the ones already retired or gone.
func TestRetireManyPassesOverRetiredAndMissing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s, row("a", "alpha"), row("b", "beta"), row("c", "gamma"))
	if _, _, err := s.Retire(ctx, "b", memory.Retirement{How: memory.RetiredDropped, At: t0}); err != nil {
		t.Fatal(err)
	}
	r := memory.Retirement{How: memory.RetiredForgotten, Reason: "asked to forget", At: t0.Add(time.Hour)}
	got, _, err := s.RetireMany(ctx, []string{"a", "b", "nope", "c"}, r)
	if err != nil {
		t.Fatal(err)
	}
	if ids := idsOf(got); len(ids) != 2 || ids[0] != "a" || ids[1] != "c" {
		t.Fatalf("retired %v, want [a c]", ids)
	}
	for _, id := range []string{"a", "c"} {
		if m := mustGet(t, s, id); m.Live() || m.RetiredHow != memory.RetiredForgotten {
			t.Errorf("%s after RetireMany: %+v", id, m)
		}
	}
	if m := mustGet(t, s, "b"); m.RetiredHow != memory.RetiredDropped {
		t.Errorf("the row retired before was retired again: %+v", m)
	}
	if _, _, err := s.RetireMany(ctx, []string{"a"}, memory.Retirement{}); err == nil {
		t.Error("a retirement without a time was taken")
	}
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	all := []string{"a", "b", "c", "d", "e"}
	fixture := func(t *testing.T) *Store {
		s := openStore(t)
		insert(t, s,
			row("a", "alpha word"),
			row("b", "bravo word", inLayer(memory.LayerFact)),
			row("c", "charlie word", ownedBy("u2", "")),
			row("d", "delta word", ownedBy("u2", "bot"), inLayer(memory.LayerFact)),
			row("e", "echo word", ownedBy("u3", "bot")),
		)
		for _, id := range all {
			retire(t, s, id) // gives every row history
			if _, _, err := s.Restore(ctx, id, t0.Add(2*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	for _, tc := range []struct {
		name string
		f    memory.DeleteFilter
		want []string
	}{
		{"ids", memory.DeleteFilter{IDs: []string{"a", "c", "unknown"}}, []string{"a", "c"}},
		{"layer", memory.DeleteFilter{Layers: []memory.Layer{memory.LayerFact}}, []string{"b", "d"}},
		{"users", memory.DeleteFilter{Scope: memory.Scope{UserIDs: []string{"u2", "u3"}}}, []string{"c", "d", "e"}},
		{"agent", memory.DeleteFilter{Scope: memory.Scope{AgentID: "bot"}}, []string{"d", "e"}},
		{"layer and user", memory.DeleteFilter{Layers: []memory.Layer{memory.LayerFact}, Scope: memory.Scope{UserIDs: []string{"u2"}}}, []string{"d"}},
		{"ids outside the scope", memory.DeleteFilter{IDs: []string{"a"}, Scope: memory.Scope{UserIDs: []string{"u2"}}}, nil},
		{"whole", memory.DeleteFilter{Whole: true}, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fixture(t)
			got, _, err := s.Delete(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sorted(got), sorted(tc.want)) {
				t.Fatalf("Delete returned %v, want %v", got, tc.want)
			}
			left, err := s.GetMany(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range all {
				_, kept := left[id]
				if gone := slices.Contains(tc.want, id); gone == kept {
					t.Errorf("row %s: kept=%v, deleted=%v", id, kept, gone)
				}
			}
			n := len(all) - len(tc.want)
			if got := ftsCount(t, s, "word"); got != n {
				t.Errorf("%d FTS entries, want %d", got, n)
			}
			if got := count(t, s, "SELECT count(*) FROM embeddings"); got != n {
				t.Errorf("%d embeddings, want %d", got, n)
			}
			if got := count(t, s, "SELECT count(DISTINCT memory_id) FROM history"); got != n {
				t.Errorf("history of %d rows, want %d", got, n)
			}
			for _, id := range tc.want {
				if _, err := s.Vector(ctx, id); memory.ErrorCode(err) != memory.ENOTFOUND {
					t.Errorf("vector of deleted %s: %v", id, err)
				}
			}
		})
	}

	for _, f := range []memory.DeleteFilter{{}, {IDs: []string{}, Layers: []memory.Layer{}}} {
		s := fixture(t)
		got, _, err := s.Delete(ctx, f)
		wantCode(t, err, memory.EBADREQUEST)
		if len(got) != 0 {
			t.Errorf("refused delete returned %v", got)
		}
		if rows, _ := s.GetMany(ctx, all); len(rows) != len(all) {
			t.Errorf("refused delete removed rows: %d left", len(rows))
		}
	}
}
