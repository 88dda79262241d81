package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"time"

	"hyatlas/backend/memory"

	"modernc.org/sqlite"
)

// BackupTo writes a consistent, compact copy of the database to dst (which
// must not exist) with VACUUM INTO. It reads one snapshot of the database
// in a read transaction, so writes go on meanwhile and are simply not in
// the copy.
func (s *Store) BackupTo(ctx context.Context, dst string) error {
	if _, err := s.reader.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("copy the database: %w", err)
	}
	return nil
}

// beforeMigrate calls f when the database exists with an older schema.
func beforeMigrate(ctx context.Context, db *sql.DB, f func(context.Context, int, int, func(string) error) error) error {
	var from int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&from); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	to := SchemaVersion()
	if from == 0 || from >= to {
		return nil
	}
	return f(ctx, from, to, func(dst string) error {
		if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
			return fmt.Errorf("copy the database: %w", err)
		}
		return nil
	})
}

// MarkFile records key = value in the counters of a database file that is
// not in use (a restore stamps the copy it restores from, so that after a
// crash the live database tells whether the restore went in).
func MarkFile(ctx context.Context, path, key string, value int64) error {
	db, err := sql.Open("sqlite", fileURI(path))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `INSERT INTO counters(name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("mark %s: %w", path, err)
	}
	return nil
}

// Counter reads a counter (0 when there is none).
func (s *Store) Counter(ctx context.Context, key string) (int64, error) {
	var v int64
	err := s.reader.QueryRowContext(ctx, `SELECT value FROM counters WHERE name = ?`, key).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return v, err
}

// RestoreFrom replaces the whole database with the one at src, in one
// transaction (SQLite's backup API into the live database: a crash leaves
// either the old database or the new one), while writes wait. With before
// set, before must hold a copy of the current database made after
// WriteSeq returned beforeSeq: if any write ran since, the copy is made
// again inside the pause, so no acknowledged write falls between that copy
// and the restore. After the restore, a database of an older schema is
// migrated. It returns how long writes waited.
func (s *Store) RestoreFrom(ctx context.Context, src, before string, beforeSeq uint64) (time.Duration, error) {
	var paused time.Duration
	err := s.exclusive(ctx, func(ctx context.Context) error {
		start := time.Now()
		defer func() { paused = time.Since(start) }()
		conn, err := s.writer.Conn(ctx)
		if err != nil {
			return err
		}
		stale := before != "" && s.writeSeq.Load() != beforeSeq
		err = conn.Raw(func(dc any) error {
			c, ok := dc.(interface {
				NewBackup(string) (*sqlite.Backup, error)
				NewRestore(string) (*sqlite.Backup, error)
			})
			if !ok {
				return fmt.Errorf("the SQLite driver has no backup API")
			}
			if stale {
				if err := os.Remove(before); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				if err := copyPages(c.NewBackup, before); err != nil {
					return fmt.Errorf("copy the current database: %w", err)
				}
			}
			if before != "" {
				// Into the copy to restore, before anything changes: a
				// failure leaves the live data as it is.
				if err := carryLedger(ctx, src, before); err != nil {
					return fmt.Errorf("keep the egress ledger (nothing was restored): %w", err)
				}
			}
			if err := copyPages(c.NewRestore, src); err != nil {
				return fmt.Errorf("restore the database: %w", err)
			}
			return nil
		})
		if cerr := conn.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if _, _, err := migrate(ctx, s.writer); err != nil {
			return fmt.Errorf("migrate the restored database: %w", err)
		}
		return nil
	})
	return paused, err
}

// carryLedger puts the egress ledger of before (a copy of the database a
// restore replaces) into src, the copy about to be restored: a restore
// takes back memories, never the record of what left the machine. The
// ledger goes in with the restore's pages, in its one transaction.
func carryLedger(ctx context.Context, src, before string) error {
	if _, err := os.Stat(before); err != nil {
		return err // a restore copies the current database aside first: it must be there
	}
	db, err := sql.Open("sqlite", fileURI(src))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // ATTACH holds for one connection
	if _, err := db.ExecContext(ctx, "ATTACH DATABASE ? AS before_restore", before); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	const cols = "seq, at, host, model, purpose, bytes_out, bytes_in, status, outcome, duration_ms"
	if _, err := tx.ExecContext(ctx, "DELETE FROM main.egress"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO main.egress ("+cols+") SELECT "+cols+" FROM before_restore.egress"); err != nil {
		return err
	}
	return tx.Commit()
}

// copyPages runs one backup or restore to completion in a single step (one
// transaction on the destination).
func copyPages(open func(string) (*sqlite.Backup, error), path string) error {
	b, err := open(fileURI(path))
	if err != nil {
		return err
	}
	_, err = b.Step(-1)
	if ferr := b.Finish(); err == nil {
		err = ferr
	}
	return err
}

// FileInfo describes a database file: its schema version, SQLite's
// integrity check ("ok" when sound), and its counts.
type FileInfo struct {
	Schema     int                  `json:"schema_version"`
	Integrity  string               `json:"integrity"`
	Live       map[memory.Layer]int `json:"layers"`
	Retired    int                  `json:"retired"`
	GraphNodes int                  `json:"graph_nodes"`
	GraphEdges int                  `json:"graph_edges"` // relations held now
}

// InspectFile opens a database file read-only (not one in use) and reads
// its schema version, integrity and counts.
func InspectFile(ctx context.Context, path string) (FileInfo, error) {
	db, err := sql.Open("sqlite", fileURI(path)+"?"+url.Values{"mode": {"ro"}}.Encode())
	if err != nil {
		return FileInfo{}, err
	}
	defer db.Close()
	info := FileInfo{Live: map[memory.Layer]int{}}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&info.Schema); err != nil {
		return info, fmt.Errorf("not a database HyAtlas can read: %w", err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&info.Integrity); err != nil {
		return info, fmt.Errorf("integrity check: %w", err)
	}
	if info.Schema < 1 || info.Integrity != "ok" {
		return info, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT layer, count(*) FROM memories WHERE retired_at IS NULL GROUP BY layer`)
	if err != nil {
		return info, fmt.Errorf("count memories: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var l string
		var n int
		if err := rows.Scan(&l, &n); err != nil {
			return info, err
		}
		info.Live[memory.Layer(l)] = n
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE retired_at IS NOT NULL`).Scan(&info.Retired); err != nil {
		return info, err
	}
	if info.Schema >= 4 { // the graph arrived with migration 0004
		if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM graph_nodes),
			(SELECT count(*) FROM graph_edges WHERE expired_at IS NULL)`).Scan(&info.GraphNodes, &info.GraphEdges); err != nil {
			return info, err
		}
	}
	return info, nil
}
