package bench

import (
	"context"
	"errors"
	"testing"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
)

// failingEmbedder fails every call, as an embedder does once the bench
// is stopped.
type failingEmbedder struct{ memory.Embedder }

func (failingEmbedder) Embed(context.Context, []string, memory.EmbedPurpose) ([][]float32, error) {
	return nil, errors.New("the model broke")
}

// The throughput step ends with the error when its callers fail (a
// stopped bench, a broken model) instead of waiting for callers that are
// gone; with a working embedder it reports texts per second.
func TestThroughputEndsWhenItsCallersFail(t *testing.T) {
	h, err := embed.NewHash(embed.DefaultHashDims)
	if err != nil {
		t.Fatal(err)
	}
	stopped, stop := context.WithCancel(context.Background())
	stop()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		e    memory.Embedder
		ok   bool
	}{
		{"working", context.Background(), h, true},
		{"stopped", stopped, h, false},
		{"broken", context.Background(), failingEmbedder{h}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := throughput(tc.ctx, tc.e)
			if (err == nil) != tc.ok || (tc.ok && got <= 0) {
				t.Errorf("throughput = %v, %v; want an answer: %v", got, err, tc.ok)
			}
		})
	}
}
