package memory_test

import (
	"context"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// A preference the user promoted in the Atlas (its profile row, the one
// the Atlas shows and the prompt block reads) stays promoted when it is
// said again: the new profile row inherits its strength, raised, whether
// the model says it updates the old fact or the new wording is a near
// copy of it.
func TestPromote_ARestatedPreferenceKeepsItsProfileStrength(t *testing.T) {
	for _, how := range []string{"updates", "near copy"} {
		t.Run(how, func(t *testing.T) {
			r, x := newExtractRig(t, extractCfg())
			ctx := context.Background()
			text := "Prefers dark mode in every editor"
			x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: text, Label: memory.LabelUserPreferences}}}))
			r.write(t, "I prefer dark mode in every editor", "u1")
			profile := r.live(t, memory.LayerProfile, "u1")
			if len(profile) != 1 {
				t.Fatalf("profile rows: %+v", profile)
			}
			if _, err := r.svc.Nudge(ctx, profile[0].ID, 4); err != nil { // 0.9: in the prompt block
				t.Fatal(err)
			}
			x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
				f := memory.PlannedFact{Text: text, Label: memory.LabelUserPreferences}
				if how == "updates" && len(req.RelatedFacts) > 0 {
					f.Updates = req.RelatedFacts[0].ID
				}
				return memory.ExtractPlan{Facts: []memory.PlannedFact{f}}, nil
			})
			r.write(t, "Again: I prefer dark mode in every editor", "u1")
			profile = r.live(t, memory.LayerProfile, "u1")
			if len(profile) != 1 || profile[0].Strength < 0.9 {
				t.Fatalf("the profile row after the preference was said again: %+v; want one, at 0.9 or more", profile)
			}
			block, err := r.svc.Prompt(ctx, memory.PromptInput{UserID: "u1"})
			if err != nil || !strings.Contains(block.Text, "dark mode") {
				t.Errorf("the prompt block lost the promoted preference: %q, %v", block.Text, err)
			}
		})
	}
}
