package cli_test

import (
	"strings"
	"testing"
)

// A text under the CLI's own 8 MiB check that JSON makes larger (quotes
// take two bytes there) is refused by HyAtlas (413): the command says why
// in words and that nothing was stored, and nothing was.
func TestCLIAddATextJSONMakesTooLarge(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	text := strings.Repeat(`"`, 5<<20)
	_, errOut, code := runSplit(t, in, text, "add", "-")
	if code != 1 || !strings.Contains(errOut, "larger than HyAtlas takes") || !strings.Contains(errOut, "nothing was stored") {
		t.Errorf("add of 5 MiB of quotes: exit %d, stderr %q", code, strings.TrimSpace(errOut))
	}
	if out, _ := in.Run("status"); !strings.Contains(out, "0 live") {
		t.Errorf("something was stored:\n%s", out)
	}
}
