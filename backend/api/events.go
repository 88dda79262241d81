package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"hyatlas/backend/memory"
)

// heartbeat keeps idle event streams (and proxies) from timing out.
const heartbeat = 15 * time.Second

// streamWriteTimeout is how long one write to an event stream may wait for
// the client to read: a client that stops reading (a suspended laptop's
// tab, a stuck tool) would otherwise hold its stream, its goroutine and its
// slot for ever, and keep an HTTP server's Shutdown waiting.
const streamWriteTimeout = 30 * time.Second

// maxStreams bounds the open event streams (each holds a connection, a
// goroutine and a 256-event buffer): the windows and pages of one person
// need a handful; a client that opens them in a loop gets a clear 503.
const maxStreams = 100

// eventStream serves live events as server-sent events: one
// "event: <type>" / "data: <json>" pair per event, a comment line every 15
// seconds. ?types=memory.,reembed. keeps only events whose type starts
// with one of the prefixes. At most maxStreams are open at once.
func (s *Server) eventStream(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Subscribe == nil {
		return memory.Errorf(memory.EUNAVAILABLE, "live events are not available")
	}
	if _, ok := w.(http.Flusher); !ok {
		return memory.Errorf(memory.EUNAVAILABLE, "this connection cannot stream")
	}
	if s.streams.Add(1) > maxStreams {
		s.streams.Add(-1)
		return memory.Errorf(memory.EUNAVAILABLE, "%d live event streams are open already; close one first", maxStreams)
	}
	defer s.streams.Add(-1)
	var prefixes []string
	for _, p := range strings.Split(r.URL.Query().Get("types"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			prefixes = append(prefixes, p)
		}
	}
	events, stop := s.cfg.Subscribe(256)
	defer stop()
	// Each write has a deadline, and Stop cuts a write that waits on a
	// client that does not read; a write that fails ends the stream, and
	// its connection is not reused (it may hold a deadline). (The window's
	// in-process writer has no deadline and needs none.)
	rc := http.NewResponseController(w)
	done := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Add(1)
	defer watcher.Wait()
	defer close(done)
	go func() {
		defer watcher.Done()
		select {
		case <-s.stopping:
			_ = rc.SetWriteDeadline(time.Now())
		case <-done:
		}
	}()
	send := func(format string, args ...any) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	h.Set("Connection", "close")
	w.WriteHeader(http.StatusOK)
	if !send(": hyatlas events\n\n") {
		return nil
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	// The credential the stream was opened with is checked again before
	// each event and heartbeat: a new token, or the end of the dashboard
	// session, ends the stream too.
	still := func() bool { return inProcess(r) || s.authorized(r) }
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.stopping:
			return nil
		case <-tick.C:
			if !still() || !send(": keep-alive\n\n") {
				return nil
			}
		case e, open := <-events:
			if !open {
				return nil
			}
			if !wanted(e.Type, prefixes) {
				continue
			}
			if !still() {
				return nil
			}
			data, err := json.Marshal(e)
			if err != nil {
				continue
			}
			if !send("event: %s\ndata: %s\n\n", e.Type, data) {
				return nil
			}
		}
	}
}

func wanted(kind string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(kind, p) {
			return true
		}
	}
	return false
}
