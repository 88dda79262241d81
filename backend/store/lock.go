package store

import (
	"errors"
	"fmt"
	"path/filepath"

	"hyatlas/backend/fslock"
)

// LockFileName is the lock file in the data directory. One process at a
// time may open a data directory: two would each keep their own vector
// index and disagree about what the store holds.
const LockFileName = "hyatlas.lock"

// ErrLocked means another process has the data directory open.
var ErrLocked = errors.New("another HyAtlas is using this data directory")

func lockDir(dir string) (*fslock.Lock, error) {
	l, err := fslock.Acquire(filepath.Join(dir, LockFileName))
	if errors.Is(err, fslock.ErrLocked) {
		return nil, fmt.Errorf("%w (%s)", ErrLocked, dir)
	}
	return l, err
}
