package api

import (
	"context"
	"net"
	"net/http"
	"strings"

	"hyatlas/backend/memory"
)

// Keys manages the extraction key; the engine adapts the key source. No
// method ever returns the key.
type Keys interface {
	// Hand makes key the key for this run, in memory only.
	Hand(key string) error
	// Save stores key in the OS keyring; EUNAVAILABLE says why it cannot.
	Save(key string) error
	// Delete forgets a handed key and removes the keyring's.
	Delete() error
	Status(ctx context.Context) (KeyStatus, error)
}

// KeyStatus says whether a key is set and where it comes from, never what
// it is.
type KeyStatus struct {
	IsSet            bool   `json:"is_set"`
	Origin           string `json:"origin"` // handed, keyring, file, env or ""
	KeyringAvailable bool   `json:"keyring_available"`
}

// KeyRequest is the body of the key endpoints.
type KeyRequest struct {
	Key string `json:"key"`
	// MemoryOnly keeps the key for this run only, when no keyring is
	// available (PUT /api/v1/settings/llm-key).
	MemoryOnly bool `json:"memory_only"`
}

func (s *Server) keys() (Keys, error) {
	if s.cfg.Keys == nil {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "key management is not available")
	}
	return s.cfg.Keys, nil
}

func readKey(r *http.Request) (KeyRequest, error) {
	var req KeyRequest
	if err := decodeJSON(r, &req, false, true); err != nil {
		return KeyRequest{}, err
	}
	if strings.TrimSpace(req.Key) == "" {
		return KeyRequest{}, memory.Errorf(memory.EBADREQUEST, "key required")
	}
	return req, nil
}

// handKey takes a key for this run only (POST /api/v1/llm/key). Only a
// client on this machine may hand one over.
func (s *Server) handKey(w http.ResponseWriter, r *http.Request) error {
	if !fromThisMachine(r) {
		return memory.Errorf(memory.EFORBIDDEN, "a key can only be handed over from this machine")
	}
	k, err := s.keys()
	if err != nil {
		return err
	}
	req, err := readKey(r)
	if err != nil {
		return err
	}
	if err := k.Hand(req.Key); err != nil {
		return err
	}
	return s.keyStatus(w, r)
}

// saveKey stores the key in the OS keyring (or, with memory_only, for this
// run only).
func (s *Server) saveKey(w http.ResponseWriter, r *http.Request) error {
	k, err := s.keys()
	if err != nil {
		return err
	}
	req, err := readKey(r)
	if err != nil {
		return err
	}
	if req.MemoryOnly {
		if !fromThisMachine(r) {
			return memory.Errorf(memory.EFORBIDDEN, "a key can only be handed over from this machine")
		}
		err = k.Hand(req.Key)
	} else {
		err = k.Save(req.Key)
	}
	if err != nil {
		return err
	}
	return s.keyStatus(w, r)
}

func (s *Server) deleteKey(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err // nothing changes on a junk body
	}
	k, err := s.keys()
	if err != nil {
		return err
	}
	if err := k.Delete(); err != nil {
		return err
	}
	return s.keyStatus(w, r)
}

func (s *Server) keyStatus(w http.ResponseWriter, r *http.Request) error {
	k, err := s.keys()
	if err != nil {
		return err
	}
	st, err := k.Status(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// fromThisMachine reports whether a request came from a loopback address
// or from inside the desktop window.
func fromThisMachine(r *http.Request) bool {
	if inProcess(r) {
		return true
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// egress lists the ledger of LLM calls, newest first.
func (s *Server) egress(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryInt(r.URL.Query().Get("limit"), "limit")
	if err != nil {
		return err
	}
	calls, err := s.mem.Egress(r.Context(), limit)
	if err != nil {
		return err
	}
	if calls == nil {
		calls = []memory.EgressCall{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"calls": calls})
	return nil
}

// ReprocessRequest is the optional body of POST /api/v1/reprocess (compat).
type ReprocessRequest struct {
	IDs    []string `json:"ids"`
	Max    int      `json:"max"`
	UserID string   `json:"user_id"` // sent by the Hermes plugin; every owner is reprocessed
}

// ReprocessResponse is the answer of POST /api/v1/reprocess: how many raw
// rows were queued, and a note when none could be (lite mode).
type ReprocessResponse struct {
	Queued int    `json:"queued"`
	Note   string `json:"note,omitempty"`
}

// reprocess queues rows for extraction and answers at once (202);
// progress shows as unextracted in status.
func (s *Server) reprocess(w http.ResponseWriter, r *http.Request) error {
	var req ReprocessRequest
	if err := decodeJSON(r, &req, true, false); err != nil {
		return err
	}
	n, err := s.mem.Reprocess(r.Context(), memory.ReprocessInput{IDs: req.IDs, Max: req.Max})
	if err != nil {
		return err
	}
	out := ReprocessResponse{Queued: n}
	if !s.mem.Config().Mode.UsesLLM() {
		out.Note = "lite mode makes no LLM call; nothing was queued"
	}
	writeJSON(w, http.StatusAccepted, out)
	return nil
}
