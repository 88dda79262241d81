package store

import (
	"context"
	"database/sql"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// openAtVersion makes a database in dir with the first v migrations only,
// as an older HyAtlas left it, and returns it open.
func openAtVersion(t *testing.T, dir string, v int) *sql.DB {
	t.Helper()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	db, err := openDB(filepath.Join(dir, FileName), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:v] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatalf("migration %s: %v", m.name, err)
		}
	}
	if _, err := db.Exec("PRAGMA user_version = " + strconv.Itoa(v)); err != nil {
		t.Fatal(err)
	}
	return db
}

// Nodes of one user's name under several agents (as versions before 9
// kept them) become one, the oldest, with the relations of all of them,
// a page and a type; other users' nodes of the name stay theirs.
func TestMigration9MergesAUsersEntitiesAcrossAgents(t *testing.T) {
	dir := t.TempDir()
	db := openAtVersion(t, dir, 8)
	for _, q := range []string{
		`INSERT INTO graph_nodes (id, user_id, agent_id, name, norm, type, page_id, created_at) VALUES
			('e1', 'amy', 'hermes', 'Alice', 'alice', 'other', '',   1000),
			('e2', 'amy', 'coder',  'alice', 'alice', 'person', 'p2', 2000),
			('e3', 'amy', 'hermes', 'Acme',  'acme',  'organization', '', 1000),
			('e4', 'amy', 'coder',  'Globex','globex','organization', '', 2000),
			('e5', 'cy',  'hermes', 'Alice', 'alice', 'person', '', 500)`,
		`INSERT INTO graph_edges (rel_id, user_id, agent_id, src, dst, relation, exclusive, learned_at, recorded_at) VALUES
			('r1', 'amy', 'hermes', 'e1', 'e3', 'works at', 1, 1000, 1000),
			('r2', 'amy', 'coder',  'e2', 'e4', 'works at', 1, 2000, 2000),
			('r3', 'amy', 'coder',  'e4', 'e2', 'employs',  0, 2000, 2000)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, _ := openStoreDir(t, dir)
	if s.MigratedFrom != 8 || s.MigratedTo < 9 {
		t.Fatalf("migrated %d -> %d", s.MigratedFrom, s.MigratedTo)
	}
	nodes, edges, err := s.GraphAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, n.ID+" "+n.Owner.UserID+"/"+n.Owner.AgentID+" "+n.Name+" "+string(n.Type)+" "+n.PageID)
	}
	want := []string{
		"e1 amy/hermes Alice person p2",
		"e3 amy/hermes Acme organization ",
		"e4 amy/coder Globex organization ",
		"e5 cy/hermes Alice person ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("nodes:\n%v\nwant\n%v", got, want)
	}
	ends := map[string]string{}
	for _, e := range edges {
		ends[e.ID] = e.From + ">" + e.To + " " + e.Owner.AgentID
	}
	if want := map[string]string{"r1": "e1>e3 hermes", "r2": "e1>e4 coder", "r3": "e4>e1 coder"}; !maps.Equal(ends, want) {
		t.Errorf("relations: %v, want %v", ends, want)
	}
}
