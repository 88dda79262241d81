// Package fslock holds exclusive, advisory locks on files, across
// processes: the data directory (one HyAtlas per directory) and a model
// being downloaded (one download per model). The OS drops a lock when its
// process dies, so a crash never leaves one stale.
package fslock

import (
	"errors"
	"fmt"
	"os"
)

// ErrLocked means another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held lock.
type Lock struct {
	f        *os.File
	readOnly bool
}

// Acquire takes the lock on path (creating the file) without waiting: it
// fails with ErrLocked when another process holds it. A lock file that
// exists but may not be written (a disk remounted read-only) still locks,
// since the lock is on the open file, not its contents; ReadOnly tells.
func Acquire(path string) (*Lock, error) {
	readOnly := false
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		var rerr error
		if f, rerr = os.Open(path); rerr != nil {
			return nil, err // an *os.PathError: it names the file
		}
		readOnly = true
	}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f, readOnly: readOnly}, nil
}

// ReadOnly reports whether the lock file could only be opened for
// reading: its folder (or the file) may not be written.
func (l *Lock) ReadOnly() bool { return l != nil && l.readOnly }

// Release drops the lock. It is safe on a nil Lock.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlockFile(l.f)
	return errors.Join(err, l.f.Close())
}
