package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_TextThatIsNotUTF8IsRefused: text in another encoding, on
// standard input or as an argument, is refused and nothing is stored (JSON
// would carry each bad byte as U+FFFD, storing other text than given).
func TestCLI_TextThatIsNotUTF8IsRefused(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
	}{
		{"caf\xe9 au lait", []string{"add", "-"}, 1},
		{"na\xefve text", []string{"remember", "-"}, 1},
		{"", []string{"add", "arg caf\xe9"}, 2},
	} {
		if out, code := in.RunStdin(c.stdin, c.args...); code != c.code || !strings.Contains(out, "not UTF-8") {
			t.Errorf("%q with stdin %q: exit %d, want %d: %s", c.args, c.stdin, code, c.code, out)
		}
	}
	if out, _ := in.Run("list", "--retired"); !strings.Contains(out, "0 of 0 shown") {
		t.Errorf("something was stored:\n%s", out)
	}
}

// TestCLI_HermesOptionsThatAreWrongAreUsage: an empty --home (an unset
// shell variable) is refused, never taken as the default home; a profile
// name Hermes would not accept is a usage error too.
func TestCLI_HermesOptionsThatAreWrongAreUsage(t *testing.T) {
	in := newInstance(t)
	for _, args := range [][]string{
		{"hermes", "--home", "", "install"},
		{"hermes", "--profile", "", "install"},
		{"hermes", "--profile", "../x", "status"},
		{"hermes", "--profile", "-x", "status"},
		{"hermes", "--profile", "a b", "status"},
		{"hermes", "--profile", strings.Repeat("p", 100), "status"},
	} {
		if out, code := in.Run(args...); code != 2 || !strings.Contains(out, "usage:") {
			t.Errorf("%q: exit %d, want 2 with the usage line: %s", args, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(in.Home, ".hermes")); err == nil {
		t.Error("a refused install wrote into the default Hermes home")
	}
}

// A --home that is not there is refused (a typo never makes a folder,
// and status and uninstall never say "not installed" of it); its parent
// stays as it was.
func TestCLI_HermesAtAMissingHomeIsRefused(t *testing.T) {
	in := newInstance(t)
	missing := filepath.Join(t.TempDir(), "typo", ".hermes")
	for _, action := range []string{"install", "status", "uninstall"} {
		out, code := in.Run("hermes", "--home", missing, action)
		if code != 1 || !strings.Contains(out, "no Hermes home at "+missing) {
			t.Errorf("%s: exit %d, want 1 saying there is no Hermes home: %s", action, code, out)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Errorf("a refused install made %s", filepath.Dir(missing))
	}
}

// TestCLI_OutOfRangeValuesAreUsage: a value out of range is bad usage
// (exit 2), refused before anything is sent, with no server running and
// no data directory made.
func TestCLI_OutOfRangeValuesAreUsage(t *testing.T) {
	in := newInstance(t) // no server
	for _, args := range [][]string{
		{"list", "--min-strength", "2"},
		{"list", "--max-strength", "-0.1"},
		{"list", "--sort", "bogus"},
		{"list", "--layer", "l9"},
		{"search", "--layer", "l9", "x"},
		{"remember", "--strength", "1.5", "x"},
		{"remember", "--layer", "l2_raw", "x"},
		{"edit", "--strength", "7", "m1"},
		{"edit", "--category", " ", "m1"},
		{"retire", "--how", "bogus", "m1"},
		{"snapshot", "verify", "nosuch"},
		{"search", "--limit", "101", "x"},
		{"list", "--limit", "1001"},
		{"list", "--offset", "-1"},
		{"prompt", "--limit", "201"},
		{"add", ""},
		{"add", "   "},
	} {
		if out, code := in.Run(args...); code != 2 {
			t.Errorf("hyatlas %q: exit %d, want 2 (bad usage); output %q", args, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(in.Home, "data")); err == nil {
		t.Error("bad usage created the data directory")
	}
}
