package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hyatlas/backend/memory"
)

var _ memory.ConsolidationStore = (*Store)(nil)

// LoadClusters reads an owner's consolidation state; an owner never
// consolidated has the zero state.
func (s *Store) LoadClusters(ctx context.Context, owner string) (memory.OwnerClusters, error) {
	var raw string
	err := s.reader.QueryRowContext(ctx, `SELECT state FROM consolidation_state WHERE owner = ?`, owner).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.OwnerClusters{}, nil
	}
	if err != nil {
		return memory.OwnerClusters{}, fmt.Errorf("read clusters of %s: %w", owner, err)
	}
	var st memory.OwnerClusters
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return memory.OwnerClusters{}, fmt.Errorf("decode clusters of %s: %w", owner, err)
	}
	return st, nil
}

// SaveClusters replaces an owner's consolidation state.
func (s *Store) SaveClusters(ctx context.Context, owner string, st memory.OwnerClusters) error {
	raw, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode clusters of %s: %w", owner, err)
	}
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO consolidation_state (owner, state, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (owner) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
			owner, string(raw), time.Now().UnixMilli())
		if err != nil {
			return fmt.Errorf("save clusters of %s: %w", owner, err)
		}
		return nil
	})
}

// AllClusters reads every owner's consolidation state, by owner key.
func (s *Store) AllClusters(ctx context.Context) ([]memory.OwnerTopics, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT owner, state FROM consolidation_state ORDER BY owner`)
	if err != nil {
		return nil, fmt.Errorf("read every owner's clusters: %w", err)
	}
	defer rows.Close()
	var out []memory.OwnerTopics
	for rows.Next() {
		var t memory.OwnerTopics
		var raw string
		if err := rows.Scan(&t.Owner, &raw); err != nil {
			return nil, fmt.Errorf("read every owner's clusters: %w", err)
		}
		if err := json.Unmarshal([]byte(raw), &t.State); err != nil {
			return nil, fmt.Errorf("decode clusters of %s: %w", t.Owner, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read every owner's clusters: %w", err)
	}
	return out, nil
}

// importTopics merges each owner's imported topics with those held, in
// the import's transaction, and counts the owners it added to. A
// consolidation pass running meanwhile may save its own view of an
// owner's topics over the merged one when it ends; the imported topics
// are then sent to the model once more, as without them: nothing is lost.
func importTopics(ctx context.Context, tx *sql.Tx, topics []memory.OwnerTopics) (int, error) {
	n := 0
	for _, t := range topics {
		var held memory.OwnerClusters
		var raw string
		err := tx.QueryRowContext(ctx, `SELECT state FROM consolidation_state WHERE owner = ?`, t.Owner).Scan(&raw)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return 0, fmt.Errorf("read clusters of %s: %w", t.Owner, err)
		default:
			if err := json.Unmarshal([]byte(raw), &held); err != nil {
				return 0, fmt.Errorf("decode clusters of %s: %w", t.Owner, err)
			}
		}
		merged, added := memory.MergeTopics(held, t.State)
		if !added {
			continue
		}
		doc, err := json.Marshal(merged)
		if err != nil {
			return 0, fmt.Errorf("encode clusters of %s: %w", t.Owner, err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO consolidation_state (owner, state, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (owner) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
			t.Owner, string(doc), time.Now().UnixMilli())
		if err != nil {
			return 0, fmt.Errorf("import clusters of %s: %w", t.Owner, err)
		}
		n++
	}
	return n, nil
}

// citedRaw lists the ids raw rows are cited by: the evidence of held
// relations and the sources of live L1 and L3 rows. SQLite builds it
// once per query (the IN below is not correlated).
const citedRaw = `SELECT ev.memory_id FROM graph_evidence ev
		JOIN graph_edges e ON e.rel_id = ev.rel_id AND e.expired_at IS NULL
	UNION SELECT src.value FROM memories f, json_each(f.source_ids) src
		WHERE f.layer IN ('l1_profile', 'l3_fact') AND f.retired_at IS NULL`

// UncitedRaw lists up to limit raw rows created before cutoff that nothing
// cites (see citedRaw) and whose extraction is done, oldest first, and
// counts the old rows that are kept for those reasons. A live row whose
// extraction is pending, gave up (failed, waiting for reprocess) or never
// ran (written in lite mode) was never distilled, so it is kept.
func (s *Store) UncitedRaw(ctx context.Context, cutoff time.Time, limit int) ([]string, int, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT m.id,
		(m.extract_state <> 'done' AND m.retired_at IS NULL) OR m.id IN (`+citedRaw+`)
		FROM memories m
		WHERE m.layer = 'l2_raw' AND m.created_at < ? ORDER BY m.created_at, m.seq`, cutoff.UnixMilli())
	if err != nil {
		return nil, 0, fmt.Errorf("find uncited raw rows: %w", err)
	}
	defer rows.Close()
	var ids []string
	protected := 0
	for rows.Next() {
		var id string
		var cited bool
		if err := rows.Scan(&id, &cited); err != nil {
			return nil, 0, fmt.Errorf("read uncited raw rows: %w", err)
		}
		switch {
		case cited:
			protected++
		case len(ids) < limit:
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("read uncited raw rows: %w", err)
	}
	return ids, protected, nil
}
