package store

import (
	"context"
	"database/sql"
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
