package memory

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// Strength is how sharp a curated memory is, in 0..1 (the Mirari Memory
// Atlas model). New memories start at DefaultStrength (a manual add may
// choose). Promote and demote move it by Step. Each reference (a reply used
// it, reported through feedback; or a write stated it again) raises it by
// Bump. A memory not referenced for DecayAfter loses Decay, once per such
// period, down to Floor: it fades, it is never retired or deleted for it.
// Strength is one small, explained part of ranking (why.strength); it never
// hides a memory. Memories at or above InjectAt are folded into the agent's
// prompt, strongest first.

// StrengthConfig holds the strength model's constants (settings).
type StrengthConfig struct {
	Step        float64       // HYATLAS_STRENGTH_STEP (0.1): promote and demote
	Bump        float64       // HYATLAS_STRENGTH_BUMP (0.02): one reference
	DecayAfter  time.Duration // HYATLAS_STRENGTH_DECAY_AFTER (336h = 14 days; 0 off)
	Decay       float64       // HYATLAS_STRENGTH_DECAY (0.05): per period of neglect
	Floor       float64       // HYATLAS_STRENGTH_FLOOR (0.1): decay stops here
	InjectAt    float64       // HYATLAS_INJECT_THRESHOLD (0.75): folded into the prompt
	PromptLimit int           // HYATLAS_PROMPT_LIMIT (40): lines in the prompt block
}

// DefaultStrengthConfig is the model's defaults.
func DefaultStrengthConfig() StrengthConfig {
	return StrengthConfig{Step: 0.1, Bump: 0.02, DecayAfter: 14 * 24 * time.Hour, Decay: 0.05, Floor: 0.1,
		InjectAt: 0.75, PromptLimit: 40}
}

// CuratedLayers are the layers whose rows have a strength that use and
// neglect move: profile, facts, schemas, intentions and entity pages.
var CuratedLayers = []Layer{LayerProfile, LayerFact, LayerSchema, LayerIntention, LayerEntity}

// Curated reports whether rows of layer l are curated.
func (l Layer) Curated() bool {
	for _, c := range CuratedLayers {
		if c == l {
			return true
		}
	}
	return false
}

// The categories of the Atlas; any other short text is allowed too.
const (
	CategoryFact       = "fact"
	CategoryPreference = "preference"
	CategoryGoal       = "goal"
	CategoryStyle      = "style"
)

// MetaLabel keeps an extracted fact's label (user_preferences, decision,
// ...) once its category is the Atlas's (preference, fact).
const MetaLabel = "label"

// categoryOfLabel is the Atlas category of an extraction label.
func categoryOfLabel(label string) string {
	if label == LabelUserPreferences {
		return CategoryPreference
	}
	return CategoryFact
}

// isPreference reports whether a fact is a user preference (by its
// category, or its label from extraction).
func isPreference(m Memory) bool {
	return m.Category == CategoryPreference || m.Metadata[MetaLabel] == LabelUserPreferences
}

// clampStrength keeps s in [0, 1], rounded to 1e-6 so that steps add up
// without float noise (0.5 + 0.1 + 0.1 + 0.1 is 0.8).
func clampStrength(s float64) float64 {
	return math.Round(math.Max(0, math.Min(1, s))*1e6) / 1e6
}

// NudgedStrength is a strength moved by step, clamped to 0..1 (the store
// applies a StrengthStep with it, inside the write).
func NudgedStrength(strength, step float64) float64 { return clampStrength(strength + step) }

// errNoStrength refuses a strength change on a layer that has none.
func errNoStrength(l Layer) error {
	return Errorf(EINVALID, "%s rows have no strength to change (curated layers: profile, fact, schema, intention, entity)", l.Title())
}

// Nudge promotes (steps > 0) or demotes (steps < 0) a curated memory by
// steps × Step, clamped to 0..1. A retired memory can be nudged too.
func (s *Service) Nudge(ctx context.Context, id string, steps int) (Memory, error) {
	id = strings.TrimSpace(id)
	if steps == 0 || steps < -10 || steps > 10 {
		return Memory{}, Errorf(EINVALID, "steps must be from -10 to 10 and not 0")
	}
	m, err := s.store.Get(ctx, id)
	if err != nil {
		return Memory{}, err
	}
	if !m.Layer.Curated() {
		return Memory{}, errNoStrength(m.Layer)
	}
	step := float64(steps) * s.cfg.Strength.Step
	return s.update(ctx, id, Update{At: s.now().UTC(), StrengthStep: &step})
}

// decayBatch is how many memories one fading transaction changes, and
// decayPause the rest between two: a first pass over a large store (an
// old export just imported: 100,000 months-old rows took a second in one
// statement) neither holds the writer nor takes a core for long.
var decayBatch = 1000

const decayPause = 20 * time.Millisecond

// DecayStrength fades curated memories nobody referenced for DecayAfter:
// each loses Decay, once per period, down to Floor. It returns how many
// faded. The engine runs it hourly; any clock works (tests inject one).
// It fades in batches; a row a batch faded is no longer due, so the pass
// ends.
func (s *Service) DecayStrength(ctx context.Context) (int, error) {
	c := s.cfg.Strength
	if c.DecayAfter <= 0 || c.Decay <= 0 || s.cannotStore(ctx) {
		return 0, nil
	}
	now := s.now().UTC()
	f := DecayFilter{Layers: CuratedLayers, Before: now.Add(-c.DecayAfter), Step: c.Decay, Floor: c.Floor, At: now,
		Limit: decayBatch}
	total := 0
	for {
		n, err := s.store.Decay(ctx, f)
		total += n
		if err != nil {
			return total, fmt.Errorf("decay strength: %w", err)
		}
		if n < f.Limit {
			break
		}
		select {
		case <-ctx.Done():
			return total, fmt.Errorf("decay strength: %w", ctx.Err())
		case <-time.After(decayPause):
		}
	}
	if total > 0 {
		s.events.Publish(Event{Type: "memory.decayed", At: now, Data: map[string]any{"count": total}})
	}
	return total, nil
}

// DecayFilter says which rows fade and by how much: live rows of Layers,
// above Floor, whose last reference (use, creation, or last fade) is at or
// before Before, lose Step (not below Floor); At becomes their last fade.
// Limit caps how many rows one call fades (0: all).
type DecayFilter struct {
	Layers      []Layer
	Before      time.Time
	Step, Floor float64
	At          time.Time
	Limit       int
}
