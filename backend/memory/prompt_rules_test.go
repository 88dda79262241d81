package memory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// TestPrompt_HoldsWhatIsCurrentOnce: the prompt block leaves out an
// intention that is no longer current (recall does too) and gives a line
// that a stronger one says already (a preference fact and its profile row)
// once.
func TestPrompt_HoldsWhatIsCurrentOnce(t *testing.T) {
	r := newRig(t, memory.Config{Search: memory.SearchConfig{IntentionTTL: 168 * time.Hour},
		Extraction: memory.ExtractionConfig{Location: time.UTC}})
	ctx := context.Background()
	strong := func(m memory.Memory) memory.Memory {
		m.Strength = 0.9
		m.Owner = memory.Owner{UserID: "u1"}
		return r.put(t, m)
	}
	strong(memory.Memory{Layer: memory.LayerFact, Content: "Prefers dark mode", Category: memory.CategoryPreference})
	strong(memory.Memory{Layer: memory.LayerProfile, Content: "Prefers dark mode", Category: memory.CategoryPreference})
	strong(memory.Memory{Layer: memory.LayerIntention, Content: "Renew the passport", Category: memory.CategoryGoal,
		DueAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}) // a month past due
	strong(memory.Memory{Layer: memory.LayerIntention, Content: "Book the dentist", Category: memory.CategoryGoal})
	block, err := r.svc.Prompt(ctx, memory.PromptInput{UserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(block.Text, "Prefers dark mode"); n != 1 {
		t.Errorf("the preference is given %d times, want once:\n%s", n, block.Text)
	}
	if strings.Contains(block.Text, "passport") {
		t.Errorf("an intention a month past due is in the block:\n%s", block.Text)
	}
	if !strings.Contains(block.Text, "Book the dentist") || len(block.Memories) != 2 {
		t.Errorf("the block holds %d memories, want the preference and the current intention:\n%s", len(block.Memories), block.Text)
	}
}
