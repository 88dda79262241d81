package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func inSession(s string) func(*memory.NewRow) {
	return func(r *memory.NewRow) { r.Memory.SessionID = s }
}

// keywordIDs is a keyword search of user u1 for one term.
func keywordIDs(t *testing.T, s *Store, term string) []string {
	t.Helper()
	hits, err := s.Keyword(context.Background(), memory.KeywordQuery{Terms: []string{term},
		Scope: memory.Scope{UserIDs: []string{"u1"}}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// A raw row is also found by the words of the turn before it in its
// conversation, ranked below the row that holds them; the context follows
// edits, retirements, restores and deletes of that turn.
func TestKeyword_ConversationContext(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	at := func(m int) func(*memory.NewRow) { return createdAt(t0.Add(time.Duration(m) * time.Minute)) }
	insert(t, s,
		row("a", "USER: I adopted a zebra finch named Pip", inSession("s1"), at(0)),
		row("b", "ASSISTANT: lovely, how old is it", inSession("s1"), at(1)),
		row("c", "USER: two years", inSession("s1"), at(2)),
		row("other-session", "USER: something else", inSession("s2"), at(3)),
		row("other-agent", "USER: another agent's turn", inSession("s1"), ownedBy("u1", "bot"), at(4)),
		row("fact", "The user keeps birds", inSession("s1"), inLayer(memory.LayerFact), at(5)))

	if got := keywordIDs(t, s, "zebra"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("zebra: %v, want a (its text) then b (the turn after)", got)
	}
	if got := keywordIDs(t, s, "old"); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("old: %v, want b then c", got)
	}
	if got := keywordIDs(t, s, "two"); !slices.Equal(got, []string{"c"}) {
		t.Errorf("two: %v: the other session, agent and the fact have no context from c", got)
	}
	if got := keywordIDs(t, s, "birds"); !slices.Equal(got, []string{"fact"}) {
		t.Errorf("birds: %v", got)
	}

	// Retiring b makes a the context of c; restoring it undoes that.
	retire(t, s, "b")
	if got := keywordIDs(t, s, "zebra"); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("zebra with b retired: %v, want a then c", got)
	}
	if _, _, err := s.Restore(ctx, "b", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := keywordIDs(t, s, "zebra"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("zebra after restore: %v", got)
	}

	// An edit of a re-indexes b's context.
	text := "USER: I adopted a canary named Pip"
	if _, err := s.Update(ctx, "a", memory.Update{Content: &text, Vector: &memory.Vector{Embedder: testEmbedder, Values: vec("a")}, At: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got := keywordIDs(t, s, "zebra"); len(got) != 0 {
		t.Errorf("zebra after the edit: %v, want none", got)
	}
	if got := keywordIDs(t, s, "canary"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("canary: %v", got)
	}

	// Deleting a leaves nothing of its text in the index.
	if _, _, err := s.Delete(ctx, memory.DeleteFilter{IDs: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if got := keywordIDs(t, s, "canary"); len(got) != 0 {
		t.Errorf("canary after deleting a: %v, want none", got)
	}
	if n := count(t, s, `SELECT count(*) FROM fts_reindex`); n != 0 {
		t.Errorf("%d rows left in the re-index queue", n)
	}
}

// A store written before conversation context existed gets it when the
// migration rebuilds the full-text index.
func TestMigration3_IndexesExistingRowsWithContext(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := loadMigrations()
	for _, m := range ms[:2] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatalf("migration %d: %v", m.version, err)
		}
	}
	for i, text := range []string{"USER: my sister lives in Lisbon", "ASSISTANT: do you visit often"} {
		if _, err := db.Exec(`INSERT INTO memories (id, layer, content, user_id, session_id, created_at, updated_at)
			VALUES (?, 'l2_raw', ?, 'u1', 's1', ?, ?)`, string(rune('a'+i)), text, i, i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`PRAGMA user_version = 2`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, _ := openStoreDir(t, dir)
	if got := keywordIDs(t, s, "lisbon"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("lisbon after the migration: %v, want a then b", got)
	}
}
