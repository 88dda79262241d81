package memory_test

import (
	"context"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// TestExtract_AnEditWhileTheModelReadsIsExtractedAnew: a write edited in
// the Atlas while its extraction waits on the model gets no facts of the
// old text; the new text is extracted instead, in the same run.
func TestExtract_AnEditWhileTheModelReadsIsExtractedAnew(t *testing.T) {
	ctx := context.Background()
	cfg := extractCfg()
	cfg.Extraction.Sync = false
	r, x := newExtractRig(t, cfg)
	raw, _ := r.write(t, "Erin likes apples", "u1")
	calls := 0
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		calls++
		if calls == 1 { // the person edits the write while the model reads it
			pears := "Erin likes pears"
			if _, err := r.svc.Edit(ctx, raw.ID, memory.EditInput{Content: &pears}); err != nil {
				t.Error(err)
			}
		}
		return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user says: " + req.Text, Label: "preference"}}}, nil
	})
	st, err := r.svc.ExtractOne(ctx, raw.ID)
	if err != nil || st != memory.StatusDone {
		t.Fatalf("ExtractOne = %s, %v; want done", st, err)
	}
	var texts []string
	for _, f := range r.live(t, memory.LayerFact, "u1") {
		texts = append(texts, f.Content)
	}
	if len(texts) != 1 || !strings.Contains(texts[0], "pears") {
		t.Errorf("facts %q; want one, of the edited text (pears), none of apples", texts)
	}
	if calls != 2 {
		t.Errorf("%d model calls, want 2 (the old text, then the new)", calls)
	}
}
