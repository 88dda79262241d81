package engine

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
)

// A model's event date past the year 9999 (in UTC) is dropped: the fact
// is undated, and listing, search and export go on working.
func TestExtract_AnEventDatePastTheYear9999(t *testing.T) {
	r := extractingRig(t, planJSON([]map[string]any{
		fact("The user's project Foxtrot ships at the end of time", "project_state", "event_at", "9999-12-31T23:00-05:00"),
		fact("The user likes green tea", "user_preferences"),
	}, nil))
	r.add(t, "Foxtrot ships at the end of time. I like green tea.")
	r.waitIdle(t)
	facts := r.live(t, memory.LayerFact)
	if len(facts) != 2 {
		t.Fatalf("facts: %d", len(facts))
	}
	for _, f := range facts {
		if !f.EventAt.IsZero() && f.EventAt.Year() > 9999 {
			t.Errorf("%q is dated %v", f.Content, f.EventAt)
		}
	}
	var problems []string
	if _, err := r.c.List(context.Background(), api.ListRequest{Layer: "l3_fact", Limit: 50}); err != nil {
		problems = append(problems, "list: "+err.Error())
	}
	q := "green tea"
	if _, err := r.c.Search(context.Background(), api.SearchRequest{Query: q}); err != nil {
		problems = append(problems, "search: "+err.Error())
	}
	var buf bytes.Buffer
	if _, err := r.eng.Memory.Export(context.Background(), &buf, memory.ExportInput{}); err != nil {
		problems = append(problems, "export: "+err.Error())
	}
	if len(problems) > 0 {
		t.Fatalf("one model-given date broke the API:\n%s", strings.Join(problems, "\n"))
	}
}

// The same for an intention's due date before the year 1 (in UTC).
func TestExtract_ADueDateBeforeTheYear1(t *testing.T) {
	r := extractingRig(t, planJSON(nil, []map[string]any{{"goal": "Send the Foxtrot invoice to Dana", "due_at": "0000-01-01T00:00+01:00"}}))
	r.add(t, "Remind me to send the Foxtrot invoice to Dana.")
	r.waitIdle(t)
	in := r.live(t, memory.LayerIntention)
	if len(in) != 1 || !in[0].DueAt.IsZero() {
		t.Fatalf("intentions: %+v", in)
	}
	if _, err := r.c.List(context.Background(), api.ListRequest{Layer: "l7_intention", Limit: 50}); err != nil {
		t.Fatalf("list after a due date of %v: %v", in[0].DueAt, err)
	}
	if _, err := r.c.Get(context.Background(), in[0].ID); err != nil {
		t.Fatalf("get after a due date of %v: %v", in[0].DueAt, err)
	}
}

// extractingRig is an LLM rig with a key whose model answers every
// extraction with reply (and anything else with an empty object).
func extractingRig(t *testing.T, reply string) *llmRig {
	t.Helper()
	r := newLLMRig(t, nil)
	if err := r.eng.x.keys.Hand("sk-test-key-1"); err != nil {
		t.Fatal(err)
	}
	r.fake.setReply(func(q llmRequest) (int, string) {
		if !q.extraction() {
			return 200, `{}`
		}
		return 200, reply
	})
	return r
}
