package api

import (
	"encoding/json"
	"net/http"
	"slices"

	"hyatlas/backend/memory"
)

// The agent workspace and the agent tools.

// WorkspacePut is the body of PUT /api/v1/workspace/{agent}/{file}. The
// version it replaces goes in the If-Match header (or etag); without one
// the write is unconditional.
type WorkspacePut struct {
	Content *string `json:"content"`
	ETag    string  `json:"etag"`
}

func writeDoc(w http.ResponseWriter, d memory.WorkspaceDoc) {
	w.Header().Set("ETag", d.ETag)
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) readWorkspace(w http.ResponseWriter, r *http.Request) error {
	d, err := s.mem.ReadWorkspace(r.Context(), r.PathValue("agent"), r.PathValue("file"))
	if err != nil {
		return err
	}
	writeDoc(w, d)
	return nil
}

func (s *Server) writeWorkspace(w http.ResponseWriter, r *http.Request) error {
	var req WorkspacePut
	if err := decodeJSON(r, &req, false, true); err != nil {
		return err
	}
	if req.Content == nil {
		return memory.Errorf(memory.EBADREQUEST, "content required (the whole file)")
	}
	ifMatch := r.Header.Get("If-Match")
	if ifMatch == "" {
		ifMatch = req.ETag
	}
	d, err := s.mem.WriteWorkspace(r.Context(), r.PathValue("agent"), r.PathValue("file"), *req.Content, ifMatch)
	if err != nil {
		return err
	}
	writeDoc(w, d)
	return nil
}

func (s *Server) listTools(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]any{"tools": memory.Tools()})
	return nil
}

// callTool: POST /api/v1/tools/{name}?user_id=&agent_id= with the tool's
// arguments as the JSON body → {"tool", "result"}.
func (s *Server) callTool(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if !slices.ContainsFunc(memory.Tools(), func(t memory.ToolSpec) bool { return t.Name == name }) {
		return memory.Errorf(memory.ENOTFOUND, "no tool %q (GET /api/v1/tools lists them)", name)
	}
	var args json.RawMessage
	if err := decodeJSON(r, &args, true, false); err != nil {
		// As a bad argument is: an agent's loop tells which call failed.
		return memory.Errorf(memory.ErrorCode(err), "%s: %s", name, memory.ErrorMessage(err))
	}
	q := r.URL.Query()
	out, err := s.mem.CallTool(r.Context(), name, args, memory.ToolCaller{UserID: q.Get("user_id"), AgentID: q.Get("agent_id")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"tool": name, "result": out})
	return nil
}
