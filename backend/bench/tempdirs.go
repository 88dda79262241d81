package bench

import (
	"errors"
	"os"
	"sync"
)

// temps holds every temporary folder a bench made in this process, so a
// bench stopped by a signal can take them away (RemoveTemps) although its
// own deferred clean-up never runs.
var temps struct {
	sync.Mutex
	dirs []string
}

// tempDir makes a temporary folder named after pattern and remembers it.
func tempDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	temps.Lock()
	temps.dirs = append(temps.dirs, dir)
	temps.Unlock()
	return dir, nil
}

// RemoveTemps removes every temporary folder the benches of this process
// made (those already removed are skipped) and says which it could not.
func RemoveTemps() error {
	temps.Lock()
	defer temps.Unlock()
	var errs []error
	for _, dir := range temps.dirs {
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	temps.dirs = nil
	return errors.Join(errs...)
}
