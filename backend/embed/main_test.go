package embed

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// testORTLib is the ONNX Runtime library the tests load: HYATLAS_ORT_LIB,
// else the copy build/scripts/assets.sh (run by make) keeps in the cache.
func testORTLib() string {
	if lib := os.Getenv("HYATLAS_ORT_LIB"); lib != "" {
		return lib
	}
	abs, _ := filepath.Abs(filepath.Join("..", "..", "build", "cache", "ort", "lib", libNames()[0]))
	return abs
}

// TestMain starts ONNX Runtime once for the package's tests, with its
// files in a temporary app cache. The telemetry test runs the test binary
// again as a child (ORT starts once per process).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runORTChild())
	}
	cache, err := os.MkdirTemp("", "hyatlas-embed-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := InitORT(ORTOptions{Lib: testORTLib(), CacheDir: cache}); err != nil {
		fmt.Fprintln(os.Stderr, "ONNX Runtime did not start (run `make deps` or set HYATLAS_ORT_LIB):", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(cache)
	os.Exit(code)
}
