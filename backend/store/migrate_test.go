package store

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func userVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatalf("read user_version: %v", err)
	}
	return v
}

func TestMigrationsAreNumberedFromOneWithoutGaps(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatalf("loadMigrations: %v", err)
	}
	if len(ms) == 0 || SchemaVersion() != len(ms) {
		t.Fatalf("SchemaVersion() = %d with %d migrations", SchemaVersion(), len(ms))
	}
	for i, m := range ms {
		if m.version != i+1 || strings.TrimSpace(m.sql) == "" {
			t.Errorf("migration %d: version %d, %d bytes of SQL", i, m.version, len(m.sql))
		}
	}
}

func TestOpenEmptyDirCreatesAndMigrates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet", "there")
	s, _ := openStoreDir(t, dir)
	if want := filepath.Join(dir, FileName); s.Path() != want {
		t.Errorf("Path() = %q, want %q", s.Path(), want)
	}
	if _, err := os.Stat(s.Path()); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
	if s.MigratedFrom != 0 || s.MigratedTo != SchemaVersion() {
		t.Errorf("migrated %d -> %d, want 0 -> %d", s.MigratedFrom, s.MigratedTo, SchemaVersion())
	}
	if v := userVersion(t, s.reader); v != SchemaVersion() {
		t.Errorf("user_version = %d, want %d", v, SchemaVersion())
	}
	insert(t, s, row("keep", "survives a reopen"))
	if err := s.AddCounter(context.Background(), "searches", 7); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s2, _ := openStoreDir(t, dir)
	if s2.MigratedFrom != SchemaVersion() || s2.MigratedTo != SchemaVersion() {
		t.Errorf("reopen migrated %d -> %d, want no migration at %d", s2.MigratedFrom, s2.MigratedTo, SchemaVersion())
	}
	if m := mustGet(t, s2, "keep"); m.Content != "survives a reopen" {
		t.Errorf("content after reopen = %q", m.Content)
	}
	st, err := s2.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A second run of the migration would have reset the counters.
	if st.Writes != 1 || st.Searches != 7 {
		t.Errorf("counters after reopen: writes %d searches %d, want 1 and 7", st.Writes, st.Searches)
	}
}

func TestOpenSetsDurabilityPragmas(t *testing.T) {
	s := openStore(t)
	for _, tc := range []struct {
		db     *sql.DB
		name   string
		pragma string
		want   string
	}{
		{s.writer, "writer", "journal_mode", "wal"},
		{s.writer, "writer", "synchronous", "2"}, // FULL
		{s.writer, "writer", "foreign_keys", "1"},
		{s.reader, "reader", "journal_mode", "wal"},
	} {
		var got string
		if err := tc.db.QueryRow("PRAGMA " + tc.pragma).Scan(&got); err != nil {
			t.Fatalf("%s PRAGMA %s: %v", tc.name, tc.pragma, err)
		}
		if got != tc.want {
			t.Errorf("%s PRAGMA %s = %s, want %s", tc.name, tc.pragma, got, tc.want)
		}
	}
}

func TestOpenRefusesNewerSchemaWithoutTouchingIt(t *testing.T) {
	dir := t.TempDir()
	s, _ := openStoreDir(t, dir)
	insert(t, s, row("old", "written by this build"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	newer := SchemaVersion() + 1
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("PRAGMA user_version = " + strconv.Itoa(newer)); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	got, err := Open(context.Background(), dir)
	if err == nil {
		_ = got.Close()
		t.Fatal("Open of a newer schema succeeded")
	}
	if got != nil {
		t.Error("Open returned a store with its error")
	}
	for _, want := range []string{"upgrade", strconv.Itoa(newer), strconv.Itoa(SchemaVersion())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("refused database file was modified")
	}
	raw, err = sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if v := userVersion(t, raw); v != newer {
		t.Errorf("user_version = %d after refusal, want %d", v, newer)
	}
	var n int
	if err := raw.QueryRow("SELECT count(*) FROM memories WHERE id = 'old'").Scan(&n); err != nil || n != 1 {
		t.Errorf("row lost after refusal: n=%d err=%v", n, err)
	}
}
