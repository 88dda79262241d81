package cli_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A bench stopped with Ctrl+C or a termination stops where it is, takes
// its temporary store away (it can be gigabytes) and ends as a shell
// expects of that signal.
func TestBenchStoppedBySignalRemovesItsTemporaryData(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			in := newInstance(t)
			tmp := t.TempDir()
			cmd := exec.Command(binary, "bench", "search", "--n", "1000000", "--embed", "hash", "--queries", "1")
			cmd.Env = append(append([]string{}, in.Env...), "TMPDIR="+tmp)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			deadline := time.Now().Add(time.Minute)
			for {
				if m, _ := filepath.Glob(filepath.Join(tmp, "hyatlas-bench-search-*", "*")); len(m) > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the bench made no store in a minute: %s", stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			var exit *exec.ExitError
			if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != tc.code {
				t.Errorf("the stopped bench ended with %v, want exit %d: %s", err, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "removing its temporary data") {
				t.Errorf("the stopped bench did not say it removes its data: %s", stderr.String())
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("a stopped bench left %d temporary folders: %v", len(left), left[0].Name())
			}
		})
	}
}
