package api

import (
	"context"
	"net/http"

	"hyatlas/backend/memory"
)

// Settings edits the values the window's Settings page shows (the engine
// wires the config package's settings file). New values apply at restart.
type Settings interface {
	Get() (SettingsState, error)
	// Put merges values (key → text; "" removes the saved value).
	Put(values map[string]string) (SettingsState, error)
	// Test asks an endpoint for one short reply with the stored key.
	Test(ctx context.Context, base, model string) (ConnectionTest, error)
	// Restart stops this instance and starts it again.
	Restart() error
}

// SettingsState is the reply of /api/v1/settings.
type SettingsState struct {
	Keys            []string          `json:"keys"`                 // the editable settings, in display order
	Saved           map[string]string `json:"saved"`                // what the window saved
	Next            map[string]string `json:"next"`                 // what applies at the next start
	Running         map[string]string `json:"running"`              // what runs now
	Pinned          []string          `json:"pinned"`               // keys the environment sets (the window cannot change them)
	Ignored         map[string]string `json:"ignored"`              // saved settings a start ignores, with why
	FileError       string            `json:"file_error,omitempty"` // the settings file cannot be read (it is ignored)
	RestartRequired bool              `json:"restart_required"`     // next differs from running
	CanRestart      bool              `json:"can_restart"`          // POST /api/v1/restart works here
	KeyOnlyThisRun  bool              `json:"key_only_this_run"`    // the key was handed over for this run: a restart forgets it
}

// ConnectionTest is the reply of POST /api/v1/settings/test.
type ConnectionTest struct {
	OK         bool   `json:"ok"`
	Reply      string `json:"reply,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Local      bool   `json:"local"` // the endpoint is on this machine (no key needed)
	// Hint says in plain words what a failure most likely means.
	Hint string `json:"hint,omitempty"`
}

func (s *Server) settingsOrUnavailable() (Settings, error) {
	if s.cfg.Settings == nil {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "settings cannot be edited in this build")
	}
	return s.cfg.Settings, nil
}

func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) error {
	st, err := s.settingsOrUnavailable()
	if err != nil {
		return err
	}
	out, err := st.Get()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// putSettings: {"llm_base": "...", "mode": "pro", ...}; only the keys sent change.
func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) error {
	st, err := s.settingsOrUnavailable()
	if err != nil {
		return err
	}
	var values map[string]string
	if err := decodeJSON(r, &values, false, false); err != nil {
		return err
	}
	if len(values) == 0 {
		return memory.Errorf(memory.EBADREQUEST, "no setting given")
	}
	out, err := st.Put(values)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// testConnection: {"llm_base": "...", "llm_model": "..."}.
func (s *Server) testConnection(w http.ResponseWriter, r *http.Request) error {
	st, err := s.settingsOrUnavailable()
	if err != nil {
		return err
	}
	var req struct {
		Base  string `json:"llm_base"`
		Model string `json:"llm_model"`
	}
	if err := decodeJSON(r, &req, false, true); err != nil {
		return err
	}
	out, err := st.Test(r.Context(), req.Base, req.Model)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) restart(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err
	}
	st, err := s.settingsOrUnavailable()
	if err != nil {
		return err
	}
	if err := st.Restart(); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]bool{"restarting": true})
	return nil
}
