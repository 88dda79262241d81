//go:build !amd64

package vector

// dot is the inner product of two equal-length vectors.
func dot(a, b []float32) float64 { return dotPortable(a, b) }
