package models

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// A proxy or a sign-in page answering in the file's place (200 with a short
// page, its length said or not) is not kept as the start of the file: the
// next install downloads the file from its first byte and succeeds.
func TestAWrongShortAnswerIsNotResumedFrom(t *testing.T) {
	const page = "<html><body>Sign in to the network</body></html>"
	for _, tc := range []struct {
		name   string
		length bool
	}{{"its length said", true}, {"chunked", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ts, m, onnx := newTestServer(t)
			ts.setHandler(func(w http.ResponseWriter, r *http.Request, hit int, data []byte) {
				if r.URL.Path == onnxPath && hit == 1 {
					w.Header().Set("Content-Type", "text/html")
					if tc.length {
						w.Header().Set("Content-Length", fmt.Sprint(len(page)))
					}
					w.Write([]byte(page))
					return
				}
				http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
			})
			dest := filepath.Join(m.Dir, "tiny", "model.onnx")
			err := m.Install(context.Background(), "tiny", nil)
			wantCode(t, err, memory.EUNAVAILABLE, "not the file")
			assertAbsent(t, dest+partSuffix)
			if err := m.Install(context.Background(), "tiny", nil); err != nil {
				t.Fatalf("the install after it: %v", err)
			}
			if got := ts.rangeHeaders(onnxPath); fmt.Sprint(got) != fmt.Sprint([]string{"", ""}) {
				t.Errorf("Range headers = %q, want none: nothing of the page is resumed from", got)
			}
			assertFile(t, dest, onnx)
		})
	}
}

// A part whose bytes are not the file's (written by an older version from
// such a page, or damaged on disk) fails the checksum once resumed; the
// install then downloads the file once from zero instead of failing.
func TestAResumeThatFailsItsChecksumStartsOverOnce(t *testing.T) {
	ts, m, onnx := newTestServer(t)
	dest := filepath.Join(m.Dir, "tiny", "model.onnx")
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		size int
		want []string // the Range headers of the requests
	}{
		{"a third of it", len(onnx) / 3, []string{fmt.Sprintf("bytes=%d-", len(onnx)/3), ""}},
		{"all of its length", len(onnx), []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts.mu.Lock()
			ts.ranges = map[string][]string{}
			ts.mu.Unlock()
			os.Remove(dest)
			if err := os.WriteFile(dest+partSuffix, bytes.Repeat([]byte("x"), tc.size), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := m.Install(context.Background(), "tiny", nil); err != nil {
				t.Fatalf("Install over a bad part: %v", err)
			}
			if got := ts.rangeHeaders(onnxPath); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("Range headers = %q, want %q", got, tc.want)
			}
			assertFile(t, dest, onnx)
			assertAbsent(t, dest+partSuffix)
		})
	}
}
