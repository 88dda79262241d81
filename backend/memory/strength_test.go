package memory_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestNudge(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	fact := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Tuesday is no-meeting day"})
	raw := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "hi"})
	steps := []struct {
		steps int
		want  float64
	}{{1, 0.6}, {1, 0.7}, {-3, 0.4}, {-10, 0}, {10, 1}, {1, 1}, {-1, 0.9}}
	for _, s := range steps {
		m, err := r.svc.Nudge(ctx, fact.ID, s.steps)
		if err != nil || m.Strength != s.want {
			t.Fatalf("nudge %+d: %v, %v; want %v", s.steps, m.Strength, err, s.want)
		}
	}
	bad := []struct {
		id    string
		steps int
		code  memory.Code
	}{{raw.ID, 1, memory.EINVALID}, {"m-nope", 1, memory.ENOTFOUND}, {fact.ID, 0, memory.EINVALID}, {fact.ID, 11, memory.EINVALID}}
	for _, b := range bad {
		if _, err := r.svc.Nudge(ctx, b.id, b.steps); memory.ErrorCode(err) != b.code {
			t.Errorf("nudge %s %+d: %v, want %s", b.id, b.steps, err, b.code)
		}
	}
	if got := r.get(t, fact.ID).Strength; got != 0.9 {
		t.Errorf("a refused nudge changed strength to %v", got)
	}
}

// Promotes and demotes sent at once each count: every acknowledged step
// is in the strength, none is lost to another read at the same moment.
func TestNudgesAtOnceAllCount(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	for _, c := range []struct {
		name         string
		from         float64
		steps, times int
		want         float64
	}{
		{"ten promotes from 0", 0, 1, 10, 1},
		{"eight demotes from 1", 1, -1, 8, 0.2},
		{"promotes past the top stop at 1", 0.5, 1, 9, 1},
	} {
		m := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "strength race " + c.name, Strength: c.from})
		var wg sync.WaitGroup
		errs := make(chan error, c.times)
		for range c.times {
			wg.Go(func() {
				if _, err := r.svc.Nudge(ctx, m.ID, c.steps); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := r.get(t, m.ID).Strength; got != c.want {
			t.Errorf("%s: strength %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFeedbackRaisesStrengthOfCuratedRows(t *testing.T) {
	r := newRig(t, memory.Config{})
	fact := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Prefers Tailwind tokens"})
	raw := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "a turn"})
	for range 3 {
		if _, err := r.svc.Feedback(context.Background(), memory.FeedbackInput{Used: []string{fact.ID, raw.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	if f := r.get(t, fact.ID); f.Strength != 0.56 || f.UseCount != 3 {
		t.Errorf("fact: strength %v, uses %d", f.Strength, f.UseCount)
	}
	if w := r.get(t, raw.ID); w.Strength != memory.DefaultStrength || w.UseCount != 3 {
		t.Errorf("raw: strength %v, uses %d", w.Strength, w.UseCount)
	}
}

// Neglect fades a memory once per 14-day period, never below the floor,
// never a retired or raw row, and a use resets the period.
func TestDecayStrength(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	neglected := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "likes lowercase commits"})
	used := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "ships on Workers"})
	retired := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "old news"})
	raw := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "a turn"})
	if _, err := r.svc.Retire(ctx, retired.ID, memory.RetireInput{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	decay := func() int {
		t.Helper()
		n, err := r.svc.DecayStrength(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	strength := func(m memory.Memory) float64 { return r.get(t, m.ID).Strength }

	r.advance(13 * 24 * time.Hour)
	if n := decay(); n != 0 {
		t.Fatalf("faded after 13 days: %d", n)
	}
	if _, err := r.svc.Feedback(ctx, memory.FeedbackInput{Used: []string{used.ID}}); err != nil {
		t.Fatal(err)
	}
	r.advance(24 * time.Hour)
	if n := decay(); n != 1 || strength(neglected) != 0.45 || strength(used) != 0.52 {
		t.Fatalf("after 14 days: %d faded, neglected %v, used %v", n, strength(neglected), strength(used))
	}
	if n := decay(); n != 0 {
		t.Fatalf("faded twice in one period: %d", n)
	}
	for range 20 {
		r.advance(14 * 24 * time.Hour)
		decay()
	}
	if got := strength(neglected); got != 0.1 {
		t.Errorf("after many periods: %v, want the floor 0.1", got)
	}
	if m := r.get(t, neglected.ID); !m.Live() {
		t.Error("a faded memory was retired")
	}
	if strength(retired) != memory.DefaultStrength || strength(raw) != memory.DefaultStrength {
		t.Errorf("retired %v, raw %v: they must not fade", strength(retired), strength(raw))
	}
}

// A pass fades every due memory however many batches it takes, and each
// once.
func TestDecayStrengthInBatches(t *testing.T) {
	defer func(was int) { *memory.DecayBatch = was }(*memory.DecayBatch)
	*memory.DecayBatch = 2
	r := newRig(t, memory.Config{})
	var facts []memory.Memory
	for i := range 5 {
		facts = append(facts, r.put(t, memory.Memory{Layer: memory.LayerFact, Content: fmt.Sprintf("fact number %d", i)}))
	}
	r.advance(15 * 24 * time.Hour)
	n, err := r.svc.DecayStrength(context.Background())
	if err != nil || n != 5 {
		t.Fatalf("faded %d (%v), want all 5 in batches of 2", n, err)
	}
	for _, f := range facts {
		if got := r.get(t, f.ID).Strength; got != 0.45 {
			t.Errorf("%s: strength %v, want 0.45 (faded once)", f.Content, got)
		}
	}
	if n, err := r.svc.DecayStrength(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second pass faded %d (%v)", n, err)
	}
}

// A write that states a fact again carries its strength forward, raised.
func TestRestatedFactKeepsItsStrength(t *testing.T) {
	r, x := newExtractRig(t, extractCfg())
	r.write(t, "I ship on Cloudflare Workers", "u1")
	x.set(plan(memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user ships on Cloudflare Workers", Label: memory.LabelUserPreferences}}}))
	r.write(t, "I ship on Cloudflare Workers", "u1")
	old := r.live(t, memory.LayerFact, "u1")[0]
	if _, err := r.svc.Nudge(context.Background(), old.ID, 3); err != nil {
		t.Fatal(err)
	}
	x.set(func(req memory.ExtractRequest) (memory.ExtractPlan, error) {
		return memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: "The user ships every project on Cloudflare Workers",
			Label: memory.LabelUserPreferences, Updates: req.RelatedFacts[0].ID}}}, nil
	})
	r.write(t, "every project ships on Workers", "u1")
	facts := r.live(t, memory.LayerFact, "u1")
	if len(facts) != 1 || facts[0].ID == old.ID || facts[0].Strength != 0.82 {
		t.Fatalf("facts after a restatement: %+v", facts)
	}
}

// Over the threshold, the weakest and least recently used facts are
// retired as compacted (reversibly); other people's facts are untouched.
func TestCompact(t *testing.T) {
	r := newRig(t, memory.Config{CompactThreshold: 3})
	ctx := context.Background()
	var facts []memory.Memory
	for i, st := range []float64{0.9, 0.2, 0.5, 0.5, 0.7} {
		facts = append(facts, r.put(t, memory.Memory{Layer: memory.LayerFact, Content: fmt.Sprintf("fact number %d", i),
			Owner: memory.Owner{UserID: "u1"}, Strength: st}))
	}
	for i := range 4 {
		r.put(t, memory.Memory{Layer: memory.LayerFact, Content: fmt.Sprintf("bob's fact %d", i), Owner: memory.Owner{UserID: "bob"}, Strength: 0.1})
	}
	// facts[2] was used lately: of the two at 0.5, facts[3] goes.
	if _, err := r.svc.Feedback(ctx, memory.FeedbackInput{Used: []string{facts[2].ID}}); err != nil {
		t.Fatal(err)
	}
	n, err := r.svc.Compact(ctx)
	if err != nil || n != 3 {
		t.Fatalf("compacted %d, %v; want 3 (2 of u1, 1 of bob)", n, err)
	}
	for i, want := range []bool{true, false, true, false, true} {
		m := r.get(t, facts[i].ID)
		if m.Live() != want || (!want && m.RetiredHow != memory.RetiredCompacted) {
			t.Errorf("fact %d (strength %v): live %v, how %q", i, facts[i].Strength, m.Live(), m.RetiredHow)
		}
	}
	if n, _ := r.svc.Compact(ctx); n != 0 {
		t.Errorf("a second run compacted %d", n)
	}
	if m, err := r.svc.Restore(ctx, facts[1].ID); err != nil || !m.Live() {
		t.Fatalf("restore: %v", err)
	}
}
