package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hyatlas/backend/memory"
)

// ScanExport calls fn for every row in scope, live and retired, in the
// order they were written, with its history and, when withVectors, its
// saved vector (nil when it has none). The rows and their histories are
// read in one read transaction, so they show one moment: a row retired
// meanwhile is never exported retired without the line that says why.
func (s *Store) ScanExport(ctx context.Context, scope memory.Scope, withVectors bool, fn func(memory.ExportRow) error) error {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	history := map[string][]memory.HistoryEntry{}
	rows, err := tx.QueryContext(ctx, `SELECT memory_id, at, action, how, reason, by_id, old_content, detail FROM history ORDER BY seq`)
	err = eachRow(rows, err,
		func(r *sql.Rows) error {
			var h memory.HistoryEntry
			var at sql.NullInt64
			var action, how string
			err := r.Scan(&h.MemoryID, &at, &action, &how, &h.Reason, &h.By, &h.OldContent, &h.Detail)
			h.At, h.Action, h.How = fromMillis(at), memory.HistoryAction(action), memory.RetireHow(how)
			history[h.MemoryID] = append(history[h.MemoryID], h)
			return err
		})
	if err != nil {
		return fmt.Errorf("export history: %w", err)
	}
	var w where
	w.scope("m.", scope)
	q := `SELECT ` + prefixed("m") + `, m.decayed_at, m.embedder, e.dims, e.vector FROM memories m
		LEFT JOIN embeddings e ON e.memory_seq = m.seq` + w.sql() + ` ORDER BY m.seq`
	if !withVectors {
		q = `SELECT ` + prefixed("m") + `, m.decayed_at, m.embedder, NULL, NULL FROM memories m` + w.sql() + ` ORDER BY m.seq`
	}
	rows, err = tx.QueryContext(ctx, q, w.args...)
	if err != nil {
		return fmt.Errorf("export memories: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var embedder string
		var dims, decayed sql.NullInt64
		var blob []byte
		m, err := scanMemory(rows, &decayed, &embedder, &dims, &blob)
		if err != nil {
			return fmt.Errorf("export memories: %w", err)
		}
		row := memory.ExportRow{Memory: m, History: history[m.ID], DecayedAt: fromNullMillis(decayed)}
		if withVectors && dims.Valid && len(blob) > 0 {
			values, parts, err := decodeVector(nil, blob, int(dims.Int64))
			if err != nil {
				return fmt.Errorf("export the vector of %s: %w", m.ID, err)
			}
			row.Vector = &memory.Vector{Embedder: embedder, Values: values, Parts: parts}
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export memories: %w", err)
	}
	return nil
}

// ImportRows writes, in one transaction, every row whose id the store
// does not hold yet, with its history, vector and last fade, and returns
// the ids it wrote; rows already held are left as they are. A live turn
// that comes in pending is dated asked-for at set.At. The graph and
// the owners' topics are merged in the same transaction (see importGraph
// and importTopics).
func (s *Store) ImportRows(ctx context.Context, set memory.ImportSet) (memory.ImportWritten, error) {
	var done memory.ImportWritten
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		done = memory.ImportWritten{}
		p := newPreparedTx(tx)
		defer p.close()
		for _, r := range set.Rows {
			held, err := p.exists(ctx, `SELECT 1 FROM memories WHERE id = ?`, r.Memory.ID)
			if err != nil {
				return fmt.Errorf("look up %s: %w", r.Memory.ID, err)
			}
			if held {
				continue
			}
			nr := memory.NewRow{Memory: r.Memory}
			if r.Vector != nil {
				nr.Vector = *r.Vector
			}
			if err := insertRow(ctx, p, nr); err != nil {
				return err
			}
			if m := r.Memory; m.Layer == memory.LayerRaw && m.Live() && m.Extraction == memory.ExtractPending && !set.At.IsZero() {
				if _, err := tx.ExecContext(ctx, `UPDATE memories SET extract_asked_at = ? WHERE id = ?`,
					set.At.UnixMilli(), m.ID); err != nil {
					return fmt.Errorf("import %s: %w", m.ID, err)
				}
			}
			if !r.DecayedAt.IsZero() {
				if _, err := tx.ExecContext(ctx, `UPDATE memories SET decayed_at = ? WHERE id = ?`,
					r.DecayedAt.UnixMilli(), r.Memory.ID); err != nil {
					return fmt.Errorf("import %s: %w", r.Memory.ID, err)
				}
			}
			for _, h := range r.History {
				h.MemoryID = r.Memory.ID
				if err := addHistory(ctx, p, h); err != nil {
					return err
				}
			}
			done.IDs = append(done.IDs, r.Memory.ID)
		}
		var err error
		var cas memory.Cascade
		if done.Graph, err = s.importGraph(ctx, tx, set.Graph, &cas); err != nil {
			return err
		}
		done.Retired = cas.Retired
		if done.Topics, err = importTopics(ctx, tx, set.Topics); err != nil {
			return err
		}
		// Committed with the rows: the import's files are its own now.
		_, err = tx.ExecContext(ctx, `DELETE FROM journal WHERE name = ?`, memory.JournalImport)
		return err
	})
	if err != nil {
		return memory.ImportWritten{}, fmt.Errorf("import memories: %w", err)
	}
	return done, nil
}

// SetJournal writes down (doc) or, with doc "", clears the entry name of
// work that spans the database and files (see memory.Journal).
func (s *Store) SetJournal(ctx context.Context, name, doc string) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if doc == "" {
			_, err = tx.ExecContext(ctx, `DELETE FROM journal WHERE name = ?`, name)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO journal(name, doc, at) VALUES (?, ?, ?)
				ON CONFLICT(name) DO UPDATE SET doc = excluded.doc, at = excluded.at`, name, doc, time.Now().UnixMilli())
		}
		if err != nil {
			return fmt.Errorf("journal %s: %w", name, err)
		}
		return nil
	})
}

// Journal reads the entry name ("" when there is none).
func (s *Store) Journal(ctx context.Context, name string) (string, error) {
	var doc string
	err := s.reader.QueryRowContext(ctx, `SELECT doc FROM journal WHERE name = ?`, name).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read journal %s: %w", name, err)
	}
	return doc, nil
}
