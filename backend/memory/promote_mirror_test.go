package memory_test

import (
	"context"
	"strings"
	"testing"

	"hyatlas/backend/embed"
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

// An edit of a preference by hand reaches its other row (the fact and its
// profile row say the same), unless that row was edited on its own since.
func TestEdit_APreferenceEditReachesItsOtherRow(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	ctx := context.Background()
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "Prefers tea", Label: memory.LabelUserPreferences}}}))
	r.write(t, "I prefer tea", "u1")
	fact, profile := r.live(t, memory.LayerFact, "u1")[0], r.live(t, memory.LayerProfile, "u1")[0]
	text := "Prefers green tea"
	if _, err := r.svc.Edit(ctx, fact.ID, memory.EditInput{Content: &text}); err != nil {
		t.Fatal(err)
	}
	if got := r.get(t, profile.ID).Content; got != text {
		t.Errorf("the profile row after the fact's edit: %q, want %q", got, text)
	}
	own := "Prefers tea, but never after 6 pm"
	if _, err := r.svc.Edit(ctx, profile.ID, memory.EditInput{Content: &own}); err != nil {
		t.Fatal(err)
	}
	if got := r.get(t, fact.ID).Content; got != own {
		t.Errorf("the fact after the profile row's edit: %q, want %q", got, own)
	}
	// The fact edited on its own: the profile row's next edit leaves it.
	factOwn := "Prefers rooibos"
	emb, _ := embed.NewHash(64)
	vecs, err := emb.Embed(ctx, []string{factOwn}, memory.PurposeDocument)
	if err != nil {
		t.Fatal(err)
	}
	v := memory.Vector{Embedder: emb.Info().ID, Values: vecs[0]}
	if _, err := r.store.Update(ctx, fact.ID, memory.Update{Content: &factOwn, Vector: &v}); err != nil {
		t.Fatal(err)
	}
	later := "Prefers coffee"
	if _, err := r.svc.Edit(ctx, profile.ID, memory.EditInput{Content: &later}); err != nil {
		t.Fatal(err)
	}
	if got := r.get(t, fact.ID).Content; got != factOwn {
		t.Errorf("a fact edited on its own was overwritten: %q", got)
	}
}
