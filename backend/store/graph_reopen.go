package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"hyatlas/backend/memory"
)

// reopenEnded reopens the relations that the withdrawn relations had
// ended (Alice works at Globex ended Alice works at Acme; the Globex facts
// were forgotten, so Acme never ended): each one's record from before the
// end holds again, recorded at, by memory.PlanRehold against what the
// subject holds now, so another held relation of its kind that began
// later still ends it, at that one's start. The record the end made
// expires as "reopened" by the withdrawn relation. A relation changed
// since the end (its own facts retired, ended again) is left as it is,
// and so is one whose end stays the same. Its L5 rows retired for the end
// come back when it holds now.
func (s *Store) reopenEnded(ctx context.Context, tx *sql.Tx, withdrawn []string, at time.Time, cas *memory.Cascade) error {
	for _, rel := range withdrawn {
		ended, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges g
			WHERE g.expired_how = ? AND g.expired_by = ?
			  AND g.seq = (SELECT max(seq) FROM graph_edges WHERE rel_id = g.rel_id AND expired_how = ? AND expired_by = ?)`,
			memory.ExpiredEnded, rel, memory.ExpiredEnded, rel)
		if err != nil {
			return err
		}
		for _, before := range ended {
			if err := s.reopen(ctx, tx, before, rel, at, cas); err != nil {
				return err
			}
		}
	}
	return nil
}

// reopen holds again the record before, which the relation by ended (see
// reopenEnded).
func (s *Store) reopen(ctx context.Context, tx *sql.Tx, before memory.GraphEdge, by string, at time.Time, cas *memory.Cascade) error {
	cur, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges WHERE rel_id = ? AND expired_at IS NULL`, before.ID)
	if err != nil {
		return err
	}
	if len(cur) != 1 || !cur[0].RecordedAt.Equal(before.ExpiredAt) {
		return nil // no longer held, or changed since the end: not the end's to undo
	}
	held, err := heldOfSubject(ctx, tx, s.personOf(before.Owner.UserID), before.From, before.Relation)
	if err != nil {
		return err
	}
	others := held[:0]
	for _, h := range held {
		if h.ID != before.ID {
			others = append(others, h)
		}
	}
	p := memory.PlanRehold(others, before, at)
	if p.Recite != "" || p.New.ValidTo.Equal(cur[0].ValidTo) {
		return nil // learnt again meanwhile, or it ends where it ended
	}
	if err := expireRecord(ctx, tx, before.ID, at, memory.ExpiredReopened, by); err != nil {
		return err
	}
	if err := endRecords(ctx, tx, p.End, at, before.ID); err != nil {
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
		string(memory.RetiredReplaced), memory.ReasonRelationEnded, before.ID)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if _, err := s.restoreRow(ctx, tx, row, at, cas); err != nil {
			return fmt.Errorf("restore the row of reopened relation %s: %w", before.ID, err)
		}
		cas.Restored = append(cas.Restored, row)
	}
	return nil
}
