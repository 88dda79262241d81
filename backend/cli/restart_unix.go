//go:build unix

package cli

import (
	"fmt"
	"os"
	"syscall"

	"hyatlas/backend/engine"
)

// restartAfter starts this program again in place (same arguments and
// environment, the withheld keys included, so the same instance) when
// serve stopped to restart. Open dashboards stay signed in: their sessions
// go along (engine.SessionsEnv), and so does the listening socket
// (engine.ListenFDEnv), so no other program can take the port meanwhile.
func restartAfter(restart bool, err error) error {
	if err != nil || !restart {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	extra := []string{engine.SessionsEnv + "=" + engine.SessionsForRestart()}
	if f := engine.ListenerForRestart(); f != nil {
		// The listening socket goes along (the port is never free): exec
		// keeps a descriptor without close-on-exec.
		fd := f.Fd()
		if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFD, 0); errno == 0 {
			extra = append(extra, fmt.Sprintf("%s=%d", engine.ListenFDEnv, fd))
		}
	}
	env := restartEnv(extra...)
	if err := syscall.Exec(exe, os.Args, env); err != nil {
		return fmt.Errorf("restart %s: %w (start HyAtlas again by hand)", exe, err)
	}
	return nil // not reached
}
