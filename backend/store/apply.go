package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"hyatlas/backend/memory"
)

// Apply commits every part of c in one transaction: the raw row's
// extraction marked done, inserts, updates, retirements (a row already
// retired, or deleted meanwhile, is left as it is), the episode the first
// insert summarises, and links. When the raw
// row is no longer a live pending row saying c.ExtractedContent (deleted,
// retired, extracted or edited while its extraction ran) nothing is
// applied and the error wraps memory.ErrStaleExtraction.
func (s *Store) Apply(ctx context.Context, c memory.Changes) (memory.Cascade, error) {
	var cas memory.Cascade
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		cas = memory.Cascade{}
		if c.Extracted != "" {
			res, err := tx.ExecContext(ctx, `UPDATE memories SET extract_state = ?, extract_error = ''
				WHERE id = ? AND extract_state = ? AND retired_at IS NULL AND content = ?`,
				string(memory.ExtractDone), c.Extracted, string(memory.ExtractPending), c.ExtractedContent)
			if err != nil {
				return fmt.Errorf("mark %s extracted: %w", c.Extracted, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return fmt.Errorf("apply extraction of %s: %w", c.Extracted, memory.ErrStaleExtraction)
			}
		}
		for _, r := range c.Insert {
			if err := insertRow(ctx, tx, r); err != nil {
				return err
			}
		}
		for _, u := range c.Update {
			if _, err := updateRow(ctx, tx, u.ID, u.Update); err != nil {
				return err
			}
		}
		for _, r := range c.Retire {
			_, err := s.retireRow(ctx, tx, r.ID, r.Retirement, false, &cas) // a plan: nothing is withdrawn
			if code := memory.ErrorCode(err); err != nil && code != memory.ECONFLICT && code != memory.ENOTFOUND {
				return err
			}
		}
		if c.Episode != 0 && len(c.Insert) > 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE episodes SET state = 'summarized', summary_id = ? WHERE seq = ?`,
				c.Insert[0].Memory.ID, c.Episode); err != nil {
				return fmt.Errorf("mark episode %d summarised: %w", c.Episode, err)
			}
		}
		for _, l := range c.Links {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO links (a, b, kind, at) VALUES (?, ?, ?, ?)`,
				l.A, l.B, l.Kind, l.At.UnixMilli()); err != nil {
				return fmt.Errorf("link %s-%s: %w", l.A, l.B, err)
			}
		}
		return nil
	})
	return cas, err
}

// PendingExtraction lists ids of live raw rows waiting for extraction,
// oldest first, created inside [from, to], with fewer than maxTries tries.
// A zero from or to does not bound.
func (s *Store) PendingExtraction(ctx context.Context, from, to time.Time, maxTries, limit int) ([]string, error) {
	var w where
	w.add("extract_state = ?", string(memory.ExtractPending))
	w.add("retired_at IS NULL")
	w.add("extract_tries < ?", maxTries)
	if !from.IsZero() {
		// A row asked for again counts from when it was asked.
		w.add("(created_at >= ? OR extract_asked_at >= ?)", from.UnixMilli(), from.UnixMilli())
	}
	if !to.IsZero() {
		w.add("created_at <= ?", to.UnixMilli())
	}
	var ids []string
	err := s.query(ctx, `SELECT id FROM memories`+w.sql()+` ORDER BY created_at, seq LIMIT ?`,
		append(w.args, limit), func(r *sql.Rows) error {
			var id string
			err := r.Scan(&id)
			ids = append(ids, id)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("list rows to extract: %w", err)
	}
	return ids, nil
}

// SetExtraction records where a raw row stands with extraction.
func (s *Store) SetExtraction(ctx context.Context, id string, state memory.ExtractState, tries int, errText string) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE memories SET extract_state = ?, extract_tries = ?,
			extract_error = ? WHERE id = ?`, string(state), tries, errText, id)
		if err != nil {
			return fmt.Errorf("record extraction of %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(id)
		}
		return nil
	})
}

// RequeueExtraction sets live raw rows pending again with their tries and
// error cleared: the given ids whatever their state, or with ids nil the
// oldest max rows not extracted (pending, failed, or skipped in lite mode;
// max 0: all). It returns the ids it requeued, oldest first for nil ids.
func (s *Store) RequeueExtraction(ctx context.Context, ids []string, max int, at time.Time) ([]string, error) {
	var done []string
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		done = done[:0]
		if ids == nil {
			q := `SELECT id FROM memories WHERE layer = 'l2_raw' AND retired_at IS NULL
				AND extract_state IN ('pending', 'failed', 'skipped') ORDER BY created_at, seq`
			var args []any
			if max > 0 {
				q += ` LIMIT ?`
				args = append(args, max)
			}
			rows, err := tx.QueryContext(ctx, q, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				ids = append(ids, id)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		for _, id := range ids {
			res, err := tx.ExecContext(ctx, `UPDATE memories SET extract_state = 'pending', extract_tries = 0,
				extract_error = '', extract_asked_at = ? WHERE layer = 'l2_raw' AND retired_at IS NULL AND id = ?`, at.UnixMilli(), id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				done = append(done, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("requeue extraction: %w", err)
	}
	return done, nil
}

// Linked lists the ids linked to id, at either end of a link.
func (s *Store) Linked(ctx context.Context, id string) ([]string, error) {
	var ids []string
	err := s.query(ctx, `SELECT b FROM links WHERE a = ? UNION SELECT a FROM links WHERE b = ?`,
		[]any{id, id}, func(r *sql.Rows) error {
			var x string
			err := r.Scan(&x)
			ids = append(ids, x)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("read links of %s: %w", id, err)
	}
	return ids, nil
}

// Neighbours returns, for each of ids, the ids linked to it (either end):
// the graph search lends scores along.
func (s *Store) Neighbours(ctx context.Context, ids []string) (map[string][]string, error) {
	out := map[string][]string{}
	seen := map[[2]string]bool{}
	add := func(r *sql.Rows) error {
		var from, to string
		if err := r.Scan(&from, &to); err != nil {
			return err
		}
		if k := [2]string{from, to}; !seen[k] {
			seen[k] = true
			out[from] = append(out[from], to)
		}
		return nil
	}
	linksSQL := `SELECT a, b FROM links WHERE a IN (` + placeholders(neighbourBatch) + `)
		UNION SELECT b, a FROM links WHERE b IN (` + placeholders(neighbourBatch) + `)`
	graphSQL := graphNeighbours(placeholders(neighbourBatch))
	for len(ids) > 0 {
		// Each batch fills all neighbourBatch places (with "", no memory's
		// id), so the two statements keep one text and are prepared once.
		batch := make([]any, neighbourBatch)
		for i := range batch {
			batch[i] = ""
			if i < len(ids) {
				batch[i] = ids[i]
			}
		}
		ids = ids[min(len(ids), neighbourBatch):]
		if err := s.queryStmt(ctx, linksSQL, append(batch, batch...), add); err != nil {
			return nil, fmt.Errorf("read links: %w", err)
		}
		if err := s.queryStmt(ctx, graphSQL, batch, add); err != nil {
			return nil, fmt.Errorf("read graph neighbours: %w", err)
		}
	}
	return out, nil
}

// neighbourBatch is how many memories one Neighbours statement asks about
// (a search asks about its ten strongest candidates).
const neighbourBatch = 10

// AddEgress records one call to an LLM endpoint.
func (s *Store) AddEgress(ctx context.Context, c memory.EgressCall) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO egress (at, host, model, purpose, bytes_out, bytes_in,
			status, outcome, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, c.At.UnixMilli(), c.Host,
			c.Model, c.Purpose, c.BytesOut, c.BytesIn, c.Status, c.Outcome, c.Duration)
		if err != nil {
			return fmt.Errorf("record egress: %w", err)
		}
		return nil
	})
}

// Outcomes of a ledger row whose request has no answer yet, and of one whose
// answer never came because HyAtlas stopped (a crash, a kill, power loss).
const (
	EgressInFlight    = "in_flight"
	EgressInterrupted = "interrupted"
)

// StartEgress records a request as it leaves, before its answer (outcome
// EgressInFlight), and returns its row's seq for FinishEgress: a request
// that went out is in the ledger even when HyAtlas dies before it ends.
func (s *Store) StartEgress(ctx context.Context, c memory.EgressCall) (int64, error) {
	var seq int64
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO egress (at, host, model, purpose, bytes_out, bytes_in,
			status, outcome, duration_ms) VALUES (?, ?, ?, ?, ?, 0, 0, ?, 0) RETURNING seq`, c.At.UnixMilli(), c.Host,
			c.Model, c.Purpose, c.BytesOut, EgressInFlight).Scan(&seq)
	})
	if err != nil {
		return 0, fmt.Errorf("record egress: %w", err)
	}
	return seq, nil
}

// FinishEgress writes how the request StartEgress recorded ended.
func (s *Store) FinishEgress(ctx context.Context, seq int64, c memory.EgressCall) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE egress SET bytes_out = ?, bytes_in = ?, status = ?, outcome = ?,
			duration_ms = ? WHERE seq = ?`, c.BytesOut, c.BytesIn, c.Status, c.Outcome, c.Duration, seq)
		if err != nil {
			return fmt.Errorf("record egress: %w", err)
		}
		return nil
	})
}

// InterruptEgress marks the requests still in flight when HyAtlas last
// stopped as interrupted, and counts them; run it at start, before any
// request.
func (s *Store) InterruptEgress(ctx context.Context) (int64, error) {
	var n int64
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE egress SET outcome = ? WHERE outcome = ?`, EgressInterrupted, EgressInFlight)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("mark interrupted requests: %w", err)
	}
	return n, nil
}

// ListEgress lists the newest calls first.
func (s *Store) ListEgress(ctx context.Context, limit int) ([]memory.EgressCall, error) {
	var out []memory.EgressCall
	err := s.query(ctx, `SELECT at, host, model, purpose, bytes_out, bytes_in, status, outcome, duration_ms
		FROM egress ORDER BY seq DESC LIMIT ?`, []any{limit}, func(r *sql.Rows) error {
		var c memory.EgressCall
		var at int64
		err := r.Scan(&at, &c.Host, &c.Model, &c.Purpose, &c.BytesOut, &c.BytesIn, &c.Status, &c.Outcome, &c.Duration)
		c.At = time.UnixMilli(at).UTC()
		out = append(out, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read egress: %w", err)
	}
	return out, nil
}
