package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"hyatlas/backend/fslock"
	"hyatlas/backend/memory"
)

// private makes the data folder and the database files in it readable by
// their owner only: a folder made before (by hand, or by an older version)
// with wider rights would let other users of the machine read every memory.
// It is best effort: a folder HyAtlas does not own, or a file system
// without Unix modes, keeps its rights rather than stopping HyAtlas.
func private(dir string) {
	_ = os.Chmod(dir, 0o700)
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		_ = os.Chmod(filepath.Join(dir, name), 0o600)
	}
}

// Open opens (creating if needed) the database in dir and migrates it.
func Open(ctx context.Context, dir string) (*Store, error) { return OpenWith(ctx, dir, Options{}) }

// OpenWith is Open with options. A data folder that can be read but not
// written (a disk remounted read-only after errors) opens read-only: every
// read works, every write fails as a storage fault that says why, and the
// fault stays (WriteFault) until HyAtlas is started again on a writable
// folder. A store that needs a migration cannot open that way.
func OpenWith(ctx context.Context, dir string, opts Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, unwritable(dir, fmt.Errorf("create data dir: %w", err))
	}
	private(dir)
	lock, err := lockDir(dir)
	if err != nil {
		return nil, unwritable(dir, err)
	}
	s, err := openLocked(ctx, dir, lock, opts)
	if err != nil {
		_ = lock.Release()
		return nil, err
	}
	return s, nil
}

// unwritable says in words what to do when err is the data folder being
// read-only or out of bounds, with nothing in it to show; other errors
// pass unchanged.
func unwritable(dir string, err error) error {
	if errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission) {
		return nothingToShow(dir, err)
	}
	return err
}

// nothingToShow is a data folder HyAtlas may not write and that holds no
// database it could show read-only.
func nothingToShow(dir string, err error) error {
	return fmt.Errorf("HyAtlas may not write its data folder %s, and finds no HyAtlas data there to show (%w): make it writable, or choose another folder with HYATLAS_DATA", dir, err)
}

// openLocked opens the database in dir, whose lock is held.
func openLocked(ctx context.Context, dir string, lock *fslock.Lock, opts Options) (*Store, error) {
	path := filepath.Join(dir, FileName)
	readOnly := lock.ReadOnly()
	if readOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, nothingToShow(dir, err)
		}
	}
	writer, err := openDB(path, 1, readOnly)
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, lock: lock, writer: writer, readOnly: readOnly}
	fail := func(err error) (*Store, error) {
		_ = writer.Close()
		if s.reader != nil {
			_ = s.reader.Close()
		}
		return nil, err
	}
	if s.file, err = os.Stat(path); err != nil {
		return fail(fmt.Errorf("open %s: %w", path, err))
	}
	if readOnly {
		if s.MigratedFrom, s.MigratedTo, err = schemaVersions(ctx, writer); err != nil {
			return fail(err)
		}
		if s.MigratedFrom != s.MigratedTo {
			return fail(fmt.Errorf("the data folder %s may not be written, and its database needs an upgrade to schema %d (it has %d), which writes: make the folder writable and start HyAtlas again", dir, s.MigratedTo, s.MigratedFrom))
		}
		fault := memory.StorageFault("HyAtlas may not write its data folder %s (read-only, or its permissions changed): it shows what it holds, and stores nothing until it is started again on a writable folder", dir)
		s.fault.Store(&fault)
	} else {
		if opts.BeforeMigrate != nil {
			if err := beforeMigrate(ctx, writer, opts.BeforeMigrate); err != nil {
				return fail(err)
			}
		}
		if s.MigratedFrom, s.MigratedTo, err = migrate(ctx, writer); err != nil {
			return fail(err)
		}
		private(dir) // the files SQLite just made, with its default rights
	}
	if s.reader, err = openDB(path, max(4, runtime.GOMAXPROCS(0)*2), readOnly); err != nil {
		return fail(err)
	}
	s.ops = make(chan writeOp, maxBatch)
	s.closing = make(chan struct{})
	s.loopDone = make(chan struct{})
	go s.writeLoop()
	if readOnly {
		return s, nil
	}
	// A database file that can be read but not written (its folder can)
	// opens fine: learn it now, so the status says so before a write is
	// lost to it. The probe's failure is kept as the fault; only a closed
	// store is fatal here.
	if err := s.Probe(ctx); err != nil && s.WriteFault() == nil {
		_ = s.Close()
		return nil, fmt.Errorf("first write to %s: %w", path, err)
	}
	return s, nil
}

// openDB opens a pool of conns connections to the database at path;
// readOnly opens it for reading only (mode=ro), leaving its journal mode
// as it is. SQLite reads a WAL database read-only only through its -wal
// and -shm files; when neither exists (HyAtlas closed cleanly) and the
// folder cannot hold new ones, the file is all there is and opens as
// immutable: nothing can change it while the folder is read-only and the
// data folder's lock is held.
// fileURI is the SQLite URI of a file path: "file:" and the path, with
// the characters a URI gives a meaning to escaped, so a folder named
// "Backups #1", "a?b" or "100%" is opened as named (not cut at the "#" or
// "?", or read as an escape). Nothing else changes.
func fileURI(path string) string {
	return "file:" + uriEscaper.Replace(path)
}

var uriEscaper = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")

func openDB(path string, conns int, readOnly bool) (*sql.DB, error) {
	q := url.Values{}
	pragmas := []string{"journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)",
		"busy_timeout(10000)", "temp_store(MEMORY)", "cache_size(-32000)"}
	if readOnly {
		pragmas = pragmas[1:]
		q.Set("mode", "ro")
		if _, err := os.Stat(path + "-wal"); errors.Is(err, os.ErrNotExist) {
			q.Set("immutable", "1")
		}
	}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", fileURI(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := db.Ping(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}
