package cli

import (
	"strings"
	"testing"

	"hyatlas/backend/api"
)

// A text on standard input larger than a request holds is refused as too
// large (it was cut short, then called "not UTF-8" when the cut split a
// character).
func TestTextArgTooLarge(t *testing.T) {
	big := strings.Repeat("€", api.MaxBodyBytes/3+1)
	_, err := textArg(Env{Stdin: strings.NewReader(big)}, []string{"-"})
	if err == nil || !strings.Contains(err.Error(), "larger than 8 MiB") {
		t.Errorf("a %d-byte text: %v", len(big), err)
	}
	if got, err := textArg(Env{Stdin: strings.NewReader("tea\n")}, []string{"-"}); err != nil || got != "tea\n" {
		t.Errorf("a small text: %q, %v", got, err)
	}
}

// The hint that a text starting with "-" goes after -- comes only where a
// text could be meant: an unknown flag of a command that takes arguments.
func TestUnknownFlagHint(t *testing.T) {
	for _, tt := range []struct {
		args []string
		hint bool
	}{
		{[]string{"add", "-x"}, true},
		{[]string{"search", "--bogus", "tea"}, true},
		{[]string{"status", "--bogus"}, false},
		{[]string{"list", "--limit", "many"}, false},
	} {
		code, _, errOut := runArgs(t, tt.args...)
		if code != 2 || strings.Contains(errOut, "goes after --") != tt.hint {
			t.Errorf("%q: exit %d, %q; want the hint: %v", tt.args, code, errOut, tt.hint)
		}
	}
}

func TestOptionalFloatSaysWhatIsWrong(t *testing.T) {
	for in, want := range map[string]string{"1e309": "out of range", "lots": "not a number", "NaN": "not a number", "1.5": "not between 0 and 1"} {
		o := optionalFloat{unit: true}
		if err := o.Set(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}
