package api

import (
	"net/http"

	"hyatlas/backend/memory"
)

// ModelInfo is one downloadable embedding model (GET /api/v1/models).
type ModelInfo struct {
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	License     string         `json:"license"`
	Dims        int            `json:"dims"`
	Size        int64          `json:"size"` // download size in bytes
	Installed   bool           `json:"installed"`
	Active      bool           `json:"active"` // the embedder in use
	Installing  bool           `json:"installing"`
	Progress    *ModelProgress `json:"progress,omitempty"`
	Error       string         `json:"error,omitempty"` // why the last install failed
}

// ModelProgress is where an install stands.
type ModelProgress struct {
	File  string `json:"file"`
	Done  int64  `json:"done"`
	Total int64  `json:"total"`
	Phase string `json:"phase"`
}

// Models manages the downloadable models. Install returns at once; its
// progress arrives as model.progress events and in List.
type Models interface {
	List() ([]ModelInfo, error)
	Install(name string) error
	// Cancel stops an install under way; the part downloaded stays, so
	// the next Install goes on from there. ECONFLICT when none runs.
	Cancel(name string) error
	Remove(name string) (removed bool, err error) // removed: it was installed
	Verify(name string) error
}

func (s *Server) models() (Models, error) {
	if s.cfg.Models == nil {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "model management is not available")
	}
	return s.cfg.Models, nil
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) error {
	m, err := s.models()
	if err != nil {
		return err
	}
	list, err := m.List()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": list})
	return nil
}

func (s *Server) installModel(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err
	}
	m, err := s.models()
	if err != nil {
		return err
	}
	if err := m.Install(r.PathValue("name")); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"installing": true, "name": r.PathValue("name")})
	return nil
}

func (s *Server) cancelModel(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err
	}
	m, err := s.models()
	if err != nil {
		return err
	}
	if err := m.Cancel(r.PathValue("name")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"cancelled": true, "name": r.PathValue("name")})
	return nil
}

func (s *Server) verifyModel(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err // a junk body is refused, not ignored
	}
	m, err := s.models()
	if err != nil {
		return err
	}
	if err := m.Verify(r.PathValue("name")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"verified": true, "name": r.PathValue("name")})
	return nil
}

func (s *Server) removeModel(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err // nothing changes on a junk body
	}
	m, err := s.models()
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	removed, err := m.Remove(name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"removed": removed, "name": name})
	return nil
}
