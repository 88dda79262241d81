package api

import (
	"context"
	"net/http"

	"hyatlas/backend/memory"
)

// Snapshots is what the API needs of the snapshot keeper (the engine
// implements it; the values it returns are written as JSON as they are).
type Snapshots interface {
	List() (any, error)
	Create(ctx context.Context) (any, error)
	Verify(ctx context.Context, id string) (any, error)
	Restore(ctx context.Context, id string) (any, error)
	Delete(id string) error
}

func (s *Server) snapshotsReady() error {
	if s.cfg.Snapshots == nil {
		return memory.Errorf(memory.EUNAVAILABLE, "snapshots are not available")
	}
	return nil
}

func (s *Server) listSnapshots(w http.ResponseWriter, r *http.Request) error {
	if err := s.snapshotsReady(); err != nil {
		return err
	}
	list, err := s.cfg.Snapshots.List()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"snapshots": list})
	return nil
}

// createSnapshot makes a manual snapshot now (the body is ignored).
func (s *Server) createSnapshot(w http.ResponseWriter, r *http.Request) error {
	if err := s.snapshotsReady(); err != nil {
		return err
	}
	if err := noBody(r); err != nil {
		return err // the body is empty or {}: a junk body is refused, not ignored
	}
	info, err := s.cfg.Snapshots.Create(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, info)
	return nil
}

func (s *Server) verifySnapshot(w http.ResponseWriter, r *http.Request) error {
	if err := s.snapshotsReady(); err != nil {
		return err
	}
	if err := noBody(r); err != nil {
		return err // nothing changes on a junk body
	}
	info, err := s.cfg.Snapshots.Verify(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "snapshot": info})
	return nil
}

// restoreSnapshot restores a snapshot (verified first); the reply names
// the before-restore snapshot that undoes it.
func (s *Server) restoreSnapshot(w http.ResponseWriter, r *http.Request) error {
	if err := s.snapshotsReady(); err != nil {
		return err
	}
	if err := noBody(r); err != nil {
		return err // nothing changes on a junk body
	}
	rep, err := s.cfg.Snapshots.Restore(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

func (s *Server) deleteSnapshot(w http.ResponseWriter, r *http.Request) error {
	if err := s.snapshotsReady(); err != nil {
		return err
	}
	if err := noBody(r); err != nil {
		return err // nothing changes on a junk body
	}
	if err := s.cfg.Snapshots.Delete(r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"deleted": true, "id": r.PathValue("id")})
	return nil
}
