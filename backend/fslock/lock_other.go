//go:build !unix && !windows

package fslock

import "os"

// lockFile is a no-op where the OS offers no file lock this build knows.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }
