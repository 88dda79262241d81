package vector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"sync"
	"testing"

	"hyatlas/backend/memory"
)

func TestSearchMatchesBruteForce(t *testing.T) {
	atLeastTwoProcs(t)
	all := memory.VectorFilter{}
	cases := []struct {
		name     string
		f        memory.VectorFilter
		k        int
		parallel bool // for the large index: the filter selects >= parallelMin rows
		empty    bool
	}{
		{name: "no filter", f: all, k: 10, parallel: true},
		{name: "no filter large k", f: all, k: 300, parallel: true},
		{name: "one layer", f: memory.VectorFilter{Layers: []memory.Layer{memory.LayerFact}}, k: 15, parallel: true},
		{name: "two layers", f: memory.VectorFilter{Layers: []memory.Layer{memory.LayerRaw, memory.LayerProfile}}, k: 15, parallel: true},
		{name: "one user", f: memory.VectorFilter{Scope: memory.Scope{UserIDs: []string{"u2"}}}, k: 15, parallel: true},
		{name: "several users", f: memory.VectorFilter{Scope: memory.Scope{UserIDs: []string{"u1", "u3", "nobody"}}}, k: 20, parallel: true},
		{name: "layer and user", f: memory.VectorFilter{Layers: []memory.Layer{memory.LayerRaw}, Scope: memory.Scope{UserIDs: []string{"u1"}}}, k: 15},
		{name: "agent", f: memory.VectorFilter{Scope: memory.Scope{AgentID: "a1"}}, k: 15, parallel: true},
		{name: "agent and users", f: memory.VectorFilter{Scope: memory.Scope{UserIDs: []string{"u1", "u2"}, AgentID: "a2"}}, k: 15, parallel: true},
		{name: "k above matches", f: memory.VectorFilter{Scope: memory.Scope{AgentID: "rare"}}, k: 1000, parallel: true},
		{name: "unknown agent", f: memory.VectorFilter{Scope: memory.Scope{AgentID: "ghost"}}, k: 10, parallel: true, empty: true},
		{name: "unknown user", f: memory.VectorFilter{Scope: memory.Scope{UserIDs: []string{"ghost"}}}, k: 10, empty: true},
		{name: "unknown layer", f: memory.VectorFilter{Layers: []memory.Layer{memory.LayerSchema}}, k: 10, empty: true},
		{name: "k zero", f: all, k: 0, parallel: true, empty: true},
		{name: "k negative", f: all, k: -3, parallel: true, empty: true},
	}
	sizes := []struct {
		name     string
		n, dims  int
		parallel bool
	}{
		{name: "sequential", n: 400, dims: 16},
		{name: "parallel", n: 4*parallelMin + 123, dims: 24, parallel: true},
	}
	for _, sz := range sizes {
		r := rand.New(rand.NewSource(int64(sz.n)))
		x := New(sz.dims)
		ref := fill(t, x, r, sz.n, testLayers[:2], testUsers)
		if x.Len() != sz.n {
			t.Fatalf("Len = %d, want %d", x.Len(), sz.n)
		}
		for _, tc := range cases {
			t.Run(sz.name+"/"+tc.name, func(t *testing.T) {
				_, total := x.selectChunks(tc.f)
				if isPar := total >= parallelMin; sz.parallel && isPar != tc.parallel || !sz.parallel && isPar {
					t.Fatalf("filter selects %d rows: wrong path for this case", total)
				}
				for range 5 {
					q := randVec(r, sz.dims)
					got, err := x.Search(context.Background(), q, tc.k, tc.f)
					if err != nil {
						t.Fatal(err)
					}
					want := ref.search(q, tc.k, tc.f)
					if tc.empty && len(want) != 0 {
						t.Fatalf("reference has %d hits for a case that must have none", len(want))
					}
					if tc.name == "k above matches" && (len(want) == 0 || len(want) >= tc.k) {
						t.Fatalf("fixture: %d matches, want 0 < n < k", len(want))
					}
					checkHits(t, ref, q, tc.f, got, want)
				}
			})
		}
	}
}

func TestSearchScoresQueryItself(t *testing.T) {
	x := New(8)
	v := []float32{3, 0, 0, 4, 0, 0, 0, 0}
	if err := x.Upsert(memory.IndexEntry{ID: "a", Layer: memory.LayerRaw, Values: v}); err != nil {
		t.Fatal(err)
	}
	hits, err := x.Search(context.Background(), []float32{6, 0, 0, 8, 0, 0, 0, 0}, 1, memory.VectorFilter{})
	if err != nil || len(hits) != 1 || hits[0].ID != "a" || math.Abs(hits[0].Score-1) > scoreTol {
		t.Fatalf("hits %v, err %v; want a with score 1", hits, err)
	}
}

func TestUpsertReplacesAndMoves(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	x := New(12)
	ref := fill(t, x, r, 3*chunkSize, testLayers[:1], testUsers) // raw only, users u1..u3
	id := "id000042"
	old := ref[id].IndexEntry
	nu := memory.IndexEntry{ID: id, Layer: memory.LayerFact, Owner: memory.Owner{UserID: "mover", AgentID: "a9"}, Values: randVec(r, 12)}
	if err := x.Upsert(nu); err != nil {
		t.Fatal(err)
	}
	ref.put(nu)
	if x.Len() != len(ref) {
		t.Fatalf("Len = %d, want %d", x.Len(), len(ref))
	}
	oldF := memory.VectorFilter{Layers: []memory.Layer{old.Layer}, Scope: memory.Scope{UserIDs: []string{old.Owner.UserID}}}
	hits, _ := x.Search(context.Background(), old.Values, len(ref), oldF)
	for _, h := range hits {
		if h.ID == id {
			t.Fatalf("old partition still returns %s", id)
		}
	}
	checkHits(t, ref, old.Values, oldF, hits, ref.search(old.Values, len(ref), oldF))
	newF := memory.VectorFilter{Layers: []memory.Layer{memory.LayerFact}, Scope: memory.Scope{UserIDs: []string{"mover"}, AgentID: "a9"}}
	hits, _ = x.Search(context.Background(), nu.Values, 5, newF)
	if len(hits) != 1 || hits[0].ID != id || math.Abs(hits[0].Score-1) > scoreTol {
		t.Fatalf("new partition: hits %v, want only %s with score 1", hits, id)
	}
	// Replace in place (same partition): the vector changes, nothing moves.
	nu2 := nu
	nu2.Values = randVec(r, 12)
	if err := x.Upsert(nu2); err != nil {
		t.Fatal(err)
	}
	ref.put(nu2)
	checkVectors(t, x, ref)
	hits, _ = x.Search(context.Background(), nu.Values, 1, newF)
	if want := ref.search(nu.Values, 1, newF); len(hits) != 1 || math.Abs(hits[0].Score-want[0].Score) > scoreTol {
		t.Fatalf("after in-place replace: hits %v, want %v", hits, want)
	}
	// Moving the only row of a partition away deletes the partition.
	nu2.Layer, nu2.Owner.UserID = memory.LayerRaw, "u1"
	if err := x.Upsert(nu2); err != nil {
		t.Fatal(err)
	}
	if _, ok := x.parts[partKey{layer: memory.LayerFact, user: "mover"}]; ok {
		t.Fatal("empty partition left behind")
	}
	ref.put(nu2)
	checkInvariants(t, x, ref)
}

func TestRemoveSwapKeepsVectors(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	x := New(8)
	n := 3*chunkSize + 17
	// One partition, so positions are known: id i sits at position i.
	ref := fill(t, x, r, n, testLayers[:1], []string{"solo"})
	name := func(i int) string { return fmt.Sprintf("id%06d", i) }
	batches := [][]string{
		{name(n - 1)},                                // the very last row
		{name(chunkSize - 1), name(chunkSize)},       // both sides of a chunk boundary
		{name(0), name(2*chunkSize - 1), "nope"},     // first row, last of chunk 1, unknown
		{name(3 * chunkSize), name(3*chunkSize + 1)}, // rows of the last chunk
	}
	for len(ref) > 0 {
		var ids []string
		if len(batches) > 0 {
			ids, batches = batches[0], batches[1:]
		} else {
			for id := range ref { // random subset, sometimes the rest
				if r.Intn(4) == 0 || len(ref) < 40 {
					ids = append(ids, id)
				}
			}
			if len(ids) > 0 {
				ids = append(ids, ids[0]) // a duplicate in one call
			}
		}
		x.Remove(ids...)
		for _, id := range ids {
			delete(ref, id)
			if _, ok := x.Vector(id); ok {
				t.Fatalf("Vector(%s) found after Remove", id)
			}
		}
		checkInvariants(t, x, ref)
		checkVectors(t, x, ref)
		if len(ref) > 0 {
			q := randVec(r, 8)
			f := memory.VectorFilter{Scope: memory.Scope{AgentID: "a1"}}
			got, err := x.Search(context.Background(), q, 25, f)
			if err != nil {
				t.Fatal(err)
			}
			checkHits(t, ref, q, f, got, ref.search(q, 25, f))
		}
	}
	if x.Len() != 0 || len(x.parts) != 0 {
		t.Fatalf("after removing all: Len %d, %d partitions", x.Len(), len(x.parts))
	}
	x.Remove("nope", "")
	if x.Len() != 0 {
		t.Fatal("removing unknown ids changed the index")
	}
	if hits, err := x.Search(context.Background(), randVec(r, 8), 5, memory.VectorFilter{}); err != nil || len(hits) != 0 {
		t.Fatalf("empty index: hits %v err %v", hits, err)
	}
}

func TestRefusals(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	x := New(6)
	ref := fill(t, x, r, 50, testLayers, testUsers)
	good := func(id string) memory.IndexEntry {
		return memory.IndexEntry{ID: id, Layer: memory.LayerRaw, Owner: memory.Owner{UserID: "u9"}, Values: randVec(r, 6)}
	}
	with := func(id string, v []float32) memory.IndexEntry { e := good(id); e.Values = v; return e }
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	bad := map[string]memory.IndexEntry{
		"short":    with("bad", []float32{1, 2, 3}),
		"long":     with("bad", make([]float32, 7)),
		"empty":    with("bad", nil),
		"nan":      with("bad", []float32{1, nan, 0, 0, 0, 0}),
		"inf":      with("bad", []float32{inf, 0, 0, 0, 0, 0}),
		"neg inf":  with("bad", []float32{0, 0, 0, 0, 0, -inf}),
		"zero":     with("bad", make([]float32, 6)),
		"existing": with("id000003", []float32{0, nan, 0, 0, 0, 0}),
	}
	q := randVec(r, 6)
	before, _ := x.Search(context.Background(), q, 100, memory.VectorFilter{})
	for name, b := range bad {
		for _, batch := range [][]memory.IndexEntry{
			{b},
			{good("new1"), with("id000001", randVec(r, 6)), b, good("new2")},
		} {
			if err := x.Upsert(batch...); err == nil {
				t.Fatalf("%s: Upsert accepted a bad vector", name)
			}
			if _, ok := x.Vector("new1"); ok || x.Len() != len(ref) {
				t.Fatalf("%s: refused batch was partly applied (Len %d)", name, x.Len())
			}
			checkVectors(t, x, ref)
			checkInvariants(t, x, ref)
			after, _ := x.Search(context.Background(), q, 100, memory.VectorFilter{})
			if !slices.Equal(before, after) {
				t.Fatalf("%s: search results changed after a refused Upsert", name)
			}
		}
	}
	queries := map[string][]float32{
		"short": {1, 2}, "long": make([]float32, 9), "nil": nil,
		"zero": make([]float32, 6), "nan": {nan, 1, 1, 1, 1, 1}, "inf": {1, 1, inf, 1, 1, 1},
	}
	for name, q := range queries {
		if hits, err := x.Search(context.Background(), q, 5, memory.VectorFilter{}); err == nil {
			t.Fatalf("query %s: no error, hits %v", name, hits)
		}
	}
}

func TestVectorAndUpsertCopy(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	x := New(10)
	ref := fill(t, x, r, 200, testLayers, testUsers)
	q := randVec(r, 10)
	before, _ := x.Search(context.Background(), q, 10, memory.VectorFilter{})
	for _, h := range before {
		v, _ := x.Vector(h.ID)
		for i := range v {
			v[i] = -v[i] * 3
		}
	}
	// The caller's slice passed to Upsert must not be retained either.
	e := memory.IndexEntry{ID: "own", Layer: memory.LayerRaw, Values: randVec(r, 10)}
	if err := x.Upsert(e); err != nil {
		t.Fatal(err)
	}
	ref.put(e)
	for i := range e.Values {
		e.Values[i] = 0
	}
	checkVectors(t, x, ref)
	after, _ := x.Search(context.Background(), q, 10, memory.VectorFilter{})
	checkHits(t, ref, q, memory.VectorFilter{}, after, ref.search(q, 10, memory.VectorFilter{}))
	if _, ok := x.Vector("missing"); ok {
		t.Fatal("Vector of an unknown id was found")
	}
}

func TestConcurrentUse(t *testing.T) {
	atLeastTwoProcs(t)
	const dims, base, writers, perWriter = 16, parallelMin + 500, 4, 300
	r := rand.New(rand.NewSource(9))
	x := New(dims)
	fill(t, x, r, base, testLayers, testUsers) // searches over everything take the parallel path
	present := make([]int, writers)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(100 + w)))
			live := map[string]bool{}
			for i := range perWriter {
				id := fmt.Sprintf("w%d-%d", w, r.Intn(perWriter/2))
				if r.Intn(3) == 0 {
					x.Remove(id)
					delete(live, id)
					continue
				}
				e := memory.IndexEntry{ID: id, Layer: testLayers[i%3], Owner: memory.Owner{UserID: testUsers[w%3], AgentID: fmt.Sprintf("agent%d", i%5)}, Values: randVec(r, dims)}
				if err := x.Upsert(e); err != nil {
					t.Error(err)
					return
				}
				live[id] = true
			}
			present[w] = len(live)
		}(w)
	}
	var readers sync.WaitGroup
	for s := range 3 {
		readers.Add(1)
		go func(s int) {
			defer readers.Done()
			r := rand.New(rand.NewSource(int64(200 + s)))
			filters := []memory.VectorFilter{{}, {Scope: memory.Scope{UserIDs: []string{"u1"}}}, {Scope: memory.Scope{AgentID: "agent3"}}}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				hits, err := x.Search(context.Background(), randVec(r, dims), 10, filters[i%3])
				if err != nil || len(hits) > 10 {
					t.Errorf("search: %d hits, err %v", len(hits), err)
					return
				}
				for j := 1; j < len(hits); j++ {
					if hits[j].Score > hits[j-1].Score {
						t.Errorf("hits not sorted: %v", hits)
						return
					}
				}
				x.Vector("id000001")
				x.Len()
			}
		}(s)
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	want := base
	for _, n := range present {
		want += n
	}
	if x.Len() != want {
		t.Fatalf("Len = %d, want %d", x.Len(), want)
	}
}

func TestSearchCancelled(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	small, large := New(32), New(32)
	fill(t, small, r, 100, testLayers[:1], testUsers)
	fill(t, large, r, 4*parallelMin, testLayers[:1], testUsers)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name  string
		x     *Index
		procs int // GOMAXPROCS; 1 forces the sequential path
	}{
		{"small", small, 2},
		{"large parallel", large, 2},
		{"large one proc", large, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.procs))
			hits, err := tc.x.Search(ctx, randVec(r, 32), 10, memory.VectorFilter{})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if hits != nil {
				t.Fatalf("cancelled search returned %d hits", len(hits))
			}
			// The same index still answers a live context.
			if hits, err := tc.x.Search(context.Background(), randVec(r, 32), 10, memory.VectorFilter{}); err != nil || len(hits) != 10 {
				t.Fatalf("live search: %d hits, err %v", len(hits), err)
			}
		})
	}
}

// A row's sentence vectors find it, count once, and go with it.
func TestSentenceParts(t *testing.T) {
	x := New(4)
	e := func(v ...float32) []float32 { return v }
	row := memory.IndexEntry{ID: "long", Layer: memory.LayerFact, Values: e(1, 0, 0, 0),
		Parts: [][]float32{e(0, 1, 0, 0), e(0, 0, 1, 0)}}
	other := memory.IndexEntry{ID: "other", Layer: memory.LayerFact, Values: e(0, 0.6, 0, 0.8)}
	if err := x.Upsert(row, other); err != nil {
		t.Fatal(err)
	}
	search := func(q []float32, k int) []memory.VectorHit {
		t.Helper()
		hits, err := x.Search(context.Background(), q, k, memory.VectorFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	cases := []struct {
		name string
		q    []float32
		k    int
		want []string
	}{
		{"whole vector", e(1, 0, 0, 0), 1, []string{"long"}},
		{"second sentence", e(0, 0, 1, 0), 1, []string{"long"}},
		{"row counted once", e(0, 1, 1, 0), 2, []string{"long", "other"}},
		{"other row", e(0, 0, 0, 1), 2, []string{"other", "long"}},
	}
	for _, tc := range cases {
		hits := search(tc.q, tc.k)
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Fatalf("%s: hits %v, want %v", tc.name, hits, tc.want)
		}
	}
	if hits := search(e(0, 0, 1, 0), 1); math.Abs(hits[0].Score-1) > scoreTol {
		t.Fatalf("a sentence's own vector scores %v, want 1", hits[0].Score)
	}
	if x.Len() != 2 {
		t.Fatalf("Len = %d, want 2 rows", x.Len())
	}
	if v, _ := x.Vector("long"); !slices.Equal(v, e(1, 0, 0, 0)) {
		t.Fatalf("Vector(long) = %v, want the whole vector", v)
	}
	// Re-indexed with one sentence: the dropped one no longer finds it.
	row.Parts = row.Parts[:1]
	if err := x.Upsert(row); err != nil {
		t.Fatal(err)
	}
	if hits := search(e(0, 0, 1, 0), 1); hits[0].Score > 0.5 {
		t.Fatalf("dropped sentence still matches: %v", hits)
	}
	bad := row
	bad.Parts = [][]float32{e(0, 1, 0)}
	if err := x.Upsert(bad); err == nil {
		t.Fatal("a sentence of the wrong length was accepted")
	}
	if err := x.Upsert(memory.IndexEntry{ID: "a\x00b", Values: e(1, 0, 0, 0)}); err == nil {
		t.Fatal("an id with a NUL byte was accepted")
	}
	x.Remove("long")
	if x.Len() != 1 || len(x.slots) != 1 || len(x.subs) != 0 || x.nSubs != 0 {
		t.Fatalf("after Remove: Len %d, slots %d, subs %v", x.Len(), len(x.slots), x.subs)
	}
	if hits := search(e(0, 1, 0, 0), 5); len(hits) != 1 || hits[0].ID != "other" {
		t.Fatalf("after Remove: hits %v, want only other", hits)
	}
}
