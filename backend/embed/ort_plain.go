//go:build !embedort

package embed

// extractEmbeddedORT: a plain build carries no library.
func extractEmbeddedORT(string) (string, bool, error) { return "", false, nil }
