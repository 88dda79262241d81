//go:build e2e

package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"hyatlas/backend/api"
	"hyatlas/backend/proctest"
)

// palaceLLM is an OpenAI-compatible model for the Mind Palace test: it
// extracts one dated fact per turn and, when consolidating, states
// "Alice works at X" for each employer whose facts it is shown.
func palaceLLM(t *testing.T) *httptest.Server {
	factLine := regexp.MustCompile(`(?m)^- \[(m\w+)\] \([^)]*\) (.*)$`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		_ = json.Unmarshal(body, &in)
		system, user := in.Messages[0].Content, in.Messages[len(in.Messages)-1].Content
		var reply any = "Alice's work history."
		switch {
		case strings.HasPrefix(system, "You keep the long-term memory"):
			text := user[strings.LastIndex(user, "<text>"):]
			fact := map[string]any{"label": "project_state", "replaces": []string{}, "updates": nil}
			for _, f := range []struct{ key, text, at string }{
				{"Acme in January", "Alice started at Acme", "2024-01-10"}, {"still at Acme", "Alice still works at Acme", "2024-02-01"},
				{"Globex in March", "Alice joined Globex", "2025-03-01"}, {"Globex team", "Alice leads a team at Globex", "2025-03-05"},
			} {
				if strings.Contains(text, f.key) {
					fact["text"], fact["event_at"] = f.text, f.at
				}
			}
			entities := []any{}
			if strings.Contains(text, "Globex team") { // Globex gets an entity page
				entities = append(entities, map[string]any{"name": "Globex", "kind": "organization",
					"state": []any{map[string]any{"key": "Alice's role", "value": "team lead"}}, "summary": "Alice's employer since March 2025."})
			}
			reply = map[string]any{"facts": []any{fact}, "intentions": []any{}, "intentions_done": []any{}, "entities": entities, "experiences": []any{}}
		case strings.HasPrefix(system, "You consolidate"):
			byOrg := map[string][]string{}
			for _, m := range factLine.FindAllStringSubmatch(user, -1) {
				for _, org := range []string{"Acme", "Globex"} {
					if strings.Contains(m[2], org) {
						byOrg[org] = append(byOrg[org], m[1])
					}
				}
			}
			edges := []any{}
			for org, ids := range byOrg {
				edges = append(edges, map[string]any{"from": "Alice", "from_type": "person", "relation": "works at", "to": org,
					"to_type": "organization", "exclusive": true, "valid_from": nil, "evidence": ids})
			}
			reply = map[string]any{"merges": []any{}, "drops": []any{}, "schemas": []any{}, "edges": edges, "arc": nil}
		case strings.Contains(system, "patterns"):
			reply = map[string]any{"patterns": []any{}}
		}
		content, ok := reply.(string)
		if !ok {
			b, _ := json.Marshal(reply)
			content = string(b)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestMindPalaceInChromium builds a graph whose relations have known
// validity (Alice at Acme from January 2024, at Globex from March 2025,
// through extraction and two consolidation passes against the fake model),
// then moves the playhead in Chromium and checks the relations shown on
// both axes, and a node's card with the memories behind it.
func TestMindPalaceInChromium(t *testing.T) {
	llm := palaceLLM(t)
	p := proctest.New(t, binary(t), "HYATLAS_MODE=ultra", "HYATLAS_SYNC_EXTRACT=on", "HYATLAS_EMBED_BASE=local",
		"HYATLAS_LLM_BASE="+llm.URL+"/v1", "HYATLAS_LLM_MODEL=m")
	p.Start("serve")
	c := p.Client()
	ctx := context.Background()
	digest := func() {
		var out api.DigestResponse
		if err := c.Long().Do(ctx, http.MethodPost, "/api/v1/digest", nil, &out); err != nil || out.Report == nil {
			t.Fatalf("digest: %+v %v\n%s", out, err, p.Out.String())
		}
	}
	for _, text := range []string{"I started at Acme in January.", "I am still at Acme and like it."} {
		add(t, p, text)
	}
	digest()
	for _, text := range []string{"I moved to Globex in March.", "My Globex team is great."} {
		add(t, p, text)
	}
	digest()
	link, err := c.DashboardLink(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runNode("palace.e2e.mjs", link, "E2E_SHOTS="+shotsDir())
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("Mind Palace e2e failed: %v\n%s", err, p.Out.String())
	}
}
