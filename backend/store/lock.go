package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LockFileName is the lock file in the data directory. One process at a
// time may open a data directory: two would each keep their own vector
// index and disagree about what the store holds.
const LockFileName = "hyatlas.lock"

// ErrLocked means another process has the data directory open.
var ErrLocked = errors.New("another HyAtlas is using this data directory")

// dirLock is an exclusive, advisory lock on the data directory. The OS
// releases it when the process dies, so a crash never leaves it stale.
type dirLock struct{ f *os.File }

func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, dir)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlockFile(l.f)
	return errors.Join(err, l.f.Close())
}
