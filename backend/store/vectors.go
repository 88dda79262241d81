package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"

	"hyatlas/backend/memory"
)

// VectorJobs lists up to limit rows whose vector was not made by
// embedder, walking live rows newest first and then retired ones, from an
// opaque cursor ("" starts at the top) that it returns for the next call
// ("" once both walks are done). Each call reads only its own rows.
func (s *Store) VectorJobs(ctx context.Context, embedder, cursor string, limit int) ([]memory.VectorJob, string, error) {
	phase, before := "L", int64(math.MaxInt64)
	if cursor != "" {
		p, n, ok := strings.Cut(cursor, ":")
		seq, err := strconv.ParseInt(n, 10, 64)
		if !ok || (p != "L" && p != "R") || err != nil {
			return nil, "", fmt.Errorf("bad re-embed cursor %q", cursor)
		}
		phase, before = p, seq
	}
	for {
		cond := "retired_at IS NULL"
		if phase == "R" {
			cond = "retired_at IS NOT NULL"
		}
		var jobs []memory.VectorJob
		var last int64
		err := s.query(ctx, `SELECT seq, id, layer, user_id, agent_id, content FROM memories
			WHERE `+cond+` AND embedder <> ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
			[]any{embedder, before, limit}, func(r *sql.Rows) error {
				j := memory.VectorJob{Live: phase == "L"}
				var layer string
				err := r.Scan(&last, &j.ID, &layer, &j.Owner.UserID, &j.Owner.AgentID, &j.Content)
				j.Layer = memory.Layer(layer)
				jobs = append(jobs, j)
				return err
			})
		if err != nil {
			return nil, "", fmt.Errorf("list rows to re-embed: %w", err)
		}
		if len(jobs) > 0 {
			return jobs, fmt.Sprintf("%s:%d", phase, last), nil
		}
		if phase == "R" {
			return nil, "", nil
		}
		phase, before = "R", math.MaxInt64
	}
}

// VectorBacklog counts the rows whose vector was not made by embedder.
func (s *Store) VectorBacklog(ctx context.Context, embedder string) (int, error) {
	var n int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE embedder <> ?`, embedder).Scan(&n); err != nil {
		return 0, fmt.Errorf("count rows to re-embed: %w", err)
	}
	return n, nil
}

// SetVectors stores new vectors in one transaction. A row that was deleted,
// or whose content changed since its vector was made, is skipped.
func (s *Store) SetVectors(ctx context.Context, updates []memory.VectorUpdate) ([]string, error) {
	var live []string
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		live = nil
		for _, u := range updates {
			var seq int64
			var isLive bool
			err := tx.QueryRowContext(ctx, `SELECT seq, retired_at IS NULL FROM memories WHERE id = ? AND content = ?`,
				u.ID, u.Content).Scan(&seq, &isLive)
			if err == sql.ErrNoRows {
				continue
			}
			if err != nil {
				return fmt.Errorf("re-embed %s: %w", u.ID, err)
			}
			if err := putVector(ctx, tx, seq, u.Vector); err != nil {
				return err
			}
			if isLive {
				live = append(live, u.ID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return live, nil
}
