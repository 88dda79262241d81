package api

import (
	"net/http"

	"hyatlas/backend/memory"
)

// DigestResponse is the reply of /api/v1/digest (compat: digest_ok,
// report, graph_nodes, graph_edges; reason when no pass can run; runs and
// last for GET).
type DigestResponse struct {
	DigestOK   bool                        `json:"digest_ok"`
	Mode       memory.Mode                 `json:"mode,omitempty"`
	Reason     string                      `json:"reason,omitempty"`
	Report     *memory.ConsolidationReport `json:"report,omitempty"`
	Runs       *int                        `json:"runs,omitempty"`
	Last       *memory.ConsolidationReport `json:"last,omitempty"`
	GraphNodes int                         `json:"graph_nodes"`
	GraphEdges int                         `json:"graph_edges"`
}

// digest: POST runs a consolidation pass now, detached from the request
// (a client that hangs up does not stop it), and answers with its report;
// when a pass is already running it waits for that one. The body is
// ignored: a pass covers every owner. GET reports the passes since start
// and the last one. Without a slow path (lite, pro, no endpoint) both
// answer digest_ok false with the reason.
func (s *Server) digest(w http.ResponseWriter, r *http.Request) error {
	out := DigestResponse{Mode: s.mem.Config().Mode}
	if s.cfg.Digest == nil || !s.mem.HasSlowPath() {
		out.Reason = "consolidation runs only in ultra mode with an extraction endpoint configured"
		writeJSON(w, http.StatusOK, out)
		return nil
	}
	if r.Method == http.MethodPost {
		rep, err := s.cfg.Digest(r.Context())
		if err != nil {
			return err
		}
		out.Report = &rep
	} else {
		st := s.mem.ConsolidationStatus()
		out.Runs, out.Last = &st.Passes, st.Last
	}
	nodes, edges, err := s.mem.GraphCounts(r.Context())
	if err != nil {
		return err
	}
	out.DigestOK, out.GraphNodes, out.GraphEdges = true, nodes, edges
	writeJSON(w, http.StatusOK, out)
	return nil
}
