//go:build e2e

package app_test

import (
	"context"
	"net/http"
	"testing"

	"hyatlas/backend/api"
	"hyatlas/backend/proctest"
)

// TestAccessibilityInChromium runs frontend/e2e/a11y-*.e2e.mjs on a store
// with a few memories: the keyboard focus never falls to the page body
// (confirmations take it, give it back and close on Escape), screen readers
// are told what changed and which memory a button acts on, and at 200%
// and 400% zoom no page scrolls sideways, an Atlas row keeps its text and
// buttons inside it, and text keeps its contrast.
func TestAccessibilityInChromium(t *testing.T) {
	p := proctest.New(t, binary(t), "HYATLAS_MODE=lite")
	p.Start("serve")
	for _, text := range []string{"Foxtrot uses PostgreSQL 16", "Alice prefers short answers", "The team ships on Fridays"} {
		if err := p.Client().Do(context.Background(), http.MethodPost, "/api/v1/memories",
			api.RememberRequest{Content: text}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, script := range []string{"a11y-focus.e2e.mjs", "a11y-semantics.e2e.mjs", "a11y-visual.e2e.mjs"} {
		link, err := p.Client().DashboardLink(context.Background()) // each link signs in once
		if err != nil {
			t.Fatal(err)
		}
		out, err := runNode(script, link)
		t.Logf("%s: %s", script, out)
		if err != nil {
			t.Errorf("%s failed: %v", script, err)
		}
	}
}
