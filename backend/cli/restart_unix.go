//go:build unix

package cli

import (
	"fmt"
	"os"
	"syscall"

	"hyatlas/backend/engine"
)

// restartAfter starts this program again in place (same arguments and
// environment, the withheld keys included, so the same instance) when serve stopped to restart. Open
// dashboards stay signed in: their sessions go along (engine.SessionsEnv).
func restartAfter(restart bool, err error) error {
	if err != nil || !restart {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	env := restartEnv(engine.SessionsEnv + "=" + engine.SessionsForRestart())
	if err := syscall.Exec(exe, os.Args, env); err != nil {
		return fmt.Errorf("restart %s: %w (start HyAtlas again by hand)", exe, err)
	}
	return nil // not reached
}
