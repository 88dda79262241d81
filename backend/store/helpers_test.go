package store

import (
	"context"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// t0 is a base time with sub-millisecond digits, so every round trip shows
// the millisecond truncation.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535_897_000, time.UTC)

const testEmbedder = "test-v1"

// openStore opens a store in a fresh temp dir and closes it at cleanup.
func openStore(t *testing.T) *Store {
	t.Helper()
	s, _ := openStoreDir(t, t.TempDir())
	return s
}

func openStoreDir(t *testing.T, dir string) (*Store, string) {
	t.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, dir
}

// vec is a deterministic 4-dim vector for an id.
func vec(id string) []float32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	x := float32(h.Sum32()%1000) / 1000
	return []float32{x, -x, 0.5, float32(len(id))}
}

// row builds a live raw row of user u1 created at t0 with a vector.
func row(id, content string, opts ...func(*memory.NewRow)) memory.NewRow {
	r := memory.NewRow{
		Memory: memory.Memory{
			ID: id, Layer: memory.LayerRaw, Content: content,
			Owner: memory.Owner{UserID: "u1"}, Strength: memory.DefaultStrength,
			CreatedAt: t0, UpdatedAt: t0, Extraction: memory.ExtractSkipped,
		},
		Vector: memory.Vector{Embedder: testEmbedder, Values: vec(id)},
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func inLayer(l memory.Layer) func(*memory.NewRow) {
	return func(r *memory.NewRow) { r.Memory.Layer = l }
}

func ownedBy(user, agent string) func(*memory.NewRow) {
	return func(r *memory.NewRow) { r.Memory.Owner = memory.Owner{UserID: user, AgentID: agent} }
}

func createdAt(t time.Time) func(*memory.NewRow) {
	return func(r *memory.NewRow) { r.Memory.CreatedAt, r.Memory.UpdatedAt = t, t }
}

func embeddedBy(e string) func(*memory.NewRow) {
	return func(r *memory.NewRow) { r.Vector.Embedder = e }
}

func noVector(r *memory.NewRow) { r.Vector = memory.Vector{} }

func extraction(e memory.ExtractState) func(*memory.NewRow) {
	return func(r *memory.NewRow) { r.Memory.Extraction = e }
}

func insert(t *testing.T, s *Store, rows ...memory.NewRow) {
	t.Helper()
	if err := s.Insert(context.Background(), rows...); err != nil {
		t.Fatalf("Insert: %v", err)
	}
}

func mustGet(t *testing.T, s *Store, id string) memory.Memory {
	t.Helper()
	m, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return m
}

func retire(t *testing.T, s *Store, id string) {
	t.Helper()
	if _, _, err := s.Retire(context.Background(), id, memory.Retirement{
		How: memory.RetiredDropped, Reason: "test", At: t0.Add(time.Hour)}); err != nil {
		t.Fatalf("Retire(%s): %v", id, err)
	}
}

// count runs a count(*) query through the read pool.
func count(t *testing.T, s *Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.reader.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// ftsCount is how many FTS entries match an FTS5 query.
func ftsCount(t *testing.T, s *Store, match string) int {
	t.Helper()
	return count(t, s, `SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?`, match)
}

func idsOf(ms []memory.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func hitIDs(hs []memory.KeywordHit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	if out == nil {
		out = []string{}
	}
	return out
}

func wantCode(t *testing.T, err error, code memory.Code) {
	t.Helper()
	if got := memory.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (err %v), want %q", got, err, code)
	}
}

func equalMemory(t *testing.T, got, want memory.Memory) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("memory mismatch\n got %+v\nwant %+v", got, want)
	}
}

// queryPlan is SQLite's plan for query with args, one line per step.
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.reader.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "\n")
}
