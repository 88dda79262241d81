//go:build embedort

package embed

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// embeddedORT is the platform's ONNX Runtime library, copied into
// assets/ort by build/scripts/assets.sh before an embedort build.
//
//go:embed assets/ort/onnxruntime.lib
var embeddedORT []byte

// extractEmbeddedORT writes the carried library to
// <cache>/ort/<sha256 prefix>/<name> (once; an existing copy that verifies
// is reused) and returns its path.
func extractEmbeddedORT(cacheDir string) (string, bool, error) {
	if len(embeddedORT) == 0 || cacheDir == "" {
		return "", false, nil
	}
	sum := sha256.Sum256(embeddedORT)
	dir := filepath.Join(cacheDir, "ort", hex.EncodeToString(sum[:8]))
	path := filepath.Join(dir, libNames()[0])
	if b, err := os.ReadFile(path); err == nil && sha256.Sum256(b) == sum {
		return path, true, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("unpack ONNX Runtime: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, embeddedORT, 0o700); err != nil {
		return "", false, fmt.Errorf("unpack ONNX Runtime: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", false, fmt.Errorf("unpack ONNX Runtime: %w", err)
	}
	return path, true, nil
}
