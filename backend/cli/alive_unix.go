//go:build unix

package cli

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id runs (one of
// another user counts).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
