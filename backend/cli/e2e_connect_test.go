package cli_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/proctest"
)

// TestCLI_FindsTheInstanceItsDiscoveryFileNames: with HYATLAS_GO_PORT=0
// ("a free port") the server listens somewhere only its discovery file
// says; the commands of the same config directory find it there.
func TestCLI_FindsTheInstanceItsDiscoveryFileNames(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite")
	for i, kv := range in.Env {
		if strings.HasPrefix(kv, "HYATLAS_GO_PORT=") {
			in.Env[i] = "HYATLAS_GO_PORT=0"
		}
	}
	cmd := exec.Command(in.Binary, "serve")
	cmd.Env = in.Env
	out := &proctest.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if !out.WaitFor("is serving at http://127.0.0.1:", 30*time.Second) {
		t.Fatalf("the server did not start:\n%s", out)
	}
	for _, verb := range []string{"status", "dashboard"} {
		if got, code := in.Run(verb); code != 0 {
			t.Errorf("`hyatlas %s` with HYATLAS_GO_PORT=0: exit %d:\n%s", verb, code, got)
		}
	}
}

// TestCLI_PromptSaysWhoseBlockItIs: without --user the block is user
// "default"'s; when it is empty the message names that user and --user,
// so a strong memory of another user does not look lost.
func TestCLI_PromptSaysWhoseBlockItIs(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite")
	in.Start("serve")
	if out, code := in.Run("remember", "--user", "alice", "--strength", "0.9", "Foxtrot uses Postgres 16"); code != 0 {
		t.Fatalf("remember: %d %s", code, out)
	}
	out, code := in.Run("prompt")
	if code != 0 || !strings.Contains(out, `user "default"`) || !strings.Contains(out, "--user") {
		t.Errorf("`hyatlas prompt` with only alice's memory strong: exit %d, %q", code, out)
	}
	if out, code = in.Run("prompt", "--user", "alice"); code != 0 || !strings.Contains(out, "Foxtrot") {
		t.Errorf("`hyatlas prompt --user alice`: exit %d, %q", code, out)
	}
}
