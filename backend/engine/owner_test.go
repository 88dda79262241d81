package engine

// Owner isolation through the whole engine and the fake OpenAI-compatible
// endpoint.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"hyatlas/backend/api"
	"hyatlas/backend/config"
	"hyatlas/backend/memory"
)

func addAs(t *testing.T, r *llmRig, user, text string) api.AddResponse {
	t.Helper()
	res, err := r.c.Add(context.Background(), api.AddRequest{Text: &text, UserID: user})
	if err != nil {
		t.Fatalf("add %q as %s: %v", text, user, err)
	}
	return res
}

// TestOwner_ADigestKeepsAUserNamedLikeAnAliasGroupApart: with the alias
// group "amy,bea", a different person writing as user "amy,bea" is never
// in amy's consolidation call, and no merge or relation of amy's touches
// that person's facts.
func TestOwner_ADigestKeepsAUserNamedLikeAnAliasGroupApart(t *testing.T) {
	r := newLLMRig(t, func(c *config.Config) {
		ultraConfig(c)
		al, err := memory.ParseAliases("amy,bea")
		if err != nil {
			t.Fatal(err)
		}
		c.Aliases, c.AliasesRaw = al, "amy,bea"
	})
	if err := r.eng.x.keys.Hand("sk-test-key-1"); err != nil {
		t.Fatal(err)
	}
	r.fake.setReply(func(q llmRequest) (int, string) {
		switch {
		case q.extraction():
			reply := map[string]any{"facts": []any{fact("Works at Globex as an engineer", "project_state")},
				"intentions": []any{}, "intentions_done": []any{}, "entities": []any{}, "experiences": []any{}}
			b, _ := json.Marshal(reply)
			return 200, string(b)
		case q.consolidation():
			var ids []string
			for _, m := range clusterFact.FindAllStringSubmatch(q.User, -1) {
				ids = append(ids, m[1])
			}
			reply := map[string]any{"merges": []any{map[string]any{"ids": ids, "text": "Works at Globex as an engineer"}},
				"drops": []any{}, "schemas": []any{}, "edges": []any{}, "arc": ""}
			b, _ := json.Marshal(reply)
			return 200, string(b)
		case strings.Contains(q.System, "patterns"):
			return 200, `{"patterns":[]}`
		default:
			return 200, "summary"
		}
	})
	addAs(t, r, "amy", "I work at Globex as an engineer.")
	addAs(t, r, "amy,bea", "I work at Globex as an engineer too.")
	r.waitIdle(t)
	other := func() []memory.Memory {
		res, err := r.eng.Memory.List(context.Background(), memory.ListInput{UserID: "amy,bea", Layer: "l3_fact", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memories
	}
	if n := len(other()); n != 1 {
		t.Fatalf("user amy,bea has %d facts before the digest", n)
	}
	var digest api.DigestResponse
	if err := r.do(t, http.MethodPost, "/api/v1/digest", nil, &digest); err != nil {
		t.Fatal(err)
	}
	for _, q := range r.fake.requests() {
		if q.consolidation() && strings.Count(q.User, "Works at Globex") >= 2 {
			t.Errorf("one consolidation call was shown the facts of user amy and of user \"amy,bea\" (not aliases)")
		}
	}
	if n := len(other()); n != 1 {
		t.Errorf("after the digest user \"amy,bea\" has %d live facts, want 1: amy's cluster merged it away (report %+v)", n, digest.Report)
	}
}

// TestOwner_AnExtractionReplyNamingAnotherOwnersIDs: the fake model answers
// bob's write with alice's fact and intention ids and alice's page name;
// nothing of alice's changes, and bob's prompt shows nothing of alice's.
func TestOwner_AnExtractionReplyNamingAnotherOwnersIDs(t *testing.T) {
	r := newLLMRig(t, nil)
	if err := r.eng.x.keys.Hand("sk-test-key-1"); err != nil {
		t.Fatal(err)
	}
	var aliceIDs []string
	r.fake.setReply(func(q llmRequest) (int, string) {
		if !q.extraction() {
			return 200, "summary"
		}
		reply := map[string]any{"facts": []any{}, "intentions": []any{}, "intentions_done": []any{}, "entities": []any{}, "experiences": []any{}}
		if strings.Contains(q.User, "Alice") {
			reply["facts"] = []any{fact("Alice lives in Lisbon by the river", "project_state")}
			reply["intentions"] = []any{map[string]any{"goal": "Alice moves to Porto in spring", "due_at": nil}}
			reply["entities"] = []any{map[string]any{"name": "Lisbon", "kind": "place", "state": []any{}, "summary": "Alice's city."}}
		} else {
			replaces := append([]string{}, aliceIDs...)
			reply["facts"] = []any{fact("Bob lives in Lisbon by the river", "project_state", "replaces", replaces, "updates", aliceIDs[0])}
			reply["intentions_done"] = aliceIDs
			reply["entities"] = []any{map[string]any{"name": "Lisbon", "kind": "place", "state": []any{}, "summary": "Bob's city."}}
			if strings.Contains(q.User, "Alice lives") || strings.Contains(q.User, "Porto") || strings.Contains(q.User, "Alice's city") {
				reply["facts"] = []any{fact("LEAK: bob's extraction was shown alice's rows", "project_state")}
			}
		}
		b, _ := json.Marshal(reply)
		return 200, string(b)
	})
	addAs(t, r, "alice", "Alice: I live in Lisbon by the river and move to Porto in spring.")
	r.waitIdle(t)
	ctx := context.Background()
	aliceRows, err := r.eng.Memory.List(ctx, memory.ListInput{UserID: "alice", Limit: 100, IncludeRaw: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range aliceRows.Memories {
		aliceIDs = append(aliceIDs, m.ID)
	}
	if len(aliceIDs) < 4 {
		t.Fatalf("alice's rows: %d", len(aliceIDs))
	}
	addAs(t, r, "bob", "Bob: I live in Lisbon by the river.")
	r.waitIdle(t)
	after, err := r.eng.Memory.List(ctx, memory.ListInput{UserID: "alice", Limit: 100, IncludeRaw: true})
	if err != nil {
		t.Fatal(err)
	}
	if after.Total != aliceRows.Total {
		t.Errorf("alice had %d live rows, now %d after bob's write", aliceRows.Total, after.Total)
	}
	for i, m := range after.Memories {
		if m.Content != aliceRows.Memories[i].Content {
			t.Errorf("alice's row changed: %q -> %q", aliceRows.Memories[i].Content, m.Content)
		}
	}
	bob, _ := r.eng.Memory.List(ctx, memory.ListInput{UserID: "bob", Limit: 100, IncludeRaw: true})
	for _, m := range bob.Memories {
		if strings.Contains(m.Content, "LEAK") || strings.Contains(m.Content, "Alice's") {
			t.Errorf("bob's row carries alice's data: %q", m.Content)
		}
	}
}
