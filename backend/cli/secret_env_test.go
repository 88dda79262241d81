package cli

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The keys' variables, once serve has read them, reach no program HyAtlas
// starts (a browser, the window's web processes), except the instance a
// restart starts in its place.
func TestSecretEnvIsWithheldFromChildrenButNotFromARestart(t *testing.T) {
	t.Setenv("HYATLAS_LLM_KEY", "sk-env-child-check-0123456789")
	t.Setenv("HYATLAS_EMBED_KEY", "sk-embed-child-check-0123456789")
	t.Setenv("HYATLAS_LLM_KEY_FILE", "/not/a/secret")
	withholdSecretEnv()
	t.Cleanup(func() {
		withheld.Lock()
		withheld.env = nil
		withheld.Unlock()
	})
	out, err := exec.Command("env").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "child-check") {
		t.Errorf("a child process sees a key:\n%s", out)
	}
	if !strings.Contains(string(out), "HYATLAS_LLM_KEY_FILE=/not/a/secret") {
		t.Error("a variable that is not a key was withheld too")
	}
	env := restartEnv("EXTRA=1")
	for _, want := range []string{"HYATLAS_LLM_KEY=sk-env-child-check-0123456789", "HYATLAS_EMBED_KEY=sk-embed-child-check-0123456789", "EXTRA=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("the restart's environment lacks %s", want)
		}
	}
	if os.Getenv("HYATLAS_LLM_KEY") != "" {
		t.Error("the key is still in the process environment")
	}
}
