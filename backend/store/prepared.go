package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// execer runs statements: a transaction, or a preparedTx over one.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// preparedTx runs statements on a transaction, preparing each distinct
// SQL text once. A bulk write (an import) repeats a few statements many
// thousands of times, and preparing them is most of their cost.
type preparedTx struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func newPreparedTx(tx *sql.Tx) *preparedTx { return &preparedTx{tx: tx, stmts: map[string]*sql.Stmt{}} }

func (p *preparedTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := p.stmts[query]; ok {
		return st, nil
	}
	st, err := p.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	p.stmts[query] = st
	return st, nil
}

// ExecContext runs a prepared statement.
func (p *preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// exists reports whether query, prepared once, returns a row.
func (p *preparedTx) exists(ctx context.Context, query string, args ...any) (bool, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return false, err
	}
	var one int
	err = st.QueryRowContext(ctx, args...).Scan(&one)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// close releases the prepared statements.
func (p *preparedTx) close() {
	for _, st := range p.stmts {
		_ = st.Close()
	}
}

// readStmts are statements of a fixed text prepared once on the read
// pool and kept until Close: a search runs a few the same way every time,
// and parsing them cost as much as running them.
type readStmts struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// readStmt returns query prepared on the read pool, preparing it once.
// Only queries whose text does not depend on the data belong here.
func (s *Store) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.read.mu.Lock()
	defer s.read.mu.Unlock()
	if st, ok := s.read.stmts[query]; ok {
		return st, nil
	}
	st, err := s.reader.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.read.stmts == nil {
		s.read.stmts = map[string]*sql.Stmt{}
	}
	s.read.stmts[query] = st
	return st, nil
}

// closeReadStmts releases the statements readStmt prepared.
func (s *Store) closeReadStmts() error {
	s.read.mu.Lock()
	defer s.read.mu.Unlock()
	var errs []error
	for _, st := range s.read.stmts {
		errs = append(errs, st.Close())
	}
	s.read.stmts = nil
	return errors.Join(errs...)
}

// queryStmt runs a statement prepared by readStmt, calling fn per row.
func (s *Store) queryStmt(ctx context.Context, query string, args []any, fn func(*sql.Rows) error) error {
	st, err := s.readStmt(ctx, query)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, args...)
	return eachRow(rows, err, fn)
}
