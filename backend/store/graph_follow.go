package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"hyatlas/backend/memory"
)

// How relations follow the memories behind them (the rules are in
// memory/graph.go): the retirement trigger in 0004_graph.sql expires a
// relation whose last live fact is retired; the functions here do the rest
// in the same transaction as the row change.

// relationRowsWhere selects the L5 rows that state a relation.
var relationRowsWhere = `layer = '` + string(memory.LayerKnowledge) + `' AND json_extract(metadata, '$.` + memory.MetaRelation + `') = ?`

// reasonEvidenceRetired and reasonEvidenceDeleted are the retire reasons of
// an L5 row whose relation lost its evidence; the relation holding again
// (a fact behind it restored) brings the row back.
const (
	reasonEvidenceRetired = "the facts behind this relation were retired"
	reasonEvidenceDeleted = "the memories behind this relation were deleted"
)

// passesEvidence reports whether a row retired this way is succeeded by
// the row that retired it, as the same belief (not a changed value).
func passesEvidence(how memory.RetireHow) bool {
	return how == memory.RetiredUpdated || how == memory.RetiredRestated || how == memory.RetiredMerged
}

// passEvidence makes the live row to stand, as a fact, in every relation
// from stands in, so retiring from (next) does not expire them.
func passEvidence(ctx context.Context, tx *sql.Tx, from, to string) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO graph_evidence (rel_id, memory_id, kind)
		SELECT e.rel_id, m.id, 'fact' FROM graph_evidence e, memories m
		WHERE e.memory_id = ? AND e.kind = 'fact' AND m.id = ? AND m.retired_at IS NULL AND m.layer <> ?`,
		from, to, string(memory.LayerRaw)); err != nil {
		return fmt.Errorf("pass the evidence of %s to %s: %w", from, to, err)
	}
	return nil
}

// relationsLeftBy lists the held relations whose only live fact is id:
// retiring id expires them.
func relationsLeftBy(ctx context.Context, tx *sql.Tx, id string) ([]string, error) {
	return queryStrings(ctx, tx, `SELECT g.rel_id FROM graph_edges g
		WHERE g.expired_at IS NULL
		  AND g.rel_id IN (SELECT rel_id FROM graph_evidence WHERE memory_id = ? AND kind = 'fact')
		  AND NOT EXISTS (SELECT 1 FROM graph_evidence e JOIN memories m ON m.id = e.memory_id
		                  WHERE e.rel_id = g.rel_id AND e.kind = 'fact' AND m.retired_at IS NULL AND m.id <> ?)`, id, id)
}

// retireRelationRows retires the live L5 rows of relations that lost their
// evidence: recall must not offer what the graph no longer holds.
func (s *Store) retireRelationRows(ctx context.Context, tx *sql.Tx, rels []string, r memory.Retirement, cas *memory.Cascade) error {
	for _, rel := range rels {
		ids, err := queryStrings(ctx, tx, `SELECT id FROM memories WHERE retired_at IS NULL AND `+relationRowsWhere, rel)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := s.retireAlong(ctx, tx, id, r, false, cas); err != nil {
				return err
			}
		}
	}
	return nil
}

// reholdRelations holds again the relations that lost their support while
// id was retired (their last record says evidence_retired, or
// evidence_deleted when the others behind them were deleted meanwhile), by memory.PlanRehold
// against the subject's records held by then (whichever of the person's
// agents learnt them), and restores their L5 rows
// retired for the lost evidence. A relation learnt again meanwhile under
// another id gains this one's evidence instead.
func (s *Store) reholdRelations(ctx context.Context, tx *sql.Tx, id string, at time.Time, cas *memory.Cascade) error {
	last, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges g
		WHERE g.rel_id IN (SELECT rel_id FROM graph_evidence WHERE memory_id = ? AND kind = 'fact')
		  AND g.expired_how IN (?, ?)
		  AND g.seq = (SELECT max(seq) FROM graph_edges WHERE rel_id = g.rel_id)`,
		id, memory.ExpiredEvidenceRetired, memory.ExpiredEvidenceDeleted)
	if err != nil {
		return err
	}
	for _, rec := range last {
		held, err := heldOfSubject(ctx, tx, s.personOf(rec.Owner.UserID), rec.From, rec.Relation)
		if err != nil {
			return err
		}
		p := memory.PlanRehold(held, rec, at)
		if rec.ExpiredBy != "" && rec.ValidTo.IsZero() {
			// Freed of the end of a relation taken back (unboundExpired):
			// a return to the same place ends it, as in reopen.
			p = memory.PlanUnbounded(held, rec, at)
		}
		if p.Recite != "" {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO graph_evidence (rel_id, memory_id, kind)
				SELECT ?, memory_id, kind FROM graph_evidence WHERE rel_id = ?`, p.Recite, rec.ID); err != nil {
				return fmt.Errorf("join relation %s into %s: %w", rec.ID, p.Recite, err)
			}
			continue
		}
		if err := endRecords(ctx, tx, p.End, at, rec.ID); err != nil {
			return err
		}
		if err := insertRecord(ctx, tx, p.New); err != nil {
			return err
		}
		if rec.Exclusive { // only an exclusive relation bounds others
			if err := rebindFreed(ctx, tx, rec, at); err != nil {
				return err
			}
		}
		// Its rows retired because it lost its evidence come back, whichever
		// fact's retirement (or delete) took them; one retired by hand stays.
		// Not when the rules hold it again as a relation that has ended
		// (a later one of its kind began meanwhile): recall offers what
		// is true now, and the graph keeps its history. An end it had of
		// its own, known when it was learnt, changes nothing here.
		var rows []string
		if p.New.ValidTo.Equal(rec.ValidTo) || p.New.ValidTo.After(at) {
			rows, err = queryStrings(ctx, tx, `SELECT id FROM memories WHERE retired_at IS NOT NULL
				AND retired_how = ? AND retire_reason IN (?, ?) AND `+relationRowsWhere,
				string(memory.RetiredDropped), reasonEvidenceRetired, reasonEvidenceDeleted, rec.ID)
			if err != nil {
				return err
			}
		}
		// Held with no end now (one it had was taken back with the
		// relation that gave it, see unboundExpired): its rows retired for
		// that end come back too.
		if p.New.ValidTo.IsZero() {
			ended, err := queryStrings(ctx, tx, `SELECT id FROM memories WHERE retired_at IS NOT NULL
				AND retired_how = ? AND retire_reason = ? AND `+relationRowsWhere,
				string(memory.RetiredReplaced), memory.ReasonRelationEnded, rec.ID)
			if err != nil {
				return err
			}
			rows = append(rows, ended...)
		}
		for _, row := range rows {
			if _, err := s.restoreRow(ctx, tx, row, at, cas); err != nil {
				return err
			}
			cas.Restored = append(cas.Restored, row)
		}
		if p.New.ValidTo.IsZero() || p.New.ValidTo.After(at) {
			if err := noteRowless(ctx, tx, p.New.ID, len(rows), cas); err != nil {
				return err
			}
		}
		// The relations it ended (an exclusive one learnt meanwhile) are
		// no longer offered as true now: their rows retire as replaced.
		if len(p.End) > 0 {
			ended := make([]string, len(p.End))
			for i, e := range p.End {
				ended[i] = e.ID
			}
			by := ""
			if len(rows) > 0 {
				by = rows[0]
			}
			if err := s.retireRelationRows(ctx, tx, ended, memory.Retirement{How: memory.RetiredReplaced, By: by,
				Reason: memory.ReasonRelationEnded, At: at}, cas); err != nil {
				return err
			}
		}
	}
	return nil
}

// rebindFreed gives back the end a relation w gave: w was taken back as
// never true and is held again now, so each relation not held whose last
// record unboundExpired freed of w's end gets a record with that end
// again, recorded and expired at at (a restore of it then holds it ended
// where w began, as before w was taken back).
func rebindFreed(ctx context.Context, tx *sql.Tx, w memory.GraphEdge, at time.Time) error {
	freed, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges g
		WHERE g.expired_by = ? AND g.valid_to IS NULL AND g.expired_how IN (?, ?)
		  AND g.seq = (SELECT max(seq) FROM graph_edges WHERE rel_id = g.rel_id)`,
		w.ID, memory.ExpiredEvidenceRetired, memory.ExpiredEvidenceDeleted)
	if err != nil {
		return err
	}
	for _, e := range freed {
		e.ValidTo, e.RecordedAt, e.ExpiredAt, e.ExpiredBy = w.Began(), at, at, ""
		if err := insertRecord(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

// queryStrings reads one text column.
func queryStrings(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read relations: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("read relations: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read relations: %w", err)
	}
	return out, nil
}
