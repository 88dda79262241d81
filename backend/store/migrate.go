package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema step, from migrations/NNNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the embedded migrations in version order. Versions
// must start at 1 and have no gaps.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %q: name must start with a number and '_'", e.Name())
		}
		body, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int {
	ms, err := loadMigrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// schemaVersions reads the database's schema version and this build's.
func schemaVersions(ctx context.Context, db *sql.DB) (have, want int, err error) {
	ms, err := loadMigrations()
	if err != nil {
		return 0, 0, err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return 0, 0, fmt.Errorf("read schema version: %w", err)
	}
	if have > len(ms) {
		return have, have, fmt.Errorf("the database has schema version %d, newer than this build's %d: upgrade HyAtlas", have, len(ms))
	}
	return have, len(ms), nil
}

// migrate brings the database up to the latest schema, one transaction per
// step, recording the version in PRAGMA user_version. A database from a
// newer build is refused rather than touched.
func migrate(ctx context.Context, db *sql.DB) (from, to int, err error) {
	if from, _, err = schemaVersions(ctx, db); err != nil {
		return from, from, err
	}
	ms, err := loadMigrations()
	if err != nil {
		return 0, 0, err
	}
	for _, m := range ms[from:] {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return from, 0, fmt.Errorf("begin migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			_ = tx.Rollback()
			return from, 0, fmt.Errorf("apply migration %s: %w", m.name, err)
		}
		if hook := migrationHooks[m.version]; hook != nil {
			if err := hook(ctx, tx, time.Now().UTC()); err != nil {
				_ = tx.Rollback()
				return from, 0, fmt.Errorf("apply migration %s: %w", m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
			_ = tx.Rollback()
			return from, 0, fmt.Errorf("record migration %s: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return from, 0, fmt.Errorf("commit migration %s: %w", m.name, err)
		}
	}
	return from, len(ms), nil
}
