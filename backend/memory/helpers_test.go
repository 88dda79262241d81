package memory_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
)

// rig is a Service over a real store in a temp dir, a real index and the
// hash embedder, with a settable clock.
type rig struct {
	svc   *memory.Service
	store *store.Store
	index *vector.Index
	clock *clock
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second) // every call is a later second
	return c.now
}

// newRig builds the rig; opts may change the dependencies (an extractor,
// the LLM state) before the Service is made.
func newRig(t *testing.T, cfg memory.Config, opts ...func(*memory.Deps)) *rig {
	t.Helper()
	if cfg.Mode == "" {
		cfg.Mode = memory.ModeLite
	}
	if cfg.MinScore == 0 {
		cfg.MinScore = -1
	}
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	emb, err := embed.NewHash(64)
	if err != nil {
		t.Fatal(err)
	}
	ix := vector.New(64)
	c := &clock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	deps := memory.Deps{Store: st, Index: ix, Embedder: emb, Now: c.Now, ExtractStore: st}
	for _, o := range opts {
		o(&deps)
	}
	svc, err := memory.NewService(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{svc: svc, store: st, index: ix, clock: c}
}

func (r *rig) add(t *testing.T, text, user string) memory.Memory {
	t.Helper()
	res, err := r.svc.Add(context.Background(), memory.AddInput{Text: text, Owner: memory.Owner{UserID: user}})
	if err != nil {
		t.Fatalf("add %q: %v", text, err)
	}
	return res.Memory
}

// put stores a row of any layer directly, with its vector, and indexes it,
// as extraction will once it exists.
func (r *rig) put(t *testing.T, m memory.Memory) memory.Memory {
	t.Helper()
	ctx := context.Background()
	emb, _ := embed.NewHash(64)
	vecs, err := emb.Embed(ctx, []string{m.Content}, memory.PurposeDocument)
	if err != nil {
		t.Fatal(err)
	}
	now := r.clock.Now()
	if m.ID == "" {
		m.ID = memory.NewID(now)
	}
	if m.Owner.UserID == "" {
		m.Owner.UserID = memory.DefaultUserID
	}
	m.CreatedAt, m.UpdatedAt = now, now
	if m.Extraction == "" {
		m.Extraction = memory.ExtractSkipped
	}
	if m.Strength == 0 {
		m.Strength = memory.DefaultStrength
	}
	if m.EventAt.IsZero() {
		m.EventAt = now
	}
	if err := r.store.Insert(ctx, memory.NewRow{Memory: m, Vector: memory.Vector{Embedder: emb.Info().ID, Values: vecs[0]}}); err != nil {
		t.Fatal(err)
	}
	if err := r.index.Upsert(memory.IndexEntry{ID: m.ID, Layer: m.Layer, Owner: m.Owner, Values: vecs[0]}); err != nil {
		t.Fatal(err)
	}
	return m
}

func (r *rig) search(t *testing.T, in memory.SearchInput) []string {
	t.Helper()
	res, err := r.svc.Search(context.Background(), in)
	if err != nil {
		t.Fatalf("search %q: %v", in.Query, err)
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.Memory.ID
	}
	return ids
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func f64(v float64) *float64 { return &v }
func str(v string) *string   { return &v }

// aliases parses an alias spec ("amy,bea;cy,dan"), failing the test on error.
func aliases(t *testing.T, spec string) memory.Aliases {
	t.Helper()
	a, err := memory.ParseAliases(spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
