package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A command whose output cannot be written (a full disk: /dev/full)
// fails with exit 1 and says so; it used to exit 0 having written
// nothing (token --new then lost the new token without a word).
func TestCLI_OutputThatCannotBeWrittenFails(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full on this system:", err) // Linux has it; the CI runs there
	}
	defer full.Close()
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	if out, code := in.Run("remember", "--strength", "0.9", "Alice likes tea"); code != 0 {
		t.Fatalf("remember: %d %s", code, out)
	}
	for _, args := range [][]string{{"token"}, {"version"}, {"list"}, {"search", "Alice"}, {"prompt"}, {"help"}} {
		cmd := exec.Command(in.Binary, args...)
		var stderr bytes.Buffer
		cmd.Env, cmd.Stdout, cmd.Stderr = in.Env, full, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "the output could not be written") {
			t.Errorf("%v > /dev/full: %v, stderr %q; want exit 1 saying so", args, err, stderr.String())
		}
	}
}

// A key that is not UTF-8 is refused whether or not an instance runs:
// handed to one as JSON, each bad byte became U+FFFD, and the key used
// was not the one given.
func TestCLI_AKeyThatIsNotUTF8IsRefused(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	if out, code := in.RunStdin("sk-ab\xffcd\n", "key", "set", "--memory-only"); code != 2 || !strings.Contains(out, "not UTF-8") {
		t.Errorf("with nothing running: exit %d: %s", code, out)
	}
	in.Start("serve")
	if out, code := in.RunStdin("sk-ab\xffcd\n", "key", "set", "--memory-only"); code != 2 || !strings.Contains(out, "not UTF-8") {
		t.Errorf("with an instance running: exit %d: %s", code, out)
	}
}

// A category or id with a bidirectional override is shown with it
// replaced, as memory text is: it would reorder the rest of the line.
func TestCLI_ListShowsCategoriesSafely(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	out, code := in.Run("remember", "--category", "ab\u202ecd", "some text")
	if code != 0 || strings.Contains(out, "\u202e") {
		t.Errorf("remember: exit %d: %q", code, out)
	}
	if out, code := in.Run("list"); code != 0 || strings.Contains(out, "\u202e") || !strings.Contains(out, "ab\ufffdcd") {
		t.Errorf("list: exit %d: %q", code, out)
	}
}
