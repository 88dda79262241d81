package vector

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// benchSizes are the index sizes both benchmarks measure.
var benchSizes = []struct{ n, dims int }{
	{10_000, 100}, {10_000, 384}, {100_000, 100}, {100_000, 384},
}

const (
	benchK       = 15
	benchQueries = 64
)

func benchName(n, dims int) string { return fmt.Sprintf("%dk_x_%dd", n/1000, dims) }

// benchData returns n random unit vectors and some unit queries, the same
// for a given size on every run.
func benchData(n, dims int) (ids []string, vecs, queries [][]float32) {
	r := rand.New(rand.NewSource(int64(n*1000 + dims)))
	mk := func() []float32 {
		v := make([]float32, dims)
		var s float64
		for i := range v {
			v[i] = float32(r.NormFloat64())
			s += float64(v[i]) * float64(v[i])
		}
		inv := 1 / math.Sqrt(s)
		for i := range v {
			v[i] = float32(float64(v[i]) * inv)
		}
		return v
	}
	ids, vecs = make([]string, n), make([][]float32, n)
	for i := range n {
		ids[i], vecs[i] = fmt.Sprintf("m%07d", i), mk()
	}
	queries = make([][]float32, benchQueries)
	for i := range queries {
		queries[i] = mk()
	}
	return ids, vecs, queries
}

// timeQueries runs query b.N times and reports the median as p50-ms
// besides the usual ns/op (the mean).
func timeQueries(b *testing.B, queries [][]float32, query func(q []float32) error) {
	b.Helper()
	times := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if err := query(queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/1e6, "p50-ms")
}

// BenchmarkSearch measures Index.Search as in lite mode: every row is an
// L2 raw memory of the one default user, so one partition is scanned.
func BenchmarkSearch(b *testing.B) {
	for _, sz := range benchSizes {
		ids, vecs, queries := benchData(sz.n, sz.dims)
		x := New(sz.dims)
		owner := memory.Owner{UserID: "default"}
		entries := make([]memory.IndexEntry, len(ids))
		for i := range ids {
			entries[i] = memory.IndexEntry{ID: ids[i], Layer: memory.LayerRaw, Owner: owner, Values: vecs[i]}
		}
		if err := x.Upsert(entries...); err != nil {
			b.Fatal(err)
		}
		entries, vecs = nil, nil
		f := memory.VectorFilter{Layers: []memory.Layer{memory.LayerRaw}, Scope: memory.Scope{UserIDs: []string{"default"}}}
		ctx := context.Background()
		b.Run(benchName(sz.n, sz.dims), func(b *testing.B) {
			timeQueries(b, queries, func(q []float32) error {
				hits, err := x.Search(ctx, q, benchK, f)
				if err == nil && len(hits) != benchK {
					err = fmt.Errorf("%d hits, want %d", len(hits), benchK)
				}
				return err
			})
		})
	}
}
