//go:build e2e || benchui

package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
)

// runNode runs frontend/e2e/<script> against the dashboard at link (its
// sign-in address, HYATLAS_URL), with env added to this process's
// environment, and returns what it printed.
func runNode(script, link string, env ...string) ([]byte, error) {
	cmd := exec.Command("node", "e2e/"+script)
	cmd.Dir = "../frontend"
	cmd.Env = append(append(os.Environ(), "HYATLAS_URL="+link), env...)
	return cmd.CombinedOutput()
}

// shotsDir is where the e2e scripts leave their screenshots: E2E_SHOTS,
// else build/e2e-shots.
func shotsDir() string {
	if dir := os.Getenv("E2E_SHOTS"); dir != "" {
		return dir
	}
	dir, _ := filepath.Abs("../build/e2e-shots")
	return dir
}
