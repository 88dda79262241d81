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
