package api

import (
	"errors"
	"io"
	"net/http"
	"time"

	"hyatlas/backend/memory"
)

// export: format (jsonl, the default, or markdown), vectors (false),
// user_id, agent_id. The reply streams; a JSON Lines export ends with an
// end record, so a cut-short download is refused by import.
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	vectors, err := queryBool(q.Get("vectors"), "vectors")
	if err != nil {
		return err
	}
	sent := &countingWriter{w: w}
	in := memory.ExportInput{UserID: q.Get("user_id"), AgentID: q.Get("agent_id"), Vectors: vectors != nil && bool(*vectors)}
	day := time.Now().UTC().Format("20060102")
	switch q.Get("format") {
	case "", "jsonl":
		w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="hyatlas-export-`+day+`.jsonl"`)
		_, err = s.mem.Export(r.Context(), sent, in)
	case "markdown", "md":
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="hyatlas-memory-`+day+`.md"`)
		_, err = s.mem.ExportMarkdown(r.Context(), sent, in)
	default:
		return memory.Errorf(memory.EINVALID, "format must be jsonl or markdown, not %q", q.Get("format"))
	}
	switch {
	case err == nil:
	case sent.n == 0: // nothing went out yet: an ordinary error reply, not a file to save
		w.Header().Del("Content-Disposition")
		return err
	case inProcess(r):
		// The window's own request: no connection to break; the missing
		// end record tells import (and the client) it was cut short.
		s.log.Error("export failed part way", "err", err)
	default:
		// The status line is gone: break the connection, so the client
		// sees a failed transfer, never an export that ends cleanly.
		s.log.Error("export failed part way", "err", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// importMemories reads an export (JSON Lines) as the body and merges it in;
// an invalid line refuses the whole import (422, by line number).
func (s *Server) importMemories(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.mem.Import(r.Context(), r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return tooLarge(r, tooBig.Limit)
	}
	if err != nil {
		return err
	}
	if rep.FilesSkipped == nil {
		rep.FilesSkipped = []string{}
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}
