package api

import (
	"net/http"
	"time"

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
	LastAt     *time.Time                  `json:"last_at,omitempty"` // when the last pass began (GET)
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
	if r.Method == http.MethodPost {
		if err := ignoredBody(r); err != nil {
			return err
		}
	}
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
		if st.Last != nil {
			at := st.Last.StartedAt
			out.LastAt = &at
		}
	}
	nodes, edges, err := s.mem.GraphCounts(r.Context())
	if err != nil {
		return err
	}
	out.DigestOK, out.GraphNodes, out.GraphEdges = true, nodes, edges
	writeJSON(w, http.StatusOK, out)
	return nil
}

// adminNotOffered answers the public contract's maintenance routes
// (POST /api/v1/admin/compact_raw, /api/v1/admin/dedupe_facts) as that
// contract gates them, 403 without HYATLAS_ADMIN=on, and then says what
// does their work here (501): a script learns "not here" rather than
// "wrong server".
func (s *Server) adminNotOffered(w http.ResponseWriter, r *http.Request) error {
	if !s.mem.Config().Admin {
		return memory.Errorf(memory.EFORBIDDEN, "maintenance endpoints need HYATLAS_ADMIN=on")
	}
	return memory.Errorf(codeNotOffered, "not offered by HyAtlas Desktop: consolidation merges duplicate facts, and raw turns are pruned by HYATLAS_RAW_RETENTION (see the README)")
}
