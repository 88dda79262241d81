package models

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// testServer serves the synthetic files of the test catalog; handle, when
// set, answers instead (hit counts requests per path, from 1).
type testServer struct {
	*httptest.Server
	files  map[string][]byte // URL path -> content
	handle func(w http.ResponseWriter, r *http.Request, hit int, data []byte)

	mu     sync.Mutex
	hits   map[string]int
	ranges map[string][]string // Range header of each request ("" if none)
}

const (
	onnxPath  = "/org/tiny/resolve/main/model.onnx"
	vocabPath = "/org/tiny/resolve/main/vocab.txt"
)

func newTestServer(t *testing.T) (*testServer, *Manager, []byte) {
	t.Helper()
	onnx, vocab := testData(1<<20, 1), testData(10_000, 2)
	ts := &testServer{
		files:  map[string][]byte{onnxPath: onnx, vocabPath: vocab},
		hits:   map[string]int{},
		ranges: map[string][]string{},
	}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.hits[r.URL.Path]++
		hit := ts.hits[r.URL.Path]
		ts.ranges[r.URL.Path] = append(ts.ranges[r.URL.Path], r.Header.Get("Range"))
		handle := ts.handle
		ts.mu.Unlock()
		data, ok := ts.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if handle != nil {
			handle(w, r, hit, data)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(ts.Close)
	m := &Manager{
		Dir:     t.TempDir(),
		BaseURL: ts.URL + "/",
		Client:  ts.Client(),
		Catalog: []Model{{Name: "tiny", Title: "Tiny", Dims: 4, Files: []File{
			{Name: "model.onnx", URL: strings.TrimPrefix(onnxPath, "/"), SHA256: sum(onnx), Size: int64(len(onnx))},
			{Name: "vocab.txt", URL: strings.TrimPrefix(vocabPath, "/"), SHA256: sum(vocab), Size: int64(len(vocab))},
		}}},
	}
	return ts, m, onnx
}

func (ts *testServer) setHandler(h func(w http.ResponseWriter, r *http.Request, hit int, data []byte)) {
	ts.mu.Lock()
	ts.handle = h
	ts.mu.Unlock()
}

func (ts *testServer) hitCount(path string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.hits[path]
}

func (ts *testServer) rangeHeaders(path string) []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.ranges[path]...)
}

func testData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// cutHalf answers with the full Content-Length, sends half the bytes and
// closes the connection.
func cutHalf(t *testing.T, w http.ResponseWriter, data []byte) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", len(data))
	buf.Write(data[:len(data)/2])
	buf.Flush()
}

func wantCode(t *testing.T, err error, code memory.Code, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s %q", code, substr)
	}
	if got := memory.ErrorCode(err); got != code {
		t.Errorf("code = %s, want %s (err: %v)", got, code, err)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Errorf("error %q does not mention %q", err, substr)
	}
}

func assertFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: content differs (%d bytes, want %d)", path, len(got), len(want))
	}
}

func assertAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists (err %v), want absent", path, err)
	}
}

func TestInstallListVerifySkip(t *testing.T) {
	ts, m, onnx := newTestServer(t)
	var events []Progress
	if err := m.Install(context.Background(), "tiny", func(p Progress) { events = append(events, p) }); err != nil {
		t.Fatalf("Install: %v", err)
	}
	if last := events[len(events)-1]; last.Phase != PhaseDone || last.File != "vocab.txt" || last.Done != 10_000 {
		t.Errorf("last progress = %+v, want vocab.txt done", last)
	}
	p, ok := m.Path("tiny", "model.onnx")
	if !ok || p != filepath.Join(m.Dir, "tiny", "model.onnx") {
		t.Errorf("Path = %q, %v", p, ok)
	}
	assertFile(t, p, onnx)
	for _, dir := range []string{filepath.Dir(p)} {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want a folder only its owner reads (0700), as the data folder", dir, fi.Mode(), err)
		}
	}
	st, err := m.List()
	if err != nil || len(st) != 1 {
		t.Fatalf("List = %+v, %v", st, err)
	}
	if !st[0].Installed || st[0].Size != int64(len(onnx))+10_000 || st[0].Path != filepath.Join(m.Dir, "tiny") || st[0].Name != "tiny" {
		t.Errorf("List[0] = %+v", st[0])
	}
	if err := m.Verify("tiny"); err != nil {
		t.Errorf("Verify: %v", err)
	}

	events = nil
	if err := m.Install(context.Background(), "tiny", func(p Progress) { events = append(events, p) }); err != nil {
		t.Fatalf("second Install: %v", err)
	}
	if a, b := ts.hitCount(onnxPath), ts.hitCount(vocabPath); a != 1 || b != 1 {
		t.Errorf("server hits = %d, %d; want 1, 1 (second install must skip)", a, b)
	}
	for _, e := range events {
		if e.Phase == PhaseDownload {
			t.Errorf("second install reported a download: %+v", e)
		}
	}
}

func TestInstallFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		handle func(w http.ResponseWriter, r *http.Request, hit int, data []byte)
		want   string
	}{
		{"checksum mismatch", func(w http.ResponseWriter, r *http.Request, _ int, data []byte) {
			bad := bytes.Clone(data)
			bad[len(bad)/3] ^= 0xff
			w.Write(bad)
		}, "checksum mismatch"},
		{"too long", func(w http.ResponseWriter, r *http.Request, _ int, data []byte) {
			w.Write(append(bytes.Clone(data), 'x'))
		}, "size mismatch"},
		{"404", func(w http.ResponseWriter, r *http.Request, _ int, _ []byte) {
			http.NotFound(w, r)
		}, "404 Not Found"},
		{"500", func(w http.ResponseWriter, r *http.Request, _ int, _ []byte) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, "500 Internal Server Error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, m, _ := newTestServer(t)
			ts.setHandler(tc.handle)
			err := m.Install(context.Background(), "tiny", nil)
			wantCode(t, err, memory.EUNAVAILABLE, tc.want)
			if strings.Contains(tc.want, "checksum") && !strings.Contains(err.Error(), m.Catalog[0].Files[0].SHA256) {
				t.Errorf("error %q does not name the expected checksum", err)
			}
			dest := filepath.Join(m.Dir, "tiny", "model.onnx")
			assertAbsent(t, dest)
			assertAbsent(t, dest+partSuffix)
			if _, ok := m.Path("tiny", "model.onnx"); ok {
				t.Error("Path reports a failed file as present")
			}
		})
	}
}

func TestResumeAfterCut(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ignoreRange bool
	}{{"range honored", false}, {"range ignored", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ts, m, onnx := newTestServer(t)
			ts.setHandler(func(w http.ResponseWriter, r *http.Request, hit int, data []byte) {
				switch {
				case r.URL.Path == onnxPath && hit == 1:
					cutHalf(t, w, data)
				case tc.ignoreRange:
					w.Header().Set("Content-Length", fmt.Sprint(len(data)))
					w.Write(data)
				default:
					http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
				}
			})
			dest := filepath.Join(m.Dir, "tiny", "model.onnx")
			err := m.Install(context.Background(), "tiny", nil)
			wantCode(t, err, memory.EUNAVAILABLE, "interrupted")
			assertAbsent(t, dest)
			half := len(onnx) / 2
			assertFile(t, dest+partSuffix, onnx[:half])

			if err := m.Install(context.Background(), "tiny", nil); err != nil {
				t.Fatalf("resumed Install: %v", err)
			}
			want := []string{"", fmt.Sprintf("bytes=%d-", half)}
			if got := ts.rangeHeaders(onnxPath); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Range headers = %q, want %q", got, want)
			}
			assertFile(t, dest, onnx)
			assertAbsent(t, dest+partSuffix)
			if err := m.Verify("tiny"); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

func TestCancelKeepsPart(t *testing.T) {
	ts, m, onnx := newTestServer(t)
	ts.setHandler(func(w http.ResponseWriter, r *http.Request, hit int, data []byte) {
		if r.URL.Path != onnxPath || hit > 1 {
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		select { // stall until the client gives up
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := m.Install(ctx, "tiny", func(p Progress) {
		if p.Phase == PhaseDownload && p.Done > 0 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Install = %v, want context.Canceled", err)
	}
	wantCode(t, err, memory.EUNAVAILABLE, "cancelled")
	dest := filepath.Join(m.Dir, "tiny", "model.onnx")
	assertAbsent(t, dest)
	info, err := os.Stat(dest + partSuffix)
	if err != nil || info.Size() == 0 || info.Size() > int64(len(onnx)/2) {
		t.Fatalf("part after cancel: %v, %v", info, err)
	}
	assertFile(t, dest+partSuffix, onnx[:info.Size()])

	if err := m.Install(context.Background(), "tiny", nil); err != nil {
		t.Fatalf("resumed Install: %v", err)
	}
	if got := ts.rangeHeaders(onnxPath); len(got) != 2 || got[1] != fmt.Sprintf("bytes=%d-", info.Size()) {
		t.Errorf("Range headers = %q", got)
	}
	assertFile(t, dest, onnx)
}

func TestConcurrentInstallConflicts(t *testing.T) {
	ts, m, _ := newTestServer(t)
	started, release := make(chan struct{}), make(chan struct{})
	ts.setHandler(func(w http.ResponseWriter, r *http.Request, hit int, data []byte) {
		if r.URL.Path == onnxPath && hit == 1 {
			close(started)
			<-release
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	})
	first := make(chan error, 1)
	go func() { first <- m.Install(context.Background(), "tiny", nil) }()
	<-started
	wantCode(t, m.Install(context.Background(), "tiny", nil), memory.ECONFLICT, "already being installed")
	_, err := m.Remove("tiny")
	wantCode(t, err, memory.ECONFLICT, "already being installed")
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first Install: %v", err)
	}
	if err := m.Verify("tiny"); err != nil {
		t.Errorf("Verify: %v", err)
	}
}

func TestVerifyAndRepairCorruptFile(t *testing.T) {
	ts, m, onnx := newTestServer(t)
	if err := m.Install(context.Background(), "tiny", nil); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(m.Dir, "tiny", "model.onnx")
	bad := bytes.Clone(onnx)
	bad[7] ^= 1
	if err := os.WriteFile(dest, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode(t, m.Verify("tiny"), memory.EUNAVAILABLE, "checksum mismatch for tiny/model.onnx")
	if err := m.Install(context.Background(), "tiny", nil); err != nil {
		t.Fatalf("repair Install: %v", err)
	}
	if n := ts.hitCount(onnxPath); n != 2 {
		t.Errorf("onnx hits = %d, want 2", n)
	}
	assertFile(t, dest, onnx)
}

func TestRemove(t *testing.T) {
	_, m, _ := newTestServer(t)
	m.Dir = filepath.Join(m.Dir, "models") // a fresh setup: no models folder yet
	if removed, err := m.Remove("tiny"); err != nil || removed {
		t.Errorf("Remove before install: %v, %v; want nothing removed and no error", removed, err)
	}
	assertAbsent(t, m.Dir) // nothing was installed: no folder, no lock file made to say so
	if err := m.Install(context.Background(), "tiny", nil); err != nil {
		t.Fatal(err)
	}
	if removed, err := m.Remove("tiny"); err != nil || !removed {
		t.Fatalf("Remove: %v, %v", removed, err)
	}
	assertAbsent(t, filepath.Join(m.Dir, "tiny"))
	st, err := m.List()
	if err != nil || st[0].Installed || st[0].Size != 0 {
		t.Errorf("List after Remove = %+v, %v", st, err)
	}
	wantCode(t, m.Verify("tiny"), memory.ENOTFOUND, "not installed")
}

func TestUnknownModel(t *testing.T) {
	_, m, _ := newTestServer(t)
	for name, err := range map[string]error{
		"Install": m.Install(context.Background(), "nope", nil),
		"Verify":  m.Verify("nope"),
		"Remove":  second(m.Remove("nope")),
	} {
		t.Run(name, func(t *testing.T) { wantCode(t, err, memory.ENOTFOUND, `"nope" (known: tiny)`) })
	}
	if p, ok := m.Path("nope", "model.onnx"); p != "" || ok {
		t.Errorf("Path(unknown) = %q, %v", p, ok)
	}
	if p, ok := m.Path("tiny", "other.bin"); p != "" || ok {
		t.Errorf("Path(unknown file) = %q, %v", p, ok)
	}
}

func TestUnpinnedChecksumRefused(t *testing.T) {
	ts, m, _ := newTestServer(t)
	m.Catalog[0].Files[1].SHA256 = ""
	wantCode(t, m.Install(context.Background(), "tiny", nil), memory.EUNAVAILABLE, "no pinned checksum for tiny/vocab.txt")
	if n := ts.hitCount(onnxPath) + ts.hitCount(vocabPath); n != 0 {
		t.Errorf("server hits = %d, want 0", n)
	}
	assertAbsent(t, filepath.Join(m.Dir, "tiny"))
}
