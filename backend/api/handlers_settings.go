package api

import (
	"fmt"
	"net/http"

	"hyatlas/backend/memory"
)

// Autostart turns launching at login on and off (the engine wires the
// OS's own autostart entry).
type Autostart interface {
	Supported() bool
	Enabled() (bool, error)
	Set(on bool) error
}

// AutostartJSON is the reply of /api/v1/settings/autostart.
type AutostartJSON struct {
	Supported bool `json:"supported"`
	Enabled   bool `json:"enabled"`
}

func (s *Server) autostartState(w http.ResponseWriter) error {
	on, err := s.cfg.Autostart.Enabled()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, AutostartJSON{Supported: s.cfg.Autostart.Supported(), Enabled: on})
	return nil
}

func (s *Server) getAutostart(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Autostart == nil {
		return memory.Errorf(memory.EUNAVAILABLE, "launch at login is not available")
	}
	return s.autostartState(w)
}

// putAutostart: {"enabled": true|false}.
func (s *Server) putAutostart(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Autostart == nil {
		return memory.Errorf(memory.EUNAVAILABLE, "launch at login is not available")
	}
	var req struct {
		Enabled *bool `json:"enabled"`
	}
	if err := decodeJSON(r, &req, false, true); err != nil {
		return err
	}
	if req.Enabled == nil {
		return memory.Errorf(memory.EBADREQUEST, "enabled required (true or false)")
	}
	if err := s.cfg.Autostart.Set(*req.Enabled); err != nil {
		return err
	}
	return s.autostartState(w)
}

// token answers the API token to a caller that is already signed in (the
// window, a dashboard session or a bearer of the token): Settings copies
// it for an agent's configuration. It is never logged.
func (s *Server) token(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]string{"token": s.currentToken()})
	return nil
}

// newToken replaces the API token (POST /api/v1/token): the old one stops
// working at once, clients that read the token file (the Hermes plugin,
// the command line) go on with the new one, and every dashboard session
// but the caller's ends. The new token is answered for "Copy token".
func (s *Server) newToken(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err
	}
	tok, err := s.tokens.replace()
	if err != nil {
		return fmt.Errorf("make a new token (the old one stays): %w", err)
	}
	keep := r.Header.Get(SessionHeader)
	s.signIn.endSessions(keep, tok)
	s.log.Info("a new API token was made; dashboard sessions but the caller's ended")
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]string{"token": tok})
	return nil
}
