package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"hyatlas/backend/memory"
)

// Insert stores rows with their vectors and full-text entries. All rows of
// one call commit together or not at all.
func (s *Store) Insert(ctx context.Context, rows ...memory.NewRow) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, r := range rows {
			if err := insertRow(ctx, tx, r); err != nil {
				return err
			}
		}
		return nil
	})
}

func insertRow(ctx context.Context, tx execer, r memory.NewRow) error {
	m := r.Memory
	if m.SourceIDs == nil {
		m.SourceIDs = []string{}
	}
	if m.Metadata == nil {
		m.Metadata = map[string]string{}
	}
	srcIDs, err := jsonText(m.SourceIDs)
	if err != nil {
		return fmt.Errorf("encode source_ids: %w", err)
	}
	md, err := jsonText(m.Metadata)
	if err != nil {
		return fmt.Errorf("encode metadata: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO memories (`+memoryColumns+`, embedder)
		VALUES (`+placeholders(26)+`)`,
		m.ID, string(m.Layer), m.Content, m.Owner.UserID, m.Owner.AgentID, m.SessionID,
		m.Category, m.Strength, m.Source, srcIDs, md, millis(m.EventAt), millis(m.ValidTo),
		millis(m.DueAt), m.CreatedAt.UnixMilli(), m.UpdatedAt.UnixMilli(), millis(m.RetiredAt),
		m.RetiredBy, string(m.RetiredHow), m.RetireReason, m.UseCount, millis(m.LastUsedAt),
		string(m.Extraction), m.ExtractTries, m.ExtractError, embedderOf(r.Vector))
	if err != nil {
		return fmt.Errorf("insert memory %s: %w", m.ID, err)
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("insert memory %s: %w", m.ID, err)
	}
	if len(r.Vector.Values) == 0 {
		return nil
	}
	return putVector(ctx, tx, seq, r.Vector)
}

// embedderOf is the embedder recorded on a row: none without a vector.
func embedderOf(v memory.Vector) string {
	if len(v.Values) == 0 {
		return ""
	}
	return v.Embedder
}

// putVector stores a row's vector and records which embedder made it.
// The blob holds the vector and then its sentence parts, each of the
// same length (dims), so a blob of n×dims floats has n-1 parts.
func putVector(ctx context.Context, tx execer, seq int64, v memory.Vector) error {
	for i, p := range v.Parts {
		if len(p) != len(v.Values) {
			return fmt.Errorf("store vector: sentence %d has %d dimensions, the vector %d", i, len(p), len(v.Values))
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO embeddings (memory_seq, dims, vector) VALUES (?, ?, ?)
		ON CONFLICT (memory_seq) DO UPDATE SET dims = excluded.dims, vector = excluded.vector`,
		seq, len(v.Values), encodeVector(v.Values, v.Parts...))
	if err == nil {
		_, err = tx.ExecContext(ctx, `UPDATE memories SET embedder = ? WHERE seq = ? AND embedder <> ?`,
			v.Embedder, seq, v.Embedder)
	}
	if err != nil {
		return fmt.Errorf("store vector: %w", err)
	}
	return nil
}

// lockedRow reads a row inside the write transaction.
func lockedRow(ctx context.Context, tx *sql.Tx, id string) (memory.Memory, int64, error) {
	var seq int64
	m, err := scanMemory(tx.QueryRowContext(ctx,
		`SELECT `+memoryColumns+`, seq FROM memories WHERE id = ?`, id), &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Memory{}, 0, notFound(id)
	}
	if err != nil {
		return memory.Memory{}, 0, fmt.Errorf("read memory %s: %w", id, err)
	}
	return m, seq, nil
}

func addHistory(ctx context.Context, tx execer, h memory.HistoryEntry) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO history
		(memory_id, at, action, how, reason, by_id, old_content, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		h.MemoryID, h.At.UnixMilli(), string(h.Action), string(h.How), h.Reason, h.By, h.OldContent, h.Detail)
	if err != nil {
		return fmt.Errorf("record history of %s: %w", h.MemoryID, err)
	}
	return nil
}

// Update changes content, category, strength, metadata or event time. A
// content change needs a new vector and records the old text in history.
func (s *Store) Update(ctx context.Context, id string, u memory.Update) (memory.Memory, error) {
	var out memory.Memory
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		out, err = updateRow(ctx, tx, id, u)
		return err
	})
	return out, err
}

func updateRow(ctx context.Context, tx *sql.Tx, id string, u memory.Update) (memory.Memory, error) {
	m, seq, err := lockedRow(ctx, tx, id)
	if err != nil {
		return memory.Memory{}, err
	}
	if u.IfContent != nil && *u.IfContent != m.Content {
		return memory.Memory{}, memory.Errorf(memory.ESTALE, "the memory's text changed since it was read (an agent, the CLI or another window edited it): nothing was changed; read it again")
	}
	h := memory.HistoryEntry{MemoryID: id, At: u.At, Action: memory.HistoryEdited}
	changed := false // not h.OldContent != "": the old content may be empty
	if u.Content != nil && *u.Content != m.Content {
		if u.Vector == nil {
			return memory.Memory{}, fmt.Errorf("update %s: a content change needs a vector", id)
		}
		// The old text is kept as the version this one updated.
		h.OldContent, h.How, m.Content, changed = m.Content, memory.RetiredUpdated, *u.Content, true
		if err := putVector(ctx, tx, seq, *u.Vector); err != nil {
			return memory.Memory{}, err
		}
	}
	var details []string
	if u.Category != nil && *u.Category != m.Category {
		details = append(details, fmt.Sprintf("category %q -> %q", m.Category, *u.Category))
		m.Category, changed = *u.Category, true
	}
	if u.Strength == nil && u.StrengthStep != nil {
		st := memory.NudgedStrength(m.Strength, *u.StrengthStep)
		u.Strength = &st
	}
	if u.Strength != nil && *u.Strength != m.Strength {
		details = append(details, fmt.Sprintf("strength %.2f -> %.2f", m.Strength, *u.Strength))
		m.Strength, changed = *u.Strength, true
	}
	h.Detail = strings.Join(details, "; ")
	if u.Metadata != nil && !maps.Equal(u.Metadata, m.Metadata) {
		m.Metadata, changed = maps.Clone(u.Metadata), true
	}
	if u.EventAt != nil && !u.EventAt.Equal(m.EventAt) {
		m.EventAt, changed = stored(*u.EventAt), true
	}
	if !changed {
		return m, nil
	}
	md, err := jsonText(nonNilMap(m.Metadata))
	if err != nil {
		return memory.Memory{}, fmt.Errorf("encode metadata: %w", err)
	}
	m.UpdatedAt = stored(u.At)
	if _, err := tx.ExecContext(ctx, `UPDATE memories SET content = ?, category = ?, strength = ?,
		metadata = ?, event_at = ?, updated_at = ? WHERE seq = ?`, m.Content, m.Category, m.Strength,
		md, millis(m.EventAt), m.UpdatedAt.UnixMilli(), seq); err != nil {
		return memory.Memory{}, fmt.Errorf("update memory %s: %w", id, err)
	}
	return m, addHistory(ctx, tx, h)
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// AddCounter adds delta to a named counter.
func (s *Store) AddCounter(ctx context.Context, name string, delta int64) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO counters(name, value) VALUES (?, ?)
			ON CONFLICT(name) DO UPDATE SET value = value + excluded.value`, name, delta)
		return err
	})
}

// RaiseCounter sets a named counter to value unless it already holds more
// (a time that must only move forward).
func (s *Store) RaiseCounter(ctx context.Context, name string, value int64) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO counters(name, value) VALUES (?, ?)
			ON CONFLICT(name) DO UPDATE SET value = max(value, excluded.value)`, name, value)
		return err
	})
}

// Probe writes the current time and reads it back through the read pool.
// The value only grows, so concurrent probes that commit out of order still
// each read back at least their own time.
func (s *Store) Probe(ctx context.Context) error {
	now := time.Now().UnixNano()
	if err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE probe SET at = max(at, ?) WHERE id = 1`, now)
		return err
	}); err != nil {
		return fmt.Errorf("probe write: %w", err)
	}
	var got int64
	if err := s.reader.QueryRowContext(ctx, `SELECT at FROM probe WHERE id = 1`).Scan(&got); err != nil {
		return fmt.Errorf("probe read: %w", err)
	}
	if got < now {
		return fmt.Errorf("probe read back %d, wrote %d", got, now)
	}
	return nil
}

// DropVectors removes the vectors of the given rows and marks them as
// having none, so they count as waiting for an embedding (used at start
// for saved vectors that cannot be indexed).
func (s *Store) DropVectors(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE memory_seq =
				(SELECT seq FROM memories WHERE id = ?)`, id); err != nil {
				return fmt.Errorf("drop vector of %s: %w", id, err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE memories SET embedder = '' WHERE id = ?`, id); err != nil {
				return fmt.Errorf("drop vector of %s: %w", id, err)
			}
		}
		return nil
	})
}

// MarkUsed counts one use of each of ids at at (a reply used them). It
// returns the ids of live rows it counted; unknown and retired ids change
// nothing (the service counts a retired row's use for the row that
// replaced it). A call with a
// request id is recorded in the same transaction, so a crash cannot count
// it without recording it, or record it without counting it; a recorded
// one counts nothing again (memory.UseRequest). With req.LookOnly it only
// reports whether the request was recorded.
func (s *Store) MarkUsed(ctx context.Context, ids []string, at time.Time, bump float64, req memory.UseRequest) (memory.UseResult, error) {
	var res memory.UseResult
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res = memory.UseResult{}
		if req.ID != "" {
			if _, err := tx.ExecContext(ctx, `DELETE FROM feedback_requests WHERE at < ?`, req.Forget.UnixMilli()); err != nil {
				return err
			}
			var digest string
			err := tx.QueryRowContext(ctx, `SELECT digest, counted FROM feedback_requests WHERE request_id = ?`, req.ID).Scan(&digest, &res.Counted)
			switch {
			case err == nil && digest != req.Digest:
				return memory.Errorf(memory.ECONFLICT, "request_id %q was used for feedback on other memories: give each call its own", req.ID)
			case err == nil:
				res.Repeat = true
				return nil
			case !errors.Is(err, sql.ErrNoRows):
				return err
			case req.LookOnly:
				return nil
			}
		}
		for _, id := range ids {
			r, err := tx.ExecContext(ctx, `UPDATE memories SET use_count = min(use_count + 1, ?), last_used_at = ?,
				strength = CASE WHEN layer IN (`+curatedLayers+`) THEN round(min(1.0, strength + ?), 6) ELSE strength END
				WHERE id = ? AND retired_at IS NULL`, memory.MaxUseCount, at.UnixMilli(), bump, id)
			if err != nil {
				return err
			}
			if n, _ := r.RowsAffected(); n == 1 {
				res.Found = append(res.Found, id)
			}
		}
		if req.ID == "" {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO feedback_requests (request_id, digest, counted, at) VALUES (?, ?, ?, ?)`,
			req.ID, req.Digest, len(res.Found), at.UnixMilli())
		return err
	})
	if err != nil {
		return memory.UseResult{}, fmt.Errorf("count uses: %w", err)
	}
	return res, nil
}

// curatedLayers lists the layers whose rows have a strength that use and
// neglect move (memory.CuratedLayers), for SQL.
var curatedLayers = func() string {
	q := make([]string, len(memory.CuratedLayers))
	for i, l := range memory.CuratedLayers {
		q[i] = "'" + string(l) + "'"
	}
	return strings.Join(q, ", ")
}()

// Decay fades the rows f selects (see memory.DecayFilter), at most
// f.Limit of them when it is above 0, in one statement and returns how
// many faded.
func (s *Store) Decay(ctx context.Context, f memory.DecayFilter) (int, error) {
	if len(f.Layers) == 0 {
		return 0, nil
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(f.Layers)), ",")
	args := []any{f.Step, f.Floor, f.At.UnixMilli()}
	for _, l := range f.Layers {
		args = append(args, string(l))
	}
	limit := -1 // SQLite: no limit
	if f.Limit > 0 {
		limit = f.Limit
	}
	args = append(args, f.Floor, f.Before.UnixMilli(), limit)
	var n int64
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE memories SET strength = round(max(strength - ?, ?), 6), decayed_at = ?
			WHERE seq IN (SELECT seq FROM memories WHERE retired_at IS NULL AND layer IN (`+marks+`) AND strength > ?
			AND max(created_at, coalesce(last_used_at, 0), coalesce(decayed_at, 0)) <= ? LIMIT ?)`, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("decay strength: %w", err)
	}
	return int(n), nil
}
