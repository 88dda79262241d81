package api_test

import (
	"errors"
	"io"
	"testing"

	"hyatlas/backend/api"
)

// shortWriter writes at most max bytes a call and, breaking io.Writer's
// contract, says nothing of the rest unless err is set.
type shortWriter struct {
	max int
	err error
}

func (w shortWriter) Write(p []byte) (int, error) { return min(len(p), w.max), w.err }

// FailWriter keeps the first failure of its own writer (a full disk, a
// closed pipe), a short write without an error among them, so an export
// that did not reach its file is never reported written.
func TestFailWriterKeepsItsWritersFirstFailure(t *testing.T) {
	full := errors.New("no space left on device")
	for _, tc := range []struct {
		name string
		w    io.Writer
		want error
	}{
		{"every byte written", shortWriter{max: 100}, nil},
		{"a failed write", shortWriter{max: 0, err: full}, full},
		{"a short write that says nothing", shortWriter{max: 2}, io.ErrShortWrite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &api.FailWriter{W: tc.w}
			_, err := f.Write([]byte("hello"))
			_, _ = f.Write([]byte("again"))
			if !errors.Is(err, tc.want) || !errors.Is(f.Err, tc.want) {
				t.Errorf("write error %v, kept %v; want %v", err, f.Err, tc.want)
			}
		})
	}
}
