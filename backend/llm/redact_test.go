package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

func TestRedactor(t *testing.T) {
	const key = `sk-A/b"c\d-é😀9`
	scrub := redactor(key)
	for _, tc := range []struct{ name, in string }{
		{"as it is", "key " + key + " refused"},
		{"a slash escaped", `key sk-A\/b\"c\\d-é😀9 refused`},
		{"a dash as \\u, lower-case hex", `key sk\u002dA\/b\"c\\d-é😀9 refused`},
		{"upper-case hex and an escaped non-ASCII letter", `key sk\u002DA\/b\"c\\d-\u00E9😀9 refused`},
		{"a surrogate pair", `key sk-A\/b\"c\\d-é\ud83d\ude009 refused`},
		{"URL-encoded", "key sk-A%2Fb%22c%5Cd-%C3%A9%F0%9F%98%809 refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := scrub(tc.in); got != "key [redacted] refused" {
				t.Errorf("scrub(%q) = %q", tc.in, got)
			}
		})
	}
	if got := scrub("sk-A/b and more"); got != "sk-A/b and more" {
		t.Errorf("a text that does not hold the whole key changed: %q", got)
	}
	if got := redactor("")("anything"); got != "anything" {
		t.Errorf("no key changed the text: %q", got)
	}
}

// An endpoint that escapes a character of the key it echoes (PHP writes
// `\/`, others `\u002d`) in an error body that is not shaped as OpenAI's,
// or that echoes the key in a reply, never gets it into HyAtlas's errors
// or answers.
func TestEscapedOrRepliedKeyIsScrubbed(t *testing.T) {
	escaped := strings.Replace(testKey, "-", `\u002d`, 1)
	f := newFake(t, bearer, step{status: 401, raw: `{"detail":"invalid api key: ` + escaped + `"}`})
	err := newRig(config(f)).CompleteJSON(context.Background(), extractReq(), &plan{})
	if !errors.Is(err, memory.ErrProvider) || strings.Contains(err.Error(), testKey[8:]) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("err %v", err)
	}
	f = newFake(t, bearer, step{content: "I cannot comply. Your key is " + bearer})
	reply, err := newRig(config(f)).Complete(context.Background(), extractReq())
	if err != nil || strings.Contains(reply, testKey[8:]) || !strings.Contains(reply, "[redacted]") {
		t.Fatalf("reply %q, %v", reply, err)
	}
}

// A short placeholder key (what a local server on another machine is given,
// "ollama" or "x") is no secret: a reply keeps every word of it.
func TestShortPlaceholderKeyLeavesRepliesWhole(t *testing.T) {
	f := newFake(t, "Bearer o", step{content: goodJSON})
	cfg := config(f)
	cfg.Primary.Key = func(context.Context) (string, error) { return "o", nil } // a letter of the reply
	var got plan
	if err := newRig(cfg).CompleteJSON(context.Background(), extractReq(), &got); err != nil || len(got.Facts) != 1 || got.Facts[0] != "moved to Lyon" {
		t.Fatalf("plan %+v, %v", got, err)
	}
}
