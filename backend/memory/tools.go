package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Agent memory tools (the MeepaGateway set): what an agent's LLM calls
// during its loop. Each has a JSON schema for its arguments (strict: every
// property named, no others); a call with bad arguments is a clear error
// that names the tool and changes nothing.

// ToolSpec describes one tool in the shape LLM function calling uses.
type ToolSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// ToolCaller is the agent calling a tool and the user it works for.
type ToolCaller struct {
	UserID, AgentID string
}

// sourceTool marks a memory an agent stored through memory_store.
const sourceTool = "tool:memory_store"

func toolSchema(props map[string]any, required ...string) map[string]any {
	if required == nil {
		required = []string{}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

func strProp(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}

var noteFiles = map[string]any{"type": "string", "enum": []any{string(FileMemory), string(FileUser)},
	"description": "MEMORY.md (long-term notes) or USER.md (the user's profile)"}

// Tools lists the tools with their argument schemas.
func Tools() []ToolSpec {
	return []ToolSpec{
		{"memory_store", "Store a fact worth remembering across conversations, as one short self-contained sentence.",
			toolSchema(map[string]any{"content": strProp("the fact"), "source": strProp("where it comes from, e.g. user, observation, conversation")}, "content")},
		{"memory_search", "Search long-term memory. Returns ranked facts with their ids, sources and timestamps.",
			toolSchema(map[string]any{"query": strProp("what to look for"),
				"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 20, "description": "at most this many results (5)"}}, "query")},
		{"memory_delete", "Forget a memory by its id (from memory_search). The user can restore it.",
			toolSchema(map[string]any{"id": strProp("the memory's id"),
				"never_true": map[string]any{"type": "boolean", "description": "true when the user says it was never true (a mistake), not only to be forgotten: what it replaced holds again (a job it ended is current again)"}}, "id")},
		{"memory_note", "Append a note to MEMORY.md or USER.md.",
			toolSchema(map[string]any{"content": strProp("the note, Markdown"), "file": noteFiles}, "content", "file")},
		{"memory_read", "Read the whole of MEMORY.md or USER.md.",
			toolSchema(map[string]any{"file": noteFiles}, "file")},
		{"soul_read", "Read SOUL.md, your persona. Call it before soul_edit.", toolSchema(map[string]any{})},
		{"soul_edit", "Replace the whole of SOUL.md, your persona. Call soul_read first, edit its content, and write all of it back; pass the etag soul_read gave so a change made meanwhile is not overwritten.",
			toolSchema(map[string]any{"content": strProp("the whole new SOUL.md"), "etag": strProp("the etag from soul_read")}, "content")},
	}
}

// CallTool runs a tool with its JSON arguments for caller and returns its
// result (a JSON-ready value). A caller that names no user works for the
// default user: a tool never reaches every user's memories.
func (s *Service) CallTool(ctx context.Context, name string, args []byte, caller ToolCaller) (any, error) {
	if strings.TrimSpace(caller.UserID) == "" {
		caller.UserID = DefaultUserID
	}
	var out any
	var err error
	switch name {
	case "memory_store":
		var a struct {
			Content string `json:"content"`
			Source  string `json:"source"`
		}
		if err = toolArgs(name, args, &a); err == nil {
			out, err = s.toolStore(ctx, a.Content, a.Source, caller)
		}
	case "memory_search":
		var a struct {
			Query string `json:"query"`
			Limit *int   `json:"limit"`
		}
		if err = toolArgs(name, args, &a); err == nil {
			out, err = s.toolSearch(ctx, a.Query, a.Limit, caller)
		}
	case "memory_delete":
		var a struct {
			ID        string `json:"id"`
			NeverTrue bool   `json:"never_true"`
		}
		if err = toolArgs(name, args, &a); err == nil {
			out, err = s.toolDelete(ctx, a.ID, a.NeverTrue, caller)
		}
	case "memory_note":
		var a struct {
			Content string `json:"content"`
			File    string `json:"file"`
		}
		if err = toolArgs(name, args, &a); err == nil {
			out, err = s.toolNote(ctx, a.Content, a.File, caller)
		}
	case "memory_read":
		var a struct {
			File string `json:"file"`
		}
		if err = toolArgs(name, args, &a); err == nil {
			out, err = s.toolRead(ctx, a.File, caller)
		}
	case "soul_read":
		if err = toolArgs(name, args, &struct{}{}); err == nil {
			out, err = s.toolSoulRead(ctx, caller)
		}
	case "soul_edit":
		var a struct {
			Content string `json:"content"`
			ETag    string `json:"etag"`
		}
		if err = toolArgs(name, args, &a); err == nil {
			out, err = s.toolSoulEdit(ctx, a.Content, a.ETag, caller)
		}
	default:
		return nil, Errorf(ENOTFOUND, "no tool %q (GET /api/v1/tools lists them)", name)
	}
	if err != nil {
		return nil, toolError(name, err)
	}
	return out, nil
}

// toolArgs decodes a call's arguments strictly: a JSON object (empty is
// {}), no unknown fields (each spelt as the schema spells it), the right
// types.
func toolArgs(name string, args []byte, dst any) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) { // not Go's "cannot unmarshal ... into Go struct field"
			got, literal, _ := strings.Cut(te.Value, " ") // "number 2.5", "string", "bool"
			if got == "bool" {
				got = "boolean"
			}
			want := schemaKind(te.Type.Kind())
			switch {
			case te.Field == "":
				return Errorf(EBADREQUEST, "the arguments must be a JSON object, not %s", aOrAn(got))
			case want == "integer" && got == "number": // 2.5, 1e400
				return Errorf(EBADREQUEST, "the arguments are not what the schema asks for: %q must be an integer, not %s", te.Field, literal)
			}
			return Errorf(EBADREQUEST, "the arguments are not what the schema asks for: %q must be %s, not %s",
				te.Field, aOrAn(want), aOrAn(got))
		}
		return Errorf(EBADREQUEST, "the arguments are not what the schema asks for: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return Errorf(EBADREQUEST, "the arguments are one JSON object")
	}
	if k := InexactField(args, dst); k != "" {
		return Errorf(EBADREQUEST, "the arguments are not what the schema asks for: unknown field %q", k)
	}
	return nil
}

// schemaKind names a Go kind as JSON Schema does.
func schemaKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	default:
		return "object"
	}
}

// aOrAn puts the indefinite article before a JSON kind ("an array").
func aOrAn(kind string) string {
	if strings.HasPrefix(kind, "a") || strings.HasPrefix(kind, "o") || strings.HasPrefix(kind, "i") {
		return "an " + kind
	}
	return "a " + kind
}

// toolError prefixes a domain error with the tool's name, keeping its code.
func toolError(name string, err error) error {
	if c := ErrorCode(err); c != EINTERNAL {
		return Errorf(c, "%s: %s", name, ErrorMessage(err))
	}
	return fmt.Errorf("%s: %w", name, err)
}

func (s *Service) toolStore(ctx context.Context, content, source string, c ToolCaller) (any, error) {
	var md map[string]string
	if source = strings.TrimSpace(source); source != "" {
		if len(source) > maxIDLen {
			return nil, Errorf(EINVALID, "source is at most %d bytes", maxIDLen)
		}
		md = map[string]string{"source": source}
	}
	m, err := s.Remember(ctx, RememberInput{Content: content, Owner: Owner{UserID: c.UserID, AgentID: c.AgentID},
		Metadata: md, Source: sourceTool})
	if err != nil {
		return nil, err
	}
	return map[string]any{"stored": true, "id": m.ID, "content": m.Content}, nil
}

// ToolHit is one memory_search result.
type ToolHit struct {
	ID        string    `json:"id"`
	Content   string    `json:"content"`
	Source    string    `json:"source"`
	Layer     Layer     `json:"layer"`
	Score     float64   `json:"score"`
	CreatedAt time.Time `json:"created_at"`
	EventAt   time.Time `json:"event_at"`
}

func (s *Service) toolSearch(ctx context.Context, query string, limit *int, c ToolCaller) (any, error) {
	n := 5
	if limit != nil {
		if *limit < 1 || *limit > 20 {
			return nil, Errorf(EINVALID, "limit must be from 1 to 20")
		}
		n = *limit
	}
	// As /search with the agent: its own memories and the person's, never
	// another agent's.
	res, err := s.Search(ctx, SearchInput{Query: query, Limit: n, UserIDs: []string{c.UserID}, AgentID: c.AgentID})
	if err != nil {
		return nil, err
	}
	hits := []ToolHit{}
	for _, h := range res.Hits {
		hits = append(hits, ToolHit{ID: h.Memory.ID, Content: h.Memory.Content, Source: h.Memory.Source, Layer: h.Memory.Layer,
			Score: h.Why.Fused, CreatedAt: h.Memory.CreatedAt, EventAt: h.Memory.EventAt})
	}
	return map[string]any{"results": hits}, nil
}

// toolDelete forgets (retires, reversibly) a memory of the caller's user
// that the calling agent may see (its own or the person's, never another
// agent's); neverTrue retires it as wrong (see RetiredWrong).
func (s *Service) toolDelete(ctx context.Context, id string, neverTrue bool, c ToolCaller) (any, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, Errorf(EBADREQUEST, "id required")
	}
	m, err := s.store.Get(ctx, id)
	if err != nil || !s.ownerScope(Owner{UserID: c.UserID, AgentID: c.AgentID}).Holds(m) {
		return nil, Errorf(ENOTFOUND, "no memory %q of this user (or of another agent)", id)
	}
	in := RetireInput{How: string(RetiredForgotten), Reason: "the agent's memory_delete tool"}
	if neverTrue {
		in = RetireInput{How: string(RetiredWrong), Reason: "the agent's memory_delete tool: never true"}
	}
	if _, err := s.Retire(ctx, id, in); err != nil {
		return nil, err
	}
	return map[string]any{"deleted": true, "id": id, "restorable": true}, nil
}

func (s *Service) toolNote(ctx context.Context, content, file string, c ToolCaller) (any, error) {
	f, err := noteFile(file)
	if err != nil {
		return nil, err
	}
	d, err := s.AppendWorkspace(ctx, c.AgentID, string(f), content)
	if err != nil {
		return nil, err
	}
	return map[string]any{"file": d.File, "bytes": len(d.Content), "etag": d.ETag}, nil
}

func (s *Service) toolRead(ctx context.Context, file string, c ToolCaller) (any, error) {
	f, err := noteFile(file)
	if err != nil {
		return nil, err
	}
	d, err := s.ReadWorkspace(ctx, c.AgentID, string(f))
	if err != nil {
		return nil, err
	}
	return map[string]any{"file": d.File, "content": d.Content, "etag": d.ETag}, nil
}

// noteFile accepts MEMORY.md and USER.md (the persona has its own tools).
func noteFile(file string) (WorkspaceFile, error) {
	f, err := ParseWorkspaceFile(file)
	if err != nil || f == FileSoul {
		return "", Errorf(EINVALID, "file must be MEMORY.md or USER.md")
	}
	return f, nil
}

func (s *Service) toolSoulRead(ctx context.Context, c ToolCaller) (any, error) {
	d, err := s.ReadWorkspace(ctx, c.AgentID, string(FileSoul))
	if err != nil {
		return nil, err
	}
	return map[string]any{"content": d.Content, "etag": d.ETag}, nil
}

func (s *Service) toolSoulEdit(ctx context.Context, content, etag string, c ToolCaller) (any, error) {
	if strings.TrimSpace(content) == "" {
		return nil, Errorf(EBADREQUEST, "content required: soul_edit replaces the whole file")
	}
	d, err := s.WriteWorkspace(ctx, c.AgentID, string(FileSoul), content, etag)
	if err != nil {
		return nil, err
	}
	return map[string]any{"etag": d.ETag, "bytes": len(d.Content)}, nil
}
