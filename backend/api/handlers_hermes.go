package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"hyatlas/backend/memory"
)

// HermesUserAgent starts the User-Agent of the Hermes plugin's calls; the
// API notes when it last heard from it.
const HermesUserAgent = "hyatlas-hermes/"

// Hermes installs the Hermes plugin into a Hermes home and reports its
// state (the engine wires backend/hermes). profile "" is the active home.
type Hermes interface {
	Status(profile string) (HermesState, error)
	Install(profile string) (HermesState, error)
	Uninstall(profile string) (HermesState, error)
}

// HermesState is the reply of /api/v1/hermes and its verbs.
type HermesState struct {
	HermesHome       string     `json:"hermes_home"`
	HomeExists       bool       `json:"home_exists"`
	Installed        bool       `json:"installed"`
	Active           bool       `json:"active"`
	Provider         string     `json:"provider"`
	PluginVersion    string     `json:"plugin_version"`
	BundledVersion   string     `json:"bundled_version"`
	Outdated         bool       `json:"outdated"`
	PreviousProvider string     `json:"previous_provider"`
	PreviousSet      bool       `json:"previous_set"`
	LastContact      *time.Time `json:"last_contact"` // the plugin's last call, null if it never called
	Message          string     `json:"message,omitempty"`
}

// noteHermes records a call from the Hermes plugin (kept across restarts;
// a failure to keep it is logged and does not fail the call).
func (s *Server) noteHermes(r *http.Request) {
	if strings.HasPrefix(r.Header.Get("User-Agent"), HermesUserAgent) {
		if err := s.mem.NoteContact(r.Context(), "hermes"); err != nil {
			s.log.Warn("Hermes last contact not kept", "err", err)
		}
	}
}

func (s *Server) hermesVerb(verb func(Hermes, string) (HermesState, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if s.cfg.Hermes == nil {
			return memory.Errorf(memory.EUNAVAILABLE, "connecting Hermes is not available in this build")
		}
		var req struct {
			Profile string `json:"profile"`
		}
		if r.Method == http.MethodGet {
			req.Profile = r.URL.Query().Get("profile")
		} else if err := decodeJSON(r, &req, true, true); err != nil {
			return err
		}
		st, err := verb(s.cfg.Hermes, strings.TrimSpace(req.Profile))
		var domain *memory.Error
		switch {
		case errors.As(err, &domain):
			return err // a bad profile name (422), or a profile that does not exist (404)
		case err != nil:
			return memory.Errorf(memory.ECONFLICT, "%v", err) // Hermes's files cannot be edited safely
		}
		at, ok, err := s.mem.LastContact(r.Context(), "hermes")
		if err != nil {
			return err
		}
		if ok {
			st.LastContact = &at
		}
		writeJSON(w, http.StatusOK, st)
		return nil
	}
}

// EndSessionRequest is the body of POST /api/v1/session/end.
type EndSessionRequest struct {
	UserID    string `json:"user_id"`
	AgentID   string `json:"agent_id"`
	SessionID string `json:"session_id"`
}

// endSession closes the owner's open episode: an agent's session ended.
func (s *Server) endSession(w http.ResponseWriter, r *http.Request) error {
	var req EndSessionRequest
	if err := decodeJSON(r, &req, true, true); err != nil {
		return err
	}
	closed, err := s.mem.EndSession(r.Context(), memory.Owner{UserID: req.UserID, AgentID: req.AgentID}, req.SessionID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"closed": closed})
	return nil
}
