package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"hyatlas/backend/memory"
)

// A memory's retirement and its return, and deletes: each also changes
// what goes with the row (its profile mirror, the relations it backs and
// their L5 rows, a merge it took part in) in the same transaction, and
// reports those rows as a memory.Cascade.

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
		out, err = s.retireRow(ctx, tx, id, r, withdraws(r), &cas)
		return err
	})
	return out, cas, err
}

// RetireMany implements memory.Store: all of them or, on an error, none.
func (s *Store) RetireMany(ctx context.Context, ids []string, r memory.Retirement) ([]memory.Memory, memory.Cascade, error) {
	if r.At.IsZero() {
		return nil, memory.Cascade{}, fmt.Errorf("retire: the retirement time is missing")
	}
	var out []memory.Memory
	var cas memory.Cascade
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		out, cas = nil, memory.Cascade{}
		for _, id := range ids {
			m, err := s.retireRow(ctx, tx, id, r, withdraws(r), &cas)
			if c := memory.ErrorCode(err); c == memory.ECONFLICT || c == memory.ENOTFOUND {
				continue // retired or deleted meanwhile: nothing of it was written
			}
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	return out, cas, err
}

// withdraws says whether a retirement takes the row back as never true
// (memory.RetiredWrong, which only Retire and RetireMany are asked for:
// never a model's plan, see Apply). Withdrawing the last fact of a
// relation so reopens what the relation ended (see reopenEnded). A row
// forgotten, dropped or deleted may have been true: what it ended stays
// ended.
func withdraws(r memory.Retirement) bool { return r.How == memory.RetiredWrong }

// retireRow retires one row and what goes with it (its profile mirror,
// the L5 rows of the relations it leaves without a live fact), which it
// adds to cas. withdrawn: the row is taken back as not true, so the
// relations it leaves reopen what they ended.
func (s *Store) retireRow(ctx context.Context, tx *sql.Tx, id string, r memory.Retirement, withdrawn bool, cas *memory.Cascade) (memory.Memory, error) {
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
		if err := s.retireAlong(ctx, tx, mirror, r, withdrawn, cas); err != nil {
			return memory.Memory{}, err
		}
	}
	// The trigger expired the relations left: their L5 rows go with them.
	if err := s.retireRelationRows(ctx, tx, left, memory.Retirement{How: memory.RetiredDropped, By: id,
		Reason: reasonEvidenceRetired, At: r.At}, cas); err != nil {
		return memory.Memory{}, err
	}
	if withdrawn {
		return m, s.reopenEnded(ctx, tx, left, r.At, cas)
	}
	return m, nil
}

// retireAlong retires a row that goes with another, unless it is gone or
// already retired.
func (s *Store) retireAlong(ctx context.Context, tx *sql.Tx, id string, r memory.Retirement, withdrawn bool, cas *memory.Cascade) error {
	_, err := s.retireRow(ctx, tx, id, r, withdrawn, cas)
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
		out, err = s.restoreRow(ctx, tx, id, at, &cas)
		return err
	})
	return out, cas, err
}

// restoreRow restores one row, its profile mirror when the two were
// retired together, and the relations its retirement expired (see
// reholdRelations); what comes back along is added to cas.
func (s *Store) restoreRow(ctx context.Context, tx *sql.Tx, id string, at time.Time, cas *memory.Cascade) (memory.Memory, error) {
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
		if err := s.restoreAlong(ctx, tx, mirror, retiredAt, at, cas); err != nil {
			return memory.Memory{}, err
		}
	}
	if h.How == memory.RetiredMerged && h.By != "" {
		if err := s.unmergeWhenWhole(ctx, tx, h.By, at, cas); err != nil {
			return memory.Memory{}, err
		}
	}
	return m, s.reholdRelations(ctx, tx, id, at, cas)
}

// reasonUnmerged is why a merged fact is retired once every fact it
// merged is back.
const reasonUnmerged = "the facts it merged were restored: the merge is undone"

// unmergeWhenWhole retires the fact a consolidation merge made once every
// fact it merged (its merged_from) is live again, so undoing a merge
// leaves the facts as they were, not them and their merge side by side.
// A row retired as merged by hand (no merged_from) is left alone, and so
// is a merge one of whose facts is gone or still retired.
func (s *Store) unmergeWhenWhole(ctx context.Context, tx *sql.Tx, merged string, at time.Time, cas *memory.Cascade) error {
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
	var w where
	w.add("retired_at IS NULL")
	w.in("id", ids)
	var live int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories`+w.sql(), w.args...).Scan(&live); err != nil {
		return fmt.Errorf("undo the merge into %s: %w", merged, err)
	}
	if live < len(ids) {
		return nil
	}
	// The relations that rest on the merged fact rest on its facts again,
	// so retiring it expires none of them (every fact stating them is live).
	for _, id := range ids {
		if err := passEvidence(ctx, tx, merged, id); err != nil {
			return err
		}
	}
	return s.retireAlong(ctx, tx, merged, memory.Retirement{How: memory.RetiredDropped, Reason: reasonUnmerged, At: at}, false, cas)
}

// restoreAlong restores a row that goes with another if it was retired in
// the same moment (with it); one retired on its own stays retired.
func (s *Store) restoreAlong(ctx context.Context, tx *sql.Tx, id string, with, at time.Time, cas *memory.Cascade) error {
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
	if _, err := s.restoreRow(ctx, tx, id, at, cas); err != nil {
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
		return s.dropEvidence(ctx, tx, ids, at, &cas)
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
