// Package store is the SQLite system of record (modernc.org/sqlite, no cgo):
// memory rows, their vectors, the FTS5 index, history and counters.
//
// One goroutine owns the only write connection and commits waiting writes
// together (group commit): each write runs in its own savepoint inside a
// shared transaction, so one bad write fails alone, and every write in a
// batch is acknowledged only after the batch's COMMIT returned with
// synchronous=FULL, i.e. after it is on disk. Reads use a separate pool and
// never wait for writes (WAL).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"hyatlas/backend/fslock"
	"hyatlas/backend/memory"

	"modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the database file inside the data directory.
const FileName = "hyatlas.db"

// maxBatch bounds how many writes share one commit.
const maxBatch = 256

// ErrClosed is returned for writes after Close.
var ErrClosed = memory.Errorf(memory.EUNAVAILABLE, "the store is closed")

// Store implements memory.Store on SQLite.
type Store struct {
	path string
	file os.FileInfo // the database file opened, to tell when it is moved or deleted
	lock *fslock.Lock
	// readOnly: the data folder may not be written, so the database was
	// opened for reading only (see OpenWith).
	readOnly bool
	reader   *sql.DB
	writer   *sql.DB

	ops      chan writeOp
	closing  chan struct{}
	loopDone chan struct{}
	closeMu  sync.RWMutex
	closed   bool
	writeSeq atomic.Uint64 // batches and exclusive ops run
	stats    statsCache    // the last Stats, valid until the next write
	// fault is the last write's storage error (a full disk, a folder that
	// may not be written), nil once a write commits after it.
	fault atomic.Pointer[error]
	// diskFull: the fault is a full disk, which ends only with room for
	// more than a small write (minFreeBytes).
	diskFull atomic.Bool
	read     readStmts // statements prepared once on reader

	// people maps a user id to the user ids that are one person with it
	// (see UsePeople); nil: each user is a person alone.
	people atomic.Pointer[func(string) []string]

	// Migrated reports the schema versions before and after Open.
	MigratedFrom, MigratedTo int
}

type writeOp struct {
	ctx  context.Context
	fn   func(context.Context, *sql.Tx) error
	raw  func(context.Context) error // an exclusive op: runs alone, no transaction (see exclusive)
	done chan error
}

// Options change how Open opens a store.
type Options struct {
	// BeforeMigrate, when set, is called before an existing database of an
	// older schema is migrated, with the versions and a function that
	// copies the database as it is (VACUUM INTO dst); an error stops Open
	// and leaves the database untouched.
	BeforeMigrate func(ctx context.Context, from, to int, copyTo func(dst string) error) error
}

// ReadOnly reports whether the store was opened read-only: its data folder
// may not be written (see OpenWith), so every write fails.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close stops accepting writes, commits those already queued, checkpoints
// the WAL and closes the database.
func (s *Store) Close() error {
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closing)
	s.closeMu.Unlock()
	<-s.loopDone
	var cpErr error
	if !s.readOnly {
		_, cpErr = s.writer.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	}
	return errors.Join(cpErr, s.closeReadStmts(), s.reader.Close(), s.writer.Close(), s.lock.Release())
}

// write runs fn in the shared write transaction and returns once the
// transaction holding it has committed (or fn failed).
func (s *Store) write(ctx context.Context, fn func(context.Context, *sql.Tx) error) error {
	return s.submit(ctx, writeOp{fn: fn})
}

// exclusive runs fn on the write connection with no transaction open and
// no other write running: writes queued meanwhile wait for it, then go in.
func (s *Store) exclusive(ctx context.Context, fn func(context.Context) error) error {
	return s.submit(ctx, writeOp{raw: fn})
}

// submit queues op for the write loop and waits for its result. Once
// queued, the op is waited for even if ctx ends: the caller must learn
// whether it was committed.
func (s *Store) submit(ctx context.Context, op writeOp) error {
	if s.readOnly {
		return s.WriteFault()
	}
	op.ctx, op.done = context.WithoutCancel(ctx), make(chan error, 1)
	s.closeMu.RLock()
	if s.closed {
		s.closeMu.RUnlock()
		return ErrClosed
	}
	select {
	case s.ops <- op:
	case <-ctx.Done():
		s.closeMu.RUnlock()
		return ctx.Err()
	}
	s.closeMu.RUnlock()
	raw := <-op.done
	err := storageError(raw)
	switch {
	case err == nil:
		// A full disk is over when a write commits and there is room for
		// more than a small one: a write that fit in the space the log
		// already holds does not mean an add would.
		if s.diskFull.Load() {
			if free, ok := freeBytes(filepath.Dir(s.path)); ok && free < minFreeBytes {
				break
			}
		}
		s.fault.Store(nil)
		s.diskFull.Store(false)
	case errors.Is(err, memory.ErrStorage):
		s.fault.Store(&err)
		s.diskFull.Store(sqliteCode(raw) == sqlite3.SQLITE_FULL)
	}
	return err
}

// minFreeBytes is the free space below which a disk that filled up still
// counts as full (about a few hundred adds with their vectors and log).
const minFreeBytes = 4 << 20

// DiskFull reports whether err is a disk out of room: SQLite's "database
// or disk is full" (a copy into a full folder says so too), or the file
// system's own.
func DiskFull(err error) bool {
	return sqliteCode(err) == sqlite3.SQLITE_FULL || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// sqliteCode is the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return 0
	}
	return se.Code() & 0xff
}

// WriteFault is why the last write could not be stored when the cause was
// the disk (full, read-only, failing), or nil: writes are being stored.
// It clears at the next write that commits (after a full disk, once there
// is room for more than a small write too).
func (s *Store) WriteFault() error {
	if p := s.fault.Load(); p != nil {
		return *p
	}
	return nil
}

// storageError says in words a person can act on why a write could not be
// stored when the cause is the disk, not the data: a full disk, or a data
// folder HyAtlas may not write (a 503 at the API, instead of an internal
// error whose cause only the log had). Other errors pass unchanged.
func storageError(err error) error {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_FULL:
		return memory.StorageFault("the disk holding HyAtlas's data is full: nothing was stored; free some space and try again")
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN:
		return memory.StorageFault("HyAtlas may not write its data folder (read-only, or its permissions changed): nothing was stored")
	case sqlite3.SQLITE_IOERR:
		return memory.StorageFault("the disk holding HyAtlas's data failed a write: nothing was stored (%v)", err)
	}
	return err
}

func (s *Store) writeLoop() {
	defer close(s.loopDone)
	var carry *writeOp // an exclusive op met while filling a batch
	for {
		var first writeOp
		if carry != nil {
			first, carry = *carry, nil
		} else {
			select {
			case first = <-s.ops:
			case <-s.closing:
				// Close holds closeMu, so nothing new can be queued: drain.
				for {
					select {
					case op := <-s.ops:
						s.run([]writeOp{op})
					default:
						return
					}
				}
			}
		}
		batch := []writeOp{first}
	fill:
		for len(batch) < maxBatch && first.raw == nil {
			select {
			case op := <-s.ops:
				if op.raw != nil {
					carry = &op
					break fill
				}
				batch = append(batch, op)
			default:
				break fill
			}
		}
		s.run(batch)
	}
}

// run commits a batch, or runs an exclusive op alone. The write sequence
// moves before any caller hears back, so a read that follows a write
// never sees the sequence of before it (the stats cache relies on that).
func (s *Store) run(batch []writeOp) {
	var errs []error
	if len(batch) == 1 && batch[0].raw != nil {
		errs = []error{batch[0].raw(batch[0].ctx)}
	} else {
		errs = s.commit(batch)
	}
	s.writeSeq.Add(1)
	for i, op := range batch {
		op.done <- errs[i]
	}
}

// WriteSeq changes after every write the store runs: a copy made after
// reading it holds every write if it has not changed since.
func (s *Store) WriteSeq() uint64 { return s.writeSeq.Load() }

// commit runs a batch in one transaction, each op in its own savepoint:
// an op that fails is rolled back alone and the others commit. If SQLite
// cannot keep the transaction (a savepoint statement fails: disk full, I/O
// error), the whole batch fails and nothing of it is written.
func (s *Store) commit(batch []writeOp) []error {
	errs := make([]error, len(batch))
	ctx := context.Background()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		failAll(errs, fmt.Errorf("begin write: %w", err))
		return errs
	}
	for i, op := range batch {
		if _, err := tx.ExecContext(ctx, "SAVEPOINT op"); err != nil {
			_ = tx.Rollback()
			failAll(errs, fmt.Errorf("the write transaction failed: %w", err))
			return errs
		}
		errs[i] = op.fn(op.ctx, tx)
		end := []string{"RELEASE op"}
		if errs[i] != nil {
			end = []string{"ROLLBACK TO op", "RELEASE op"}
		}
		for _, stmt := range end {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				_ = tx.Rollback()
				failAll(errs, fmt.Errorf("the write transaction was rolled back: %w", err))
				return errs
			}
		}
	}
	if err := s.fileGone(); err != nil {
		_ = tx.Rollback()
		failAll(errs, err)
		return errs
	}
	if err := tx.Commit(); err != nil {
		_ = tx.Rollback()
		failAll(errs, fmt.Errorf("commit: %w", err))
	}
	return errs
}

// fileGone says so when the database file is no longer at its path (the
// data folder was deleted or moved while HyAtlas ran): SQLite would go on
// writing to the unlinked file, and every write acknowledged would be lost
// at the next start. One stat per committed batch.
func (s *Store) fileGone() error {
	fi, err := os.Stat(s.path)
	if err == nil && os.SameFile(fi, s.file) {
		return nil
	}
	return memory.StorageFault("the database file %s was moved or deleted while HyAtlas ran: nothing was stored; put the data folder back, or quit and start HyAtlas again", s.path)
}

// failAll sets err on every op of a batch that did not fail by itself;
// ops that failed keep their own error (they were rolled back anyway).
func failAll(errs []error, err error) {
	for i := range errs {
		if errs[i] == nil {
			errs[i] = err
		}
	}
}
