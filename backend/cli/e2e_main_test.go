package cli_test

import (
	"fmt"
	"os"
	"testing"

	"hyatlas/backend/proctest"
)

// binary is the hyatlas binary built once for the end-to-end tests (a
// plain build: no desktop window, so it always serves headless).
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hyatlas-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if binary, err = proctest.Build(dir, "../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func newInstance(t *testing.T, extraEnv ...string) *proctest.Instance {
	return proctest.New(t, binary, extraEnv...)
}
