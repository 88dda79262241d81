package memory_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"hyatlas/backend/memory"
)

// hookEmbedder runs hook once, the first time it is asked to embed a text
// holding trigger: the moment a promotion embeds its new rows, after it
// checked the rows it retires and before it commits.
type hookEmbedder struct {
	memory.Embedder
	trigger string
	hook    func()
	once    sync.Once
}

func (e *hookEmbedder) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	if slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, e.trigger) }) {
		e.once.Do(e.hook)
	}
	return e.Embedder.Embed(ctx, texts, p)
}

// newHookedExtractRig is an extraction rig whose embedder runs a hook
// (set later) the first time it embeds a text holding trigger.
func newHookedExtractRig(t *testing.T, trigger string) (*rig, *scriptedExtractor, *hookEmbedder) {
	t.Helper()
	x, hook := &scriptedExtractor{}, &hookEmbedder{trigger: trigger}
	r := newRig(t, extractCfg(), func(d *memory.Deps) {
		d.Extractor = x
		d.LLMState = func() memory.LLMState { return memory.LLMOK }
		hook.Embedder = d.Embedder
		d.Embedder = hook
	})
	return r, x, hook
}

// A fact the user edits while extraction embeds the fact that replaces or
// updates it keeps the user's text and stays live: the model judged a
// text that is no longer there. The new fact is written beside it.
func TestExtract_AFactEditedWhileTheNewOneIsEmbeddedStays(t *testing.T) {
	for _, how := range []string{"replaces", "updates"} {
		t.Run(how, func(t *testing.T) {
			r, x, hook := newHookedExtractRig(t, "The user runs Postgres 16")
			x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{
				{Text: "The user runs Postgres 15 for project Foxtrot", Label: memory.LabelProjectState}}}))
			r.write(t, "USER: Foxtrot runs on Postgres 15", "u1")
			old := r.live(t, memory.LayerFact, "u1")[0]
			edited := "The user runs Postgres 14 for project Foxtrot"
			hook.hook = func() {
				if _, err := r.svc.Edit(context.Background(), old.ID, memory.EditInput{Content: &edited}); err != nil {
					t.Error(err)
				}
			}
			f := memory.PlannedFact{Text: "The user runs Postgres 16 for project Foxtrot", Label: memory.LabelProjectState}
			if how == "replaces" {
				f.Replaces = []string{old.ID}
			} else {
				f.Updates = old.ID
			}
			x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{f}}))
			if _, st := r.write(t, "USER: Foxtrot moved to Postgres 16", "u1"); st != memory.StatusDone {
				t.Fatalf("status %s, want done", st)
			}
			if got := r.get(t, old.ID); !got.Live() || got.Content != edited {
				t.Errorf("the fact edited meanwhile: live %v, %q (retired %s)", got.Live(), got.Content, got.RetiredHow)
			}
			live := r.live(t, memory.LayerFact, "u1")
			i := slices.IndexFunc(live, func(m memory.Memory) bool { return m.Content == f.Text })
			if i < 0 {
				t.Fatalf("the new fact is missing: %+v", live)
			}
			// It retired nothing, so it took no count nor strength from it.
			if n := live[i].Metadata[memory.MetaCount]; n != "" || live[i].Strength != memory.DefaultStrength {
				t.Errorf("the new fact counts %q at strength %v, want its own (no count, %v)", n, live[i].Strength, memory.DefaultStrength)
			}
		})
	}
}

// An intention the user rewrites while extraction embeds its new rows is
// not retired as done on the strength of its old goal.
func TestExtract_AnIntentionRewrittenWhileTheNewRowsAreEmbeddedStaysOpen(t *testing.T) {
	r, x, hook := newHookedExtractRig(t, "The TLS certificate was renewed")
	x.set(plan(memory.ExtractPlan{Intentions: []memory.PlannedIntention{{Goal: "Renew the TLS certificate"}}}))
	r.write(t, "I need to renew the TLS certificate", "u1")
	intent := r.live(t, memory.LayerIntention, "u1")[0]
	goal := "Renew the TLS certificate and the SSH host keys"
	hook.hook = func() {
		if _, err := r.svc.Edit(context.Background(), intent.ID, memory.EditInput{Content: &goal}); err != nil {
			t.Error(err)
		}
	}
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		return memory.ExtractPlan{IntentionsDone: []string{intent.ID},
			Facts: []memory.PlannedFact{{Text: "The TLS certificate was renewed", Label: memory.LabelProjectState}}}, nil
	})
	r.write(t, "the TLS certificate is renewed", "u1")
	if got := r.get(t, intent.ID); !got.Live() || got.Content != goal {
		t.Errorf("the rewritten intention: live %v, %q (retired %s)", got.Live(), got.Content, got.RetiredHow)
	}
}

// While consolidation embeds a merged fact, the user edits one of the
// facts it merges, or retires and restores (keeps) the fact it drops:
// neither is retired, and no merged row stands for the edited one.
func TestConsolidate_FactsChangedWhileTheMergeIsEmbeddedStay(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, r *rig, f aliceFacts)
		merged bool // the merge still happens
		kept   func(f aliceFacts) []string
	}{
		{"a merged fact edited", func(t *testing.T, r *rig, f aliceFacts) {
			text := "Alice switched to black coffee each morning"
			if _, err := r.svc.Edit(context.Background(), f.tea2.ID, memory.EditInput{Content: &text}); err != nil {
				t.Error(err)
			}
		}, false, func(f aliceFacts) []string { return []string{f.tea1.ID, f.tea2.ID} }},
		{"the dropped fact kept", func(t *testing.T, r *rig, f aliceFacts) {
			if _, err := r.svc.Retire(context.Background(), f.chat.ID, memory.RetireInput{}); err != nil {
				t.Error(err)
			}
			if _, err := r.svc.Restore(context.Background(), f.chat.ID); err != nil {
				t.Error(err)
			}
		}, true, func(f aliceFacts) []string { return []string{f.chat.ID} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &scriptedConsolidator{}
			hook := &hookEmbedder{trigger: "Alice has green tea every single morning"}
			r := newRig(t, consolidateCfg(), func(d *memory.Deps) {
				d.Extractor = &scriptedExtractor{}
				d.LLMState = func() memory.LLMState { return memory.LLMOK }
				d.Consolidator = c
				d.GraphStore = d.ExtractStore.(memory.GraphStore)
				d.ConsolidationStore = d.ExtractStore.(memory.ConsolidationStore)
				hook.Embedder = d.Embedder
				d.Embedder = hook
			})
			f := r.aliceFacts(t)
			hook.hook = func() { tc.change(t, r, f) }
			c.set(reply(memory.ConsolidatePlan{
				Merges: []memory.PlannedMerge{{IDs: []string{f.tea1.ID, f.tea2.ID}, Text: "Alice has green tea every single morning"}},
				Drops:  []memory.PlannedDrop{{ID: f.chat.ID, Reason: "small talk"}},
			}))
			r.consolidate(t)
			for _, id := range tc.kept(f) {
				if got := r.get(t, id); !got.Live() {
					t.Errorf("%q was retired (%s) though it changed while the merge was embedded", got.Content, got.RetiredHow)
				}
			}
			live := r.live(t, memory.LayerFact, "alice")
			merged := slices.ContainsFunc(live, func(m memory.Memory) bool { return m.Content == "Alice has green tea every single morning" })
			if merged != tc.merged {
				t.Errorf("a merged fact stands: %v, want %v (live: %d facts)", merged, tc.merged, len(live))
			}
		})
	}
}
