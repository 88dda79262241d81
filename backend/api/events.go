package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"hyatlas/backend/memory"
)

// heartbeat keeps idle event streams (and proxies) from timing out.
const heartbeat = 15 * time.Second

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
	flusher, ok := w.(http.Flusher)
	if !ok {
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
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": hyatlas events\n\n")
	flusher.Flush()
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
			if !still() {
				return nil
			}
			fmt.Fprint(w, ": keep-alive\n\n")
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
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Type, data)
		}
		flusher.Flush()
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
