//go:build !unix

package cli

import (
	"fmt"
	"os"
	"os/exec"

	"hyatlas/backend/engine"
)

// restartAfter starts this program again (same arguments and environment)
// when serve stopped to restart; this process then exits. Open dashboards
// stay signed in: their sessions go along (engine.SessionsEnv).
func restartAfter(restart bool, err error) error {
	if err != nil || !restart {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = restartEnv(engine.SessionsEnv + "=" + engine.SessionsForRestart())
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("restart %s: %w (start HyAtlas again by hand)", exe, err)
	}
	return nil
}
