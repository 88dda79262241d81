package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"hyatlas/backend/memory"
)

// reopenEnded re-plans the relations that the withdrawn relations (their
// last fact taken back as never true) had bounded. Alice works at Globex
// (from March 2025) ended Alice works at Acme; the Globex facts were
// wrong, so Acme never ended then. A bounded relation is one of the
// subject's held records of the same exclusive kind whose end is the
// withdrawn relation's start: one it ended, or one that arrived late and
// ended itself where it began. Each is held again without that end, by
// memory.PlanRehold against what the subject holds now, so another held
// relation of its kind still ends it, at that one's start; the oldest
// first, so each is planned against the ends already undone. Its record
// with the old end expires as "reopened" by the withdrawn relation, and
// its L5 rows retired for the end come back when it holds now. A bounded
// relation not held now (its own facts retired) gets a record without
// the end, expired as its last one was, from which restoring a fact of
// it holds it again (see unboundExpired).
func (s *Store) reopenEnded(ctx context.Context, tx *sql.Tx, withdrawn []string, at time.Time, cas *memory.Cascade) error {
	for _, rel := range withdrawn {
		last, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges
			WHERE rel_id = ? ORDER BY seq DESC LIMIT 1`, rel)
		if err != nil {
			return err
		}
		if len(last) == 0 || !last[0].Exclusive {
			continue
		}
		w := last[0]
		held, err := heldOfSubject(ctx, tx, s.personOf(w.Owner.UserID), w.From, w.Relation)
		if err != nil {
			return err
		}
		var bounded []memory.GraphEdge
		for _, h := range held {
			if h.ID != w.ID && h.Exclusive && h.ValidTo.Equal(w.Began()) {
				bounded = append(bounded, h)
			}
		}
		sort.SliceStable(bounded, func(i, j int) bool { return bounded[i].Began().Before(bounded[j].Began()) })
		for _, b := range bounded {
			if err := s.reopen(ctx, tx, b.ID, w, at, cas); err != nil {
				return err
			}
		}
		if err := s.unboundExpired(ctx, tx, w, at); err != nil {
			return err
		}
	}
	return nil
}

// unboundExpired gives each relation of w's subject and kind that is not
// held now (its facts retired or deleted) and whose last record ends at
// w's start a record without that end, recorded and expired at at (it is
// never shown as held), so a restore of its facts holds it from there
// (reholdRelations replays the last record), not with the end of a
// relation that never was.
func (s *Store) unboundExpired(ctx context.Context, tx *sql.Tx, w memory.GraphEdge, at time.Time) error {
	person := s.personOf(w.Owner.UserID)
	users := placeholders(len(person))
	args := append([]any{w.Relation, w.Began().UnixMilli(), memory.ExpiredEvidenceRetired, memory.ExpiredEvidenceDeleted}, anys(person)...)
	args = append(append(args, w.From), anys(person)...)
	last, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges g
		WHERE g.relation = ? AND g.exclusive AND g.valid_to = ? AND g.expired_how IN (?, ?)
		  AND g.user_id IN (`+users+`) AND g.src IN (
			SELECT n.id FROM graph_nodes n, graph_nodes s WHERE s.id = ? AND n.norm = s.norm AND n.user_id IN (`+users+`))
		  AND g.seq = (SELECT max(seq) FROM graph_edges WHERE rel_id = g.rel_id)`, args...)
	if err != nil {
		return err
	}
	for _, e := range last {
		if e.ID == w.ID {
			continue
		}
		e.ValidTo, e.RecordedAt, e.ExpiredAt, e.ExpiredBy = time.Time{}, at, at, w.ID
		if err := insertRecord(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

// reopen holds relation id again without the end the withdrawn relation w
// gave it (see reopenEnded).
func (s *Store) reopen(ctx context.Context, tx *sql.Tx, id string, w memory.GraphEdge, at time.Time, cas *memory.Cascade) error {
	cur, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges WHERE rel_id = ? AND expired_at IS NULL`, id)
	if err != nil {
		return err
	}
	if len(cur) != 1 || !cur[0].ValidTo.Equal(w.Began()) {
		return nil // changed by a relation reopened before it
	}
	held, err := heldOfSubject(ctx, tx, s.personOf(w.Owner.UserID), cur[0].From, cur[0].Relation)
	if err != nil {
		return err
	}
	others := held[:0]
	for _, h := range held {
		if h.ID != id && h.ID != w.ID {
			others = append(others, h)
		}
	}
	open := cur[0]
	open.ValidTo = time.Time{}
	p := memory.PlanUnbounded(others, open, at) // a return to the same place: it ends there, no gap where w was
	if p.Recite != "" || p.New.ValidTo.Equal(cur[0].ValidTo) {
		return nil // learnt again meanwhile, or it ends there all the same
	}
	if err := expireRecord(ctx, tx, id, at, memory.ExpiredReopened, w.ID); err != nil {
		return err
	}
	if err := endRecords(ctx, tx, p.End, at, id); err != nil {
		return err
	}
	if err := insertRecord(ctx, tx, p.New); err != nil {
		return err
	}
	if !p.New.ValidTo.IsZero() && !p.New.ValidTo.After(at) {
		return nil // it has ended all the same: recall offers what is true now
	}
	rows, err := queryStrings(ctx, tx, `SELECT id FROM memories WHERE retired_at IS NOT NULL
		AND retired_how = ? AND retire_reason = ? AND `+relationRowsWhere,
		string(memory.RetiredReplaced), memory.ReasonRelationEnded, id)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if _, err := s.restoreRow(ctx, tx, row, at, cas); err != nil {
			return fmt.Errorf("restore the row of reopened relation %s: %w", id, err)
		}
		cas.Restored = append(cas.Restored, row)
	}
	return noteRowless(ctx, tx, id, len(rows), cas)
}

// noteRowless lists relation rel, held again and true now, in cas.Reheld
// when it brought back none of its L5 rows (restored) and has none at all:
// learnt late, as already ended, it never had one. A row retired by hand,
// or for an end, counts (the first stays retired; the second came back
// or the relation is not true now); one an upgrade retired as resting on
// another agent's facts does not (the agent's own facts earn it a row,
// as when a pass learns the relation again).
func noteRowless(ctx context.Context, tx *sql.Tx, rel string, restored int, cas *memory.Cascade) error {
	if restored > 0 {
		return nil
	}
	rows, err := queryStrings(ctx, tx, `SELECT id FROM memories WHERE (retired_at IS NULL OR coalesce(retire_reason, '') <> ?)
		AND `+relationRowsWhere+` LIMIT 1`, memory.ReasonOtherAgents, rel)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		cas.Reheld = append(cas.Reheld, rel)
	}
	return nil
}
