package vector

import (
	"context"
	"fmt"
	"testing"

	"github.com/philippgille/chromem-go"
)

// BenchmarkChromemQuery measures chromem-go v0.7.0's in-memory query on the
// same data as BenchmarkSearch, for the README's comparison: its query
// path is what this package replaced.
func BenchmarkChromemQuery(b *testing.B) {
	ctx := context.Background()
	meta := map[string]string{"user_id": "default"}
	for _, sz := range benchSizes {
		ids, vecs, queries := benchData(sz.n, sz.dims)
		db := chromem.NewDB()
		c, err := db.CreateCollection("memories", nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := range ids {
			doc := chromem.Document{ID: ids[i], Metadata: meta, Embedding: vecs[i]}
			if err := c.AddDocument(ctx, doc); err != nil {
				b.Fatal(err)
			}
		}
		vecs = nil
		b.Run(benchName(sz.n, sz.dims), func(b *testing.B) {
			timeQueries(b, queries, func(q []float32) error {
				res, err := c.QueryEmbedding(ctx, q, benchK, nil, nil)
				if err == nil && len(res) != benchK {
					err = fmt.Errorf("%d results, want %d", len(res), benchK)
				}
				return err
			})
		})
	}
}
