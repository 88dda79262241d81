package api

import (
	"net/http"
	"time"

	"hyatlas/backend/memory"
)

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readyCache is how long a passed readiness check stands: /readyz needs
// no token, and each check is a write transaction and a pause for writes,
// so a flood of probes must not slow the agents' writes.
const readyCache = time.Second

// readyz is readiness: the store, the index and the embedder each answer a
// real round trip, and the index agrees with the store. A pass stands for
// readyCache; a failure is never cached.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	now := time.Now().UnixNano()
	if last := s.readyAt.Load(); last == 0 || now-last >= int64(readyCache) {
		if err := s.mem.Ready(r.Context()); err != nil {
			s.readyAt.Store(0)
			return err
		}
		s.readyAt.Store(now)
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}

// StatusJSON is GET /api/v1/status: the compat keys, then ours.
type StatusJSON struct {
	Status           string               `json:"status"`
	Version          string               `json:"version"`
	VDB              string               `json:"vdb"`
	Embed            string               `json:"embed"`
	LLM              memory.LLMState      `json:"llm"`
	LLMModel         string               `json:"llm_model"`
	LLMBase          string               `json:"llm_base"`
	Mode             memory.Mode          `json:"mode"`
	ModeDetail       string               `json:"mode_detail"`
	UsesLLM          bool                 `json:"uses_llm"`
	ExtractSync      string               `json:"extract_sync"`
	WritePipeline    string               `json:"write_pipeline"`
	Writes           int64                `json:"writes"`
	Searches         int64                `json:"searches"`
	Layers           map[memory.Layer]int `json:"layers"`
	GraphNodes       int                  `json:"graph_nodes"`
	GraphEdges       int                  `json:"graph_edges"`
	Unextracted      int                  `json:"unextracted"`
	Consolidations   int                  `json:"consolidations"`
	LastConsolidated any                  `json:"last_consolidated,omitempty"`

	Total   int `json:"total"`
	Retired int `json:"retired"`
	// Changes moves whenever anything stored changed (a count of committed
	// writes since start): live views read again when it does.
	Changes   uint64 `json:"changes"`
	VDBPoints int    `json:"vdb_points"`
	// The public contract's names of the vector store and its size: the
	// in-process index (one collection), and the embedder's dimensions.
	VDBProvider   string                 `json:"vdb_provider"`
	VDBCollection string                 `json:"vdb_collection"`
	EmbedDims     int                    `json:"embed_dims"`
	Embedder      memory.EmbedderInfo    `json:"embedder"`
	MinScore      float64                `json:"min_score"`
	Reembed       memory.ReembedProgress `json:"reembed"`
	DataDir       string                 `json:"data_dir"`
	Uptime        int64                  `json:"uptime"`
	Auth          bool                   `json:"auth"`
	IndexFaults   int64                  `json:"index_faults"`
	// Storage is "ok", or why nothing can be stored now (a full disk, a
	// data folder that may not be written).
	Storage string `json:"storage"`
	// Address is where agents reach the API (http://host:port), or "".
	Address string `json:"address"`
	// Consolidating is the consolidation pass running now: done of total
	// topics (total 0 while it is still finding them).
	Consolidating memory.ConsolidationProgress `json:"consolidating"`
}

func (s *Server) status(w http.ResponseWriter, r *http.Request) error {
	st, err := s.mem.Stats(r.Context())
	if err != nil {
		return err
	}
	cfg := s.mem.Config()
	info := s.mem.EmbedderInfo()
	out := StatusJSON{
		Status: "ok", Version: s.cfg.Version, VDB: "ok", Embed: "ok",
		LLM: s.mem.LLMState(), LLMModel: s.cfg.LLMModel, LLMBase: s.cfg.LLMBase,
		Mode: cfg.Mode, ModeDetail: cfg.Mode.Detail(), UsesLLM: cfg.Mode.UsesLLM(),
		ExtractSync: onOff(s.cfg.ExtractSync), WritePipeline: s.mem.WritePipeline(r.Context()), Storage: "ok",
		Writes: st.Writes, Searches: st.Searches, Layers: layerCounts(st.Live),
		Unextracted: st.Unextracted, Consolidations: -1, GraphNodes: st.GraphNodes, GraphEdges: st.GraphEdges,
		Retired: st.Retired, Changes: st.Changes, VDBPoints: st.IndexLen, VDBProvider: "hyatlas-local",
		VDBCollection: "memories", EmbedDims: info.Dims, Embedder: info, MinScore: s.mem.MinScore(), Reembed: st.Reembed,
		DataDir: s.cfg.DataDir, Uptime: int64(time.Since(s.cfg.Started).Seconds()),
		Auth: s.cfg.Auth, IndexFaults: st.IndexFaults, Consolidating: st.Consolidating,
	}
	for _, n := range st.Live {
		out.Total += n
	}
	if err := s.mem.StorageFault(r.Context()); err != nil {
		out.Storage = memory.ErrorMessage(err)
	}
	if s.cfg.Address != nil {
		out.Address = s.cfg.Address()
	}
	if cs := s.mem.ConsolidationStatus(); cs.Passes >= 0 {
		out.Consolidations = cs.Passes
		if cs.Last != nil {
			out.LastConsolidated = cs.Last
		}
	}
	if st.IndexFaults > 0 {
		out.VDB = "degraded: index updates failed; restart to rebuild the index"
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (s *Server) metrics(w http.ResponseWriter, r *http.Request) error {
	st, err := s.mem.Stats(r.Context())
	if err != nil {
		return err
	}
	total := 0
	for _, n := range st.Live {
		total += n
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"layers": layerCounts(st.Live), "total": total, "graph_nodes": st.GraphNodes, "graph_edges": st.GraphEdges,
	})
	return nil
}

// flushNow finishes in-flight work and writes state (clients call it
// before stopping the process).
func (s *Server) flushNow(w http.ResponseWriter, r *http.Request) error {
	if err := ignoredBody(r); err != nil {
		return err
	}
	if err := s.flush(r.Context()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"flushed": true})
	return nil
}

// dashboardLink issues a fresh one-time sign-in link for the browser.
func (s *Server) dashboardLink(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"url": s.DashboardURL("http://" + r.Host)})
	return nil
}

// timeline: days (30; 1-366) → the memories written per day and layer and
// the LLM calls per day and purpose, oldest first, every day present.
func (s *Server) timeline(w http.ResponseWriter, r *http.Request) error {
	days, err := queryInt(r.URL.Query().Get("days"), "days")
	if err != nil {
		return err
	}
	out, err := s.mem.Timeline(r.Context(), days)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"days": out})
	return nil
}
