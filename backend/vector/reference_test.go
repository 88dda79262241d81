package vector

// The brute-force reference model and the checks the tests share.

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"sort"
	"testing"

	"hyatlas/backend/memory"
)

const scoreTol = 1e-5

func randVec(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// unit normalises v in float64, independently of the package's code.
func unit(v []float32) []float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	n := math.Sqrt(s)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x) / n
	}
	return out
}

// reference is a brute-force model of the index.
type reference map[string]refEntry

type refEntry struct {
	memory.IndexEntry
	u  []float64   // Values normalised in float64
	pu [][]float64 // Parts normalised
}

func (r reference) put(e memory.IndexEntry) {
	e.Values = slices.Clone(e.Values)
	re := refEntry{IndexEntry: e, u: unit(e.Values)}
	for _, p := range e.Parts {
		re.pu = append(re.pu, unit(p))
	}
	r[e.ID] = re
}

func (r reference) search(q []float32, k int, f memory.VectorFilter) []memory.VectorHit {
	if k <= 0 {
		return nil
	}
	qu := unit(q)
	var hits []memory.VectorHit
	for id, e := range r {
		if len(f.Layers) > 0 && !slices.Contains(f.Layers, e.Layer) {
			continue
		}
		if !f.Scope.Covers(e.Owner) {
			continue
		}
		hits = append(hits, memory.VectorHit{ID: id, Score: r.cos(qu, id)})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// cos is a row's score: the best cosine of its vector and its parts.
func (r reference) cos(qu []float64, id string) float64 {
	dot := func(u []float64) float64 {
		var s float64
		for i, x := range u {
			s += qu[i] * x
		}
		return s
	}
	best := dot(r[id].u)
	for _, p := range r[id].pu {
		best = max(best, dot(p))
	}
	return best
}

// checkHits compares got with the reference's answer. A differing id is
// accepted only when its true score ties the expected one.
func checkHits(t *testing.T, ref reference, q []float32, f memory.VectorFilter, got, want []memory.VectorHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d hits, want %d", len(got), len(want))
	}
	qu := unit(q)
	seen := map[string]bool{}
	for i, h := range got {
		if seen[h.ID] {
			t.Fatalf("hit %d: duplicate id %s", i, h.ID)
		}
		seen[h.ID] = true
		e, ok := ref[h.ID]
		if !ok {
			t.Fatalf("hit %d: unknown id %s", i, h.ID)
		}
		if (len(f.Layers) > 0 && !slices.Contains(f.Layers, e.Layer)) || !f.Scope.Covers(e.Owner) {
			t.Fatalf("hit %d: %s (%s, %+v) is outside filter %+v", i, h.ID, e.Layer, e.Owner, f)
		}
		if math.Abs(h.Score-want[i].Score) > scoreTol {
			t.Fatalf("hit %d: score %.7f, want %.7f (id %s, want %s)", i, h.Score, want[i].Score, h.ID, want[i].ID)
		}
		if h.ID != want[i].ID && math.Abs(ref.cos(qu, h.ID)-want[i].Score) > scoreTol {
			t.Fatalf("hit %d: id %s, want %s", i, h.ID, want[i].ID)
		}
	}
}

var (
	testLayers = []memory.Layer{memory.LayerRaw, memory.LayerFact, memory.LayerProfile}
	testUsers  = []string{"u1", "u2", "u3"}
	testAgents = []string{"", "a1", "a2"}
)

// fill upserts n random entries in batches and returns the reference.
func fill(t testing.TB, x *Index, r *rand.Rand, n int, layers []memory.Layer, users []string) reference {
	t.Helper()
	ref := reference{}
	var batch []memory.IndexEntry
	for i := range n {
		e := memory.IndexEntry{
			ID:    fmt.Sprintf("id%06d", i),
			Layer: layers[r.Intn(len(layers))],
			Owner: memory.Owner{UserID: users[r.Intn(len(users))], AgentID: testAgents[r.Intn(len(testAgents))]},
		}
		if i%997 == 5 { // a rare agent, scattered across partitions
			e.Owner.AgentID = "rare"
		}
		e.Values = randVec(r, x.Dims())
		if i%4 == 1 { // some rows have sentence vectors too
			for range 1 + r.Intn(3) {
				e.Parts = append(e.Parts, randVec(r, x.Dims()))
			}
		}
		ref.put(e)
		batch = append(batch, e)
		if len(batch) == 500 || i == n-1 {
			if err := x.Upsert(batch...); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return ref
}

// atLeastTwoProcs makes the parallel path reachable on a one-core runner.
func atLeastTwoProcs(t *testing.T) {
	if prev := runtime.GOMAXPROCS(0); prev < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
}

// checkVectors asserts Vector(id) for every reference id.
func checkVectors(t *testing.T, x *Index, ref reference) {
	t.Helper()
	for id, e := range ref {
		got, ok := x.Vector(id)
		if !ok {
			t.Fatalf("Vector(%s) not found", id)
		}
		for i, w := range e.u {
			if math.Abs(float64(got[i])-w) > 1e-6 {
				t.Fatalf("Vector(%s)[%d] = %v, want %v", id, i, got[i], w)
			}
		}
	}
}

// checkInvariants walks the internal layout: every slot points at its own
// id, chunks are full but the last, and no partition is empty.
func checkInvariants(t *testing.T, x *Index, ref reference) {
	t.Helper()
	vectors := 0 // rows and their sentence parts
	for _, e := range ref {
		vectors += 1 + len(e.Parts)
	}
	if x.Len() != len(ref) || len(x.slots) != vectors {
		t.Fatalf("Len = %d, slots %d, want %d rows and %d vectors", x.Len(), len(x.slots), len(ref), vectors)
	}
	rows := 0
	for key, p := range x.parts {
		if p.n == 0 || p.key != key {
			t.Fatalf("partition %v: n=%d key=%v", key, p.n, p.key)
		}
		if want := (p.n + chunkSize - 1) / chunkSize; len(p.chunks) != want {
			t.Fatalf("partition %v: %d chunks for %d rows", key, len(p.chunks), p.n)
		}
		for ci, c := range p.chunks {
			want := chunkSize
			if ci == len(p.chunks)-1 {
				want = p.n - ci*chunkSize
			}
			if len(c.ids) != want || len(c.agents) != want || len(c.vecs) != want*x.dims {
				t.Fatalf("partition %v chunk %d: %d/%d/%d entries, want %d", key, ci, len(c.ids), len(c.agents), len(c.vecs), want)
			}
			for off, id := range c.ids {
				e, ok := ref[rowID(id)]
				if !ok {
					t.Fatalf("partition %v holds removed id %q", key, id)
				}
				s := x.slots[id]
				if s.part != p || s.pos != ci*chunkSize+off {
					t.Fatalf("slot of %s is (%v, %d), row is at (%v, %d)", id, s.part.key, s.pos, key, ci*chunkSize+off)
				}
				if key.layer != e.Layer || key.user != e.Owner.UserID || x.names[c.agents[off]] != e.Owner.AgentID {
					t.Fatalf("%s is in %v agent %q, want %s/%+v", id, key, x.names[c.agents[off]], e.Layer, e.Owner)
				}
			}
		}
		rows += p.n
	}
	if rows != vectors {
		t.Fatalf("partitions hold %d vectors, want %d", rows, vectors)
	}
}
