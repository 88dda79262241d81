package api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// stuckWriter is the server's end of an event stream whose client does
// not read (a write waits until its deadline is cut), or has hung up (a
// write fails at once).
type stuckWriter struct {
	how     string // "stuck" or "hung up"
	header  http.Header
	entered chan struct{} // a write of an event began
	cut     chan struct{} // the write deadline was set to now or earlier

	mu         sync.Mutex
	deadline   time.Time
	cutOnce    sync.Once
	eventWrite int
	noDeadline int // event writes begun with no deadline
}

func newStuckWriter(how string) *stuckWriter {
	return &stuckWriter{how: how, header: http.Header{}, entered: make(chan struct{}, 16), cut: make(chan struct{})}
}

func (w *stuckWriter) Header() http.Header { return w.header }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Flush()              {}

func (w *stuckWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	if !t.IsZero() && !t.After(time.Now()) {
		w.cutOnce.Do(func() { close(w.cut) })
	}
	return nil
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("event: ")) {
		return len(p), nil // the opening comment went out
	}
	w.mu.Lock()
	w.eventWrite++
	if w.deadline.IsZero() || w.deadline.After(time.Now().Add(time.Minute)) {
		w.noDeadline++
	}
	w.mu.Unlock()
	w.entered <- struct{}{}
	if w.how == "hung up" {
		return 0, syscall.EPIPE
	}
	<-w.cut // a client that reads nothing: only the deadline ends the write
	return 0, os.ErrDeadlineExceeded
}

// TestEventStream_AClientThatDoesNotReadEndsItsStream: a stream whose
// client stops reading, or hangs up mid-event, ends (its slot and
// goroutine with it) instead of holding them for ever; every event write
// has a deadline, and stopping the server cuts one that waits.
func TestEventStream_AClientThatDoesNotReadEndsItsStream(t *testing.T) {
	for _, tc := range []struct {
		name string
		how  string
		stop bool // the server stops while the write waits
	}{
		{"the client hung up mid-event", "hung up", false},
		{"the client stopped reading, the write deadline passes", "stuck", false},
		{"the client stopped reading, the server stops", "stuck", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			feed := make(chan memory.Event, 8)
			a := newAPI(t, rigOpts{auth: true, subscribe: func(int) (<-chan memory.Event, func()) { return feed, func() {} }})
			w := newStuckWriter(tc.how)
			r := httptest.NewRequest("GET", "http://127.0.0.1/api/v1/events", nil)
			r.RemoteAddr = "127.0.0.1:40000"
			r.Header.Set("Authorization", "Bearer "+testToken)
			ended := make(chan struct{})
			go func() {
				defer close(ended)
				a.api.Handler().ServeHTTP(w, r)
			}()
			feed <- memory.Event{Type: "memory.added"}
			feed <- memory.Event{Type: "memory.added"}
			<-w.entered
			switch {
			case tc.stop:
				a.api.Stop()
			case tc.how == "stuck":
				// What a connection does when the deadline passes.
				w.mu.Lock()
				set := !w.deadline.IsZero()
				w.mu.Unlock()
				if set {
					_ = w.SetWriteDeadline(time.Now())
				}
			}
			select {
			case <-ended:
			case <-time.After(10 * time.Second):
				t.Fatal("the stream is still open: a client that does not read holds it for ever")
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.eventWrite != 1 {
				t.Errorf("%d event writes; a failed write must end the stream", w.eventWrite)
			}
			if w.noDeadline != 0 {
				t.Errorf("%d event writes without a deadline", w.noDeadline)
			}
			if got := w.header.Get("Connection"); got != "close" {
				t.Errorf("Connection %q: a stream's connection, which may hold a write deadline, must not be reused", got)
			}
		})
	}
}
