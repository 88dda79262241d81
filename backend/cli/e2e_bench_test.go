package cli_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A bench stopped with Ctrl+C takes its temporary store away (it can be
// gigabytes) and ends with 130.
func TestBenchInterruptedRemovesItsTemporaryData(t *testing.T) {
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
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("the interrupted bench ended with %v, want exit 130: %s", err, stderr.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("an interrupted bench left %d temporary folders: %v", len(left), left[0].Name())
	}
}
