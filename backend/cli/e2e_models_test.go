package cli_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/proctest"
)

// badMirror serves files that do not match the pinned checksums.
func badMirror(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("not the model you pinned"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestModels_OfflineListAndRefusedDownload(t *testing.T) {
	srv := badMirror(t)
	in := newInstance(t, "HYATLAS_MODELS_BASE="+srv.URL)
	out, code := in.Run("models")
	if code != 0 || !strings.Contains(out, "bge-small") || !strings.Contains(out, "not installed") {
		t.Errorf("models list: %d %s", code, out)
	}
	out, code = in.Run("models", "install", "bge-small")
	if code != 1 || !strings.Contains(out, "bge-small/model.onnx") || strings.Contains(out, "unavailable:") {
		t.Errorf("install from a bad mirror: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(in.Home, "data", "models", "bge-small", "model.onnx")); err == nil {
		t.Error("a file that failed verification is in place")
	}
	if out, code = in.Run("models", "install", "gpt-9"); code != 1 || !strings.Contains(out, "bge-small") {
		t.Errorf("unknown model: %d %s", code, out)
	}
	if out, code = in.Run("models", "frobnicate"); code != 2 {
		t.Errorf("bad verb: %d %s", code, out)
	}
	if out, code = in.Run("models", "remove", "bge-small"); code != 0 || !strings.Contains(out, "was not installed: nothing to remove") {
		t.Errorf("remove a model that is not installed (offline): %d %s", code, out)
	}
}

// TestModels_RemoteInstallReportsFailure: through a running server, the
// CLI follows the install's events and reports its failure.
func TestModels_RemoteInstallReportsFailure(t *testing.T) {
	srv := badMirror(t)
	in := newInstance(t, "HYATLAS_MODELS_BASE="+srv.URL)
	in.Start("serve")
	out, code := in.Run("models", "install", "bge-small")
	if code != 1 || !strings.Contains(out, "installing bge-small failed") {
		t.Errorf("remote install from a bad mirror: %d %s", code, out)
	}
	if out, code = in.Run("models", "list"); code != 0 || !strings.Contains(out, "not installed") {
		t.Errorf("list after a failed install: %d %s", code, out)
	}
	if out, code = in.Run("models", "remove", "bge-small"); code != 0 || !strings.Contains(out, "was not installed: nothing to remove") {
		t.Errorf("remove a model that is not installed (through the server): %d %s", code, out)
	}
}

// TestORTMissing_SaysWhereItLooked: a plain binary without the ONNX
// Runtime library next to it refuses to start and says how to fix it.
func TestORTMissing_SaysWhereItLooked(t *testing.T) {
	in := newInstance(t, "HYATLAS_ORT_LIB=")
	out, code := in.Run("serve")
	if code != 1 || !strings.Contains(out, "ONNX Runtime") || !strings.Contains(out, filepath.Dir(binary)) ||
		!strings.Contains(out, "HYATLAS_ORT_LIB") {
		t.Errorf("serve without the library: %d %s", code, out)
	}
	in = newInstance(t, "HYATLAS_ORT_LIB=/nonexistent/libonnxruntime.so.1")
	if out, code = in.Run("serve"); code != 1 || !strings.Contains(out, "/nonexistent/libonnxruntime.so.1") {
		t.Errorf("serve with a wrong HYATLAS_ORT_LIB: %d %s", code, out)
	}
}

// TestEmbeddedORT: a binary built with -tags embedort carries the library
// and unpacks it into the app's cache dir.
func TestEmbeddedORT(t *testing.T) {
	bin, err := proctest.Build(t.TempDir(), "../..", "embedort")
	if err != nil {
		t.Fatal(err)
	}
	in := proctest.New(t, bin, "HYATLAS_ORT_LIB=")
	in.Start("serve")
	libs, _ := filepath.Glob(filepath.Join(in.Home, "cache", "ort", "*", "libonnxruntime*"))
	if len(libs) != 1 {
		t.Errorf("unpacked libraries: %v", libs)
	}
	if out, code := in.Run("status"); code != 0 || !strings.Contains(out, "GloVe") {
		t.Errorf("status: %d %s", code, out)
	}
}
