package api

import (
	"net/http"

	"hyatlas/backend/memory"
)

// DetailJSON answers GET /api/v1/memories/{id}: the row, its history,
// the row that replaced it, the rows it replaced, its sources and the rows
// linked to it.
type DetailJSON struct {
	MemoryJSON
	History    []memory.HistoryEntry `json:"history"`
	ReplacedBy *MemoryJSON           `json:"replaced_by"`
	Replaced   []MemoryJSON          `json:"replaced"`
	Sources    []MemoryJSON          `json:"sources"`
	Linked     []MemoryJSON          `json:"linked"`
}

func (s *Server) getMemory(w http.ResponseWriter, r *http.Request) error {
	d, err := s.mem.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	out := DetailJSON{MemoryJSON: toMemoryJSON(d.Memory), History: d.History,
		Replaced: toMemoryJSONs(d.Replaced), Sources: toMemoryJSONs(d.Sources), Linked: toMemoryJSONs(d.Linked)}
	if out.History == nil {
		out.History = []memory.HistoryEntry{}
	}
	if d.ReplacedBy != nil {
		j := toMemoryJSON(*d.ReplacedBy)
		out.ReplacedBy = &j
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func toMemoryJSONs(ms []memory.Memory) []MemoryJSON { return mapAll(ms, toMemoryJSON) }

// PatchRequest is the body of PATCH /api/v1/memories/{id}; absent fields
// are left alone.
type PatchRequest struct {
	Content  *string  `json:"content"`
	Category *string  `json:"category"`
	Strength *float64 `json:"strength"`
	// IfContent: change it only while its text is this (412 otherwise).
	IfContent *string `json:"if_content"`
}

func (s *Server) patchMemory(w http.ResponseWriter, r *http.Request) error {
	var req PatchRequest
	if err := decodeJSON(r, &req, false, true); err != nil {
		return err
	}
	m, err := s.mem.Edit(r.Context(), r.PathValue("id"), memory.EditInput(req))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toMemoryJSON(m))
	return nil
}

func (s *Server) deleteMemory(w http.ResponseWriter, r *http.Request) error {
	if err := ignoredBody(r); err != nil {
		return err // a client of the public contract may send an object; never junk
	}
	if err := s.mem.Delete(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"deleted": true, "memory_id": r.PathValue("id")})
	return nil
}

// RetireRequest is the body of POST /api/v1/memories/{id}/retire.
type RetireRequest struct {
	How    string `json:"how"`
	Reason string `json:"reason"`
	By     string `json:"by"`
}

func (s *Server) retireMemory(w http.ResponseWriter, r *http.Request) error {
	var req RetireRequest
	if err := decodeJSON(r, &req, true, true); err != nil {
		return err
	}
	m, err := s.mem.Retire(r.Context(), r.PathValue("id"), memory.RetireInput(req))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toMemoryJSON(m))
	return nil
}

func (s *Server) restoreMemory(w http.ResponseWriter, r *http.Request) error {
	var req struct{}
	if err := decodeJSON(r, &req, true, true); err != nil {
		return err
	}
	m, err := s.mem.Restore(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toMemoryJSON(m))
	return nil
}

// ForgetRequest is the body of POST /api/v1/forget.
type ForgetRequest struct {
	Text     *string `json:"text"`
	Content  *string `json:"content"` // alias of text
	UserID   string  `json:"user_id"`
	AgentID  string  `json:"agent_id"`
	Contains bool    `json:"contains"`
	Source   string  `json:"source"`
	Reason   string  `json:"reason"`
}

// forget retires rows matching a text; reversible with restore.
func (s *Server) forget(w http.ResponseWriter, r *http.Request) error {
	var req ForgetRequest
	if err := decodeJSON(r, &req, false, false); err != nil {
		return err
	}
	text := req.Text
	if text == nil {
		text = req.Content
	}
	if text == nil {
		return memory.Errorf(memory.EBADREQUEST, "text required")
	}
	rows, err := s.mem.Forget(r.Context(), memory.ForgetInput{Text: *text, UserID: req.UserID,
		AgentID: req.AgentID, Contains: req.Contains, Source: req.Source, Reason: req.Reason})
	if err != nil {
		return err
	}
	ids := make([]string, len(rows))
	for i, m := range rows {
		ids[i] = m.ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"forgotten": len(ids), "memory_ids": ids})
	return nil
}

// DeleteAllRequest is the body of /api/v1/delete_all (compat); the query
// string may carry the same fields.
type DeleteAllRequest struct {
	ID      string    `json:"id"`
	Layer   string    `json:"layer"`
	UserID  string    `json:"user_id"`
	AgentID string    `json:"agent_id"`
	All     *FlexBool `json:"all"`
	Confirm string    `json:"confirm"`
}

// deleteAll is the scoped bulk hard delete; the query string wins over the
// body for each field it sets (compat).
func (s *Server) deleteAll(w http.ResponseWriter, r *http.Request) error {
	var req DeleteAllRequest
	if err := decodeJSON(r, &req, true, false); err != nil {
		return err
	}
	q := r.URL.Query()
	for name, dst := range map[string]*string{"id": &req.ID, "layer": &req.Layer,
		"user_id": &req.UserID, "agent_id": &req.AgentID, "confirm": &req.Confirm} {
		if v := q.Get(name); v != "" {
			*dst = v
		}
	}
	all := req.Confirm == "wipe-all"
	if v := q.Get("all"); v != "" {
		b, err := queryBool(v, "all")
		if err != nil {
			return err
		}
		req.All = b
	}
	if req.All != nil && bool(*req.All) {
		all = true
	}
	n, err := s.mem.DeleteAll(r.Context(), memory.DeleteAllInput{ID: req.ID, Layer: req.Layer,
		UserID: req.UserID, AgentID: req.AgentID, All: all})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"deleted_count": n, "error": ""})
	return nil
}
