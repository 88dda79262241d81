package api

import (
	"net/http"

	"hyatlas/backend/memory"
)

// The Atlas verbs: add by hand, promote and demote, the prompt block.

// RememberRequest is the body of POST /api/v1/memories: a memory added by
// hand, stored as is (no LLM round trip).
type RememberRequest struct {
	Content  string            `json:"content"`
	Layer    string            `json:"layer"`
	Category string            `json:"category"`
	Strength *float64          `json:"strength"`
	UserID   string            `json:"user_id"`
	AgentID  string            `json:"agent_id"`
	Metadata map[string]string `json:"metadata"`
	Source   string            `json:"source"` // manual (default), hermes:memory_tool, ...
	// RequestID: the same write sent again (its answer was lost) is
	// stored once; see memory.RememberInput.
	RequestID string `json:"request_id"`
}

func (s *Server) remember(w http.ResponseWriter, r *http.Request) error {
	var req RememberRequest
	if err := decodeJSON(r, &req, false, true); err != nil {
		return err
	}
	m, err := s.mem.Remember(r.Context(), memory.RememberInput{Content: req.Content, Layer: req.Layer,
		Category: req.Category, Strength: req.Strength, Owner: memory.Owner{UserID: req.UserID, AgentID: req.AgentID},
		Metadata: req.Metadata, Source: req.Source, RequestID: req.RequestID})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, toMemoryJSON(m))
	return nil
}

// NudgeRequest is the optional body of promote and demote: how many steps
// (1 by default, at most 10).
type NudgeRequest struct {
	Steps *int `json:"steps"`
}

// nudge serves POST /api/v1/memories/{id}/promote and /demote.
func (s *Server) nudge(sign int) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req NudgeRequest
		if err := decodeJSON(r, &req, true, true); err != nil {
			return err
		}
		steps := 1
		if req.Steps != nil {
			if *req.Steps < 1 || *req.Steps > 10 {
				return memory.Errorf(memory.EINVALID, "steps must be from 1 to 10")
			}
			steps = *req.Steps
		}
		m, err := s.mem.Nudge(r.Context(), r.PathValue("id"), sign*steps)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, toMemoryJSON(m))
		return nil
	}
}

// PromptResponse is the reply of GET /api/v1/prompt.
type PromptResponse struct {
	Prompt    string       `json:"prompt"` // "" when no memory reaches the threshold
	Bytes     int          `json:"bytes"`
	Count     int          `json:"count"`
	Threshold float64      `json:"threshold"`
	Memories  []MemoryJSON `json:"memories"`
}

// prompt: user_id, agent_id, limit (the setting, 40; at most 200).
func (s *Server) prompt(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := queryInt(q.Get("limit"), "limit")
	if err != nil {
		return err
	}
	b, err := s.mem.Prompt(r.Context(), memory.PromptInput{UserID: q.Get("user_id"), AgentID: q.Get("agent_id"), Limit: limit})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, PromptResponse{Prompt: b.Text, Bytes: b.Bytes, Count: len(b.Memories), Threshold: b.Threshold,
		Memories: mapAll(b.Memories, toMemoryJSON)})
	return nil
}
