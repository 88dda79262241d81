package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"hyatlas/backend/memory"
)

// statsCache keeps the last Stats with the write sequence it was read at:
// until the next write it is still true (and every list and status call
// asks for it; counting 100,000 rows took 50 ms).
type statsCache struct {
	mu  sync.Mutex
	ok  bool
	seq uint64
	st  memory.StoreStats
}

// Stats counts live rows per layer, retired rows, rows waiting for
// extraction, live vectors per embedder, and the counters. Between two
// writes the answer comes from memory.
func (s *Store) Stats(ctx context.Context) (memory.StoreStats, error) {
	seq := s.writeSeq.Load()
	s.stats.mu.Lock()
	if s.stats.ok && s.stats.seq == seq {
		st := s.stats.st
		s.stats.mu.Unlock()
		return copyStats(st), nil
	}
	s.stats.mu.Unlock()
	st, err := s.countStats(ctx)
	if err != nil {
		return st, err
	}
	st.Changes = seq // what was counted is at least this new
	s.stats.mu.Lock()
	// A write that landed while counting moved the sequence on: what was
	// counted may be older than it, so only the sequence read before
	// counting is recorded.
	s.stats.ok, s.stats.seq, s.stats.st = true, seq, copyStats(st)
	s.stats.mu.Unlock()
	return st, nil
}

func copyStats(st memory.StoreStats) memory.StoreStats {
	st.Live = maps.Clone(st.Live)
	st.Vectors = maps.Clone(st.Vectors)
	return st
}

func (s *Store) countStats(ctx context.Context) (memory.StoreStats, error) {
	st := memory.StoreStats{Live: map[memory.Layer]int{}, Vectors: map[string]int{}}
	for _, l := range memory.Layers {
		st.Live[l] = 0
	}
	steps := []struct {
		q  string
		fn func(*sql.Rows) error
	}{
		{`SELECT layer, count(*) FROM memories WHERE retired_at IS NULL GROUP BY layer`, func(r *sql.Rows) error {
			var l string
			var n int
			err := r.Scan(&l, &n)
			st.Live[memory.Layer(l)] = n
			return err
		}},
		{`SELECT count(*) FROM memories WHERE retired_at IS NOT NULL`, func(r *sql.Rows) error {
			return r.Scan(&st.Retired)
		}},
		{`SELECT count(*) FROM memories WHERE extract_state = 'pending' AND retired_at IS NULL`, func(r *sql.Rows) error {
			return r.Scan(&st.Unextracted)
		}},
		{`SELECT embedder, count(*) FROM memories WHERE retired_at IS NULL AND embedder <> ''
			GROUP BY embedder`, func(r *sql.Rows) error {
			var e string
			var n int
			err := r.Scan(&e, &n)
			st.Vectors[e] = n
			return err
		}},
		{`SELECT name, value FROM counters`, func(r *sql.Rows) error {
			var name string
			var v int64
			err := r.Scan(&name, &v)
			switch name {
			case "writes":
				st.Writes = v
			case "searches":
				st.Searches = v
			}
			return err
		}},
	}
	for _, step := range steps {
		if err := s.query(ctx, step.q, nil, step.fn); err != nil {
			return memory.StoreStats{}, fmt.Errorf("store stats: %w", err)
		}
	}
	return st, nil
}

// ScanVectors streams every live row's vector made by embedder. The
// entry's Values and Parts are only valid during the call to fn: they
// are reused.
func (s *Store) ScanVectors(ctx context.Context, embedder string, fn func(memory.IndexEntry) error) error {
	var buf []float32
	err := s.query(ctx, `SELECT m.id, m.layer, m.user_id, m.agent_id, e.dims, e.vector
		FROM memories m JOIN embeddings e ON e.memory_seq = m.seq
		WHERE m.retired_at IS NULL AND m.embedder = ?`, []any{embedder}, func(r *sql.Rows) error {
		var (
			e     memory.IndexEntry
			layer string
			dims  int
			blob  sql.RawBytes
		)
		if err := r.Scan(&e.ID, &layer, &e.Owner.UserID, &e.Owner.AgentID, &dims, &blob); err != nil {
			return err
		}
		if need := len(blob) / 4; cap(buf) < need {
			buf = make([]float32, need)
		}
		v, parts, err := decodeVector(buf, blob, dims)
		if err != nil {
			return fmt.Errorf("memory %s: %w", e.ID, err)
		}
		e.Layer, e.Values, e.Parts = memory.Layer(layer), v, parts
		return fn(e)
	})
	if err != nil {
		return fmt.Errorf("scan vectors: %w", err)
	}
	return nil
}

// Vector reads one row's vector.
func (s *Store) Vector(ctx context.Context, id string) (memory.Vector, error) {
	var (
		v    memory.Vector
		dims int
		blob []byte
	)
	err := s.reader.QueryRowContext(ctx, `SELECT m.embedder, e.dims, e.vector FROM embeddings e
		JOIN memories m ON m.seq = e.memory_seq WHERE m.id = ?`, id).Scan(&v.Embedder, &dims, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Vector{}, notFound(id)
	}
	if err != nil {
		return memory.Vector{}, fmt.Errorf("read vector of %s: %w", id, err)
	}
	if v.Values, v.Parts, err = decodeVector(nil, blob, dims); err != nil {
		return memory.Vector{}, fmt.Errorf("memory %s: %w", id, err)
	}
	return v, nil
}

var _ memory.Store = (*Store)(nil)

// Activity counts rows written per day and layer, and LLM calls per day and
// purpose, since from; a day is a date at offset seconds east of UTC.
func (s *Store) Activity(ctx context.Context, from time.Time, offset int) (map[string]map[memory.Layer]int, map[string]map[string]int, error) {
	day := fmt.Sprintf(`date((%%s / 1000) + %d, 'unixepoch')`, offset)
	added, err := countPerDay[memory.Layer](ctx, s, `SELECT `+fmt.Sprintf(day, "created_at")+` AS d, layer, count(*)
		FROM memories WHERE created_at >= ? GROUP BY d, layer`, from)
	if err != nil {
		return nil, nil, fmt.Errorf("count writes per day: %w", err)
	}
	calls, err := countPerDay[string](ctx, s, `SELECT `+fmt.Sprintf(day, "at")+` AS d, purpose, count(*)
		FROM egress WHERE at >= ? GROUP BY d, purpose`, from)
	if err != nil {
		return nil, nil, fmt.Errorf("count LLM calls per day: %w", err)
	}
	return added, calls, nil
}

// countPerDay runs a query of (day, key, count) rows since from and
// returns the counts by day, then key.
func countPerDay[K ~string](ctx context.Context, s *Store, query string, from time.Time) (map[string]map[K]int, error) {
	out := map[string]map[K]int{}
	err := s.query(ctx, query, []any{from.UnixMilli()}, func(r *sql.Rows) error {
		var d, k string
		var n int
		if err := r.Scan(&d, &k, &n); err != nil {
			return err
		}
		if out[d] == nil {
			out[d] = map[K]int{}
		}
		out[d][K(k)] = n
		return nil
	})
	return out, err
}
