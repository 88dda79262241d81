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

// Retire marks a live row retired and records why.
func (s *Store) Retire(ctx context.Context, id string, r memory.Retirement) (memory.Memory, memory.Cascade, error) {
	if r.At.IsZero() {
		return memory.Memory{}, memory.Cascade{}, fmt.Errorf("retire %s: the retirement time is missing", id)
	}
	var out memory.Memory
	var cas memory.Cascade
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		cas = memory.Cascade{}
		out, err = retireRow(ctx, tx, id, r, &cas)
		return err
	})
	return out, cas, err
}

// retireRow retires one row and what goes with it (its profile mirror,
// the L5 rows of the relations it leaves without a live fact), which it
// adds to cas.
func retireRow(ctx context.Context, tx *sql.Tx, id string, r memory.Retirement, cas *memory.Cascade) (memory.Memory, error) {
	m, seq, err := lockedRow(ctx, tx, id)
	if err != nil {
		return memory.Memory{}, err
	}
	if !m.Live() {
		return memory.Memory{}, memory.Errorf(memory.ECONFLICT, "memory %q is already retired (%s)", id, m.RetiredHow)
	}
	if r.By != "" && passesEvidence(r.How) {
		if err := passEvidence(ctx, tx, id, r.By); err != nil {
			return memory.Memory{}, err
		}
	}
	left, err := relationsLeftBy(ctx, tx, id)
	if err != nil {
		return memory.Memory{}, err
	}
	m.RetiredAt, m.RetiredBy, m.RetiredHow, m.RetireReason, m.UpdatedAt = stored(r.At), r.By, r.How, r.Reason, stored(r.At)
	if _, err := tx.ExecContext(ctx, `UPDATE memories SET retired_at = ?, retired_by = ?,
		retired_how = ?, retire_reason = ?, updated_at = ? WHERE seq = ?`,
		r.At.UnixMilli(), r.By, string(r.How), r.Reason, r.At.UnixMilli(), seq); err != nil {
		return memory.Memory{}, fmt.Errorf("retire memory %s: %w", id, err)
	}
	if err := addHistory(ctx, tx, memory.HistoryEntry{MemoryID: id, At: r.At,
		Action: memory.HistoryRetired, How: r.How, Reason: r.Reason, By: r.By}); err != nil {
		return memory.Memory{}, err
	}
	if mirror := m.Metadata[memory.MetaMirror]; mirror != "" {
		if err := retireAlong(ctx, tx, mirror, r, cas); err != nil {
			return memory.Memory{}, err
		}
	}
	// The trigger expired the relations left: their L5 rows go with them.
	return m, retireRelationRows(ctx, tx, left, memory.Retirement{How: memory.RetiredDropped, By: id,
		Reason: reasonEvidenceRetired, At: r.At}, cas)
}

// retireAlong retires a row that goes with another, unless it is gone or
// already retired.
func retireAlong(ctx context.Context, tx *sql.Tx, id string, r memory.Retirement, cas *memory.Cascade) error {
	_, err := retireRow(ctx, tx, id, r, cas)
	switch memory.ErrorCode(err) {
	case "":
		cas.Retired = append(cas.Retired, id)
		return nil
	case memory.ENOTFOUND, memory.ECONFLICT:
		return nil
	}
	return err
}

// Restore reverses a retirement and records that it did, with what was
// reversed.
func (s *Store) Restore(ctx context.Context, id string, at time.Time) (memory.Memory, memory.Cascade, error) {
	var out memory.Memory
	var cas memory.Cascade
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		cas = memory.Cascade{}
		out, err = restoreRow(ctx, tx, id, at, &cas)
		return err
	})
	return out, cas, err
}

// restoreRow restores one row, its profile mirror when the two were
// retired together, and the relations its retirement expired (see
// reholdRelations); what comes back along is added to cas.
func restoreRow(ctx context.Context, tx *sql.Tx, id string, at time.Time, cas *memory.Cascade) (memory.Memory, error) {
	m, seq, err := lockedRow(ctx, tx, id)
	if err != nil {
		return memory.Memory{}, err
	}
	if m.Live() {
		return memory.Memory{}, memory.Errorf(memory.ECONFLICT, "memory %q is not retired", id)
	}
	h := memory.HistoryEntry{MemoryID: id, At: at, Action: memory.HistoryRestored,
		How: m.RetiredHow, Reason: m.RetireReason, By: m.RetiredBy}
	retiredAt := m.RetiredAt
	if _, err := tx.ExecContext(ctx, `UPDATE memories SET retired_at = NULL, retired_by = '',
		retired_how = '', retire_reason = '', updated_at = ? WHERE seq = ?`, at.UnixMilli(), seq); err != nil {
		return memory.Memory{}, fmt.Errorf("restore memory %s: %w", id, err)
	}
	m.RetiredAt, m.RetiredBy, m.RetiredHow, m.RetireReason, m.UpdatedAt = time.Time{}, "", "", "", stored(at)
	if err := addHistory(ctx, tx, h); err != nil {
		return memory.Memory{}, err
	}
	if mirror := m.Metadata[memory.MetaMirror]; mirror != "" {
		if err := restoreAlong(ctx, tx, mirror, retiredAt, at, cas); err != nil {
			return memory.Memory{}, err
		}
	}
	if h.How == memory.RetiredMerged && h.By != "" {
		if err := unmergeWhenWhole(ctx, tx, h.By, at, cas); err != nil {
			return memory.Memory{}, err
		}
	}
	return m, reholdRelations(ctx, tx, id, at, cas)
}

// reasonUnmerged is why a merged fact is retired once every fact it
// merged is back.
const reasonUnmerged = "the facts it merged were restored: the merge is undone"

// unmergeWhenWhole retires the fact a consolidation merge made once every
// fact it merged (its merged_from) is live again, so undoing a merge
// leaves the facts as they were, not them and their merge side by side.
// A row retired as merged by hand (no merged_from) is left alone, and so
// is a merge one of whose facts is gone or still retired.
func unmergeWhenWhole(ctx context.Context, tx *sql.Tx, merged string, at time.Time, cas *memory.Cascade) error {
	var from string
	err := tx.QueryRowContext(ctx, `SELECT coalesce(json_extract(metadata, '$.`+memory.MetaMergedFrom+`'), '')
		FROM memories WHERE id = ? AND retired_at IS NULL`, merged).Scan(&from)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && from == "") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("undo the merge into %s: %w", merged, err)
	}
	ids := strings.Split(from, ",")
	var live int
	q := `SELECT count(*) FROM memories WHERE retired_at IS NULL AND id IN (` + placeholders(len(ids)) + `)`
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	if err := tx.QueryRowContext(ctx, q, args...).Scan(&live); err != nil {
		return fmt.Errorf("undo the merge into %s: %w", merged, err)
	}
	if live < len(ids) {
		return nil
	}
	return retireAlong(ctx, tx, merged, memory.Retirement{How: memory.RetiredDropped, Reason: reasonUnmerged, At: at}, cas)
}

// restoreAlong restores a row that goes with another if it was retired in
// the same moment (with it); one retired on its own stays retired.
func restoreAlong(ctx context.Context, tx *sql.Tx, id string, with, at time.Time, cas *memory.Cascade) error {
	m, _, err := lockedRow(ctx, tx, id)
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if m.Live() || !m.RetiredAt.Equal(with) {
		return nil
	}
	if _, err := restoreRow(ctx, tx, id, at, cas); err != nil {
		return err
	}
	cas.Restored = append(cas.Restored, id)
	return nil
}

// Delete removes the rows the filter selects, with their vectors, full-text
// entries and history, and the profile mirrors of the facts among them, in
// one transaction, and returns their ids (and the L5 rows retired because
// their relations lost the evidence).
func (s *Store) Delete(ctx context.Context, f memory.DeleteFilter) ([]string, memory.Cascade, error) {
	var w where
	w.in("id", f.IDs)
	w.layers("", f.Layers)
	w.scope("", f.Scope)
	if len(w.conds) == 0 && !f.Whole {
		return nil, memory.Cascade{}, memory.Errorf(memory.EBADREQUEST, "refusing to delete without a scope")
	}
	at := f.At
	if at.IsZero() {
		at = time.Now()
	}
	var ids []string
	var cas memory.Cascade
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		ids, cas = nil, memory.Cascade{}
		deleted, mirrors, err := deleteReturning(ctx, tx, w.sql(), w.args)
		if err != nil {
			return err
		}
		ids = deleted
		if len(mirrors) > 0 {
			var m where
			m.in("id", mirrors)
			more, _, err := deleteReturning(ctx, tx, m.sql(), m.args)
			if err != nil {
				return err
			}
			ids = append(ids, more...)
		}
		if len(f.IDs) == 0 && len(f.Layers) == 0 {
			return dropGraph(ctx, tx, f.Scope) // everything of these owners goes, the graph too
		}
		return dropEvidence(ctx, tx, ids, at, &cas)
	})
	return ids, cas, err
}

// deleteReturning deletes the rows a where clause selects and returns
// their ids and the ids of their profile mirrors.
func deleteReturning(ctx context.Context, tx *sql.Tx, where string, args []any) (ids, mirrors []string, err error) {
	rows, err := tx.QueryContext(ctx, `DELETE FROM memories`+where+`
		RETURNING id, coalesce(json_extract(metadata, '$.`+memory.MetaMirror+`'), '')`, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("delete memories: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, mirror string
		if err := rows.Scan(&id, &mirror); err != nil {
			return nil, nil, fmt.Errorf("delete memories: %w", err)
		}
		ids = append(ids, id)
		if mirror != "" {
			mirrors = append(mirrors, mirror)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("delete memories: %w", err)
	}
	return ids, mirrors, nil
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
// returns the ids that exist; unknown ids change nothing.
func (s *Store) MarkUsed(ctx context.Context, ids []string, at time.Time, bump float64) ([]string, error) {
	var found []string
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		found = found[:0]
		for _, id := range ids {
			res, err := tx.ExecContext(ctx, `UPDATE memories SET use_count = use_count + 1, last_used_at = ?,
				strength = CASE WHEN layer IN (`+curatedLayers+`) THEN round(min(1.0, strength + ?), 6) ELSE strength END
				WHERE id = ?`, at.UnixMilli(), bump, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				found = append(found, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count uses: %w", err)
	}
	return found, nil
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
