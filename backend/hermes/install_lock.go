package hermes

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"hyatlas/backend/fslock"
)

// ErrBusy is an install or uninstall that waited lockWait for another
// one, run by another process, to end.
var ErrBusy = errors.New("another install or uninstall of the Hermes plugin is running; try again once it is done")

// lockWait is how long an install or uninstall waits for one that another
// process runs.
var lockWait = 30 * time.Second // a variable for the tests

// lockRecords holds the install records' lock across processes (each CLI
// run and the app have an Installer of their own): one install or
// uninstall at a time, of any Hermes home, so none rewrites the records
// file over another's record (the provider an uninstall puts back). It
// waits up to lockWait for another process's.
func (in *Installer) lockRecords() (unlock func(), err error) {
	if err := os.MkdirAll(in.ConfigDir, 0o700); err != nil {
		return nil, fmt.Errorf("lock the Hermes install records: %w", err)
	}
	path := filepath.Join(in.ConfigDir, installsFile+".lock")
	for deadline := time.Now().Add(lockWait); ; time.Sleep(20 * time.Millisecond) {
		l, err := fslock.Acquire(path)
		switch {
		case err == nil:
			return func() { _ = l.Release() }, nil
		case !errors.Is(err, fslock.ErrLocked):
			return nil, fmt.Errorf("lock the Hermes install records: %w", err)
		case time.Now().After(deadline):
			return nil, ErrBusy
		}
	}
}
