package vector

import (
	"math"
	"math/rand"
	"testing"
)

// TestDotMatchesReference checks the fast path (AVX2 where the CPU has
// it) against a float64 reference for every length from 0 to 200, so each
// unrolled loop and tail is exercised, and for unaligned sub-slices.
func TestDotMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	buf := make([]float32, 1000)
	for i := range buf {
		buf[i] = r.Float32()*2 - 1
	}
	for n := 0; n <= 200; n++ {
		for _, off := range []int{0, 1, 3} {
			a, b := buf[off:off+n], buf[500+off:500+off+n]
			var want float64
			for i := range a {
				want += float64(a[i]) * float64(b[i])
			}
			for name, got := range map[string]float64{"dot": dot(a, b), "portable": dotPortable(a, b)} {
				if math.Abs(got-want) > 1e-4 {
					t.Fatalf("%s n=%d off=%d: %v, want %v", name, n, off, got, want)
				}
			}
		}
	}
	t.Logf("AVX2 in use: %v", useAVX2)
}
