package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"hyatlas/backend/memory"
)

// AddRequest is the body of POST /api/v1/add (compat).
type AddRequest struct {
	Text      *string           `json:"text"`
	Data      *string           `json:"data"` // compat alias of text
	UserID    string            `json:"user_id"`
	AgentID   string            `json:"agent_id"`
	SessionID string            `json:"session_id"`
	Metadata  map[string]string `json:"metadata"`
	// RequestID names the write: sent again with the same id (its answer
	// was lost), it answers the row the first one stored.
	RequestID string `json:"request_id"`
}

func (s *Server) add(w http.ResponseWriter, r *http.Request) error {
	var req AddRequest
	if err := decodeJSON(r, &req, false, false); err != nil {
		return err
	}
	text := req.Text
	if text == nil || strings.TrimSpace(*text) == "" {
		text = req.Data
	}
	if text == nil {
		return memory.Errorf(memory.EBADREQUEST, "text required")
	}
	res, err := s.mem.Add(r.Context(), memory.AddInput{
		Text: *text, Owner: memory.Owner{UserID: req.UserID, AgentID: req.AgentID},
		SessionID: req.SessionID, Metadata: req.Metadata, RequestID: req.RequestID,
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, AddResponse{
		Success: true, MemoryID: res.Memory.ID, ExtractionStatus: res.ExtractionStatus,
		Layer: res.Memory.Layer, UserID: res.Memory.Owner.UserID,
	})
	return nil
}

// SearchRequest is the body of POST /api/v1/search (compat).
type SearchRequest struct {
	Query     string   `json:"query"`
	Limit     int      `json:"limit"`
	Layer     string   `json:"layer"`
	UserID    string   `json:"user_id"`
	AgentID   string   `json:"agent_id"`
	UserIDs   []string `json:"user_ids"`
	AgentIDs  []string `json:"agent_ids"`
	MinScore  *float64 `json:"min_score"`
	Reader    string   `json:"reader"`
	SessionID string   `json:"session_id"`
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	var req SearchRequest
	if err := decodeJSON(r, &req, false, false); err != nil {
		return err
	}
	agent := req.AgentID
	if agent == "" && len(req.AgentIDs) > 0 {
		agent = req.AgentIDs[0] // compat: only the first agent is used
	}
	res, err := s.mem.Search(r.Context(), memory.SearchInput{
		Query: req.Query, Limit: req.Limit, Layer: req.Layer,
		UserIDs: append([]string{req.UserID}, req.UserIDs...), AgentID: agent,
		MinScore: req.MinScore, Reader: req.Reader, SessionID: req.SessionID,
	})
	if err != nil {
		return err
	}
	channels := map[memory.Channel][]HitJSON{}
	order := make([]memory.Channel, 0, len(memory.ChannelOrder))
	for _, c := range memory.ChannelOrder {
		channels[c] = []HitJSON{}
		for _, h := range res.Channels[c] {
			channels[c] = append(channels[c], toHit(h))
		}
		order = append(order, c)
	}
	ranked := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ranked[i] = h.Memory.ID
	}
	out := SearchResponse{Memories: channels, Order: order, Ranked: ranked, Gate: res.Gated}
	if res.Now != nil {
		now := toHit(memory.Hit{Memory: *res.Now})
		out.Now = &now
		out.Order = append([]memory.Channel{"now"}, order...)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// ListRequest is the query or body of /api/v1/list (compat).
type ListRequest struct {
	Layer             string    `json:"layer"`
	UserID            string    `json:"user_id"`
	AgentID           string    `json:"agent_id"`
	Limit             int       `json:"limit"`
	Offset            int       `json:"offset"`
	IncludeRaw        *FlexBool `json:"include_raw"`
	IncludeSuperseded *FlexBool `json:"include_superseded"`
	Category          string    `json:"category"`
	MinStrength       *float64  `json:"min_strength"`
	MaxStrength       *float64  `json:"max_strength"`
	Q                 string    `json:"q"` // only memories whose text contains it
	Sort              string    `json:"sort"`
	After             string    `json:"after"` // a page's `next`: the page starts after that page's last row
}

// list serves GET (query string) and POST (JSON body; its fields win).
func (s *Server) list(w http.ResponseWriter, r *http.Request) error {
	req, err := listFromQuery(r)
	if err != nil {
		return err
	}
	if r.Method == http.MethodPost {
		if r.ContentLength != 0 {
			// As the public contract: a body's owner and layer replace
			// the query's, even when it leaves them out.
			req.Layer, req.UserID, req.AgentID = "", "", ""
		}
		if err := decodeJSON(r, &req, true, false); err != nil {
			return err
		}
	}
	in := memory.ListInput{Layer: req.Layer, UserID: req.UserID, AgentID: req.AgentID,
		Limit: req.Limit, Offset: req.Offset, IncludeRaw: true, Category: req.Category,
		MinStrength: req.MinStrength, MaxStrength: req.MaxStrength, Text: req.Q, Sort: req.Sort, After: req.After}
	if req.IncludeRaw != nil {
		in.IncludeRaw = bool(*req.IncludeRaw)
	}
	if req.IncludeSuperseded != nil {
		in.IncludeRetired = bool(*req.IncludeSuperseded)
	}
	res, err := s.mem.List(r.Context(), in)
	if err != nil {
		return err
	}
	st, err := s.mem.Stats(r.Context())
	if err != nil {
		return err
	}
	items := make([]ListItem, len(res.Memories))
	for i, m := range res.Memories {
		items[i] = toListItem(m)
	}
	writeJSON(w, http.StatusOK, ListResponse{
		Total: res.Total, Offset: res.Offset, Limit: res.Limit, Memories: items, Next: res.Next.String(),
		Layers: layerCounts(st.Live), GraphNodes: st.GraphNodes, GraphEdges: st.GraphEdges,
	})
	return nil
}

func listFromQuery(r *http.Request) (ListRequest, error) {
	q := r.URL.Query()
	req := ListRequest{Layer: q.Get("layer"), UserID: q.Get("user_id"), AgentID: q.Get("agent_id")}
	var err error
	if req.Limit, err = queryInt(q.Get("limit"), "limit"); err != nil {
		return req, err
	}
	if req.Offset, err = queryInt(q.Get("offset"), "offset"); err != nil {
		return req, err
	}
	if req.IncludeRaw, err = queryBool(q.Get("include_raw"), "include_raw"); err != nil {
		return req, err
	}
	if req.IncludeSuperseded, err = queryBool(q.Get("include_superseded"), "include_superseded"); err != nil {
		return req, err
	}
	req.Category, req.Q, req.Sort, req.After = q.Get("category"), q.Get("q"), q.Get("sort"), q.Get("after")
	if req.MinStrength, err = queryFloat(q.Get("min_strength"), "min_strength"); err != nil {
		return req, err
	}
	if req.MaxStrength, err = queryFloat(q.Get("max_strength"), "max_strength"); err != nil {
		return req, err
	}
	return req, nil
}

// queryFloat reads an optional number ("" is nil).
func queryFloat(v, name string) (*float64, error) {
	if v == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return nil, memory.Errorf(memory.EBADREQUEST, "%s must be a number", name)
	}
	return &f, nil
}

func queryInt(v, name string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, memory.Errorf(memory.EBADREQUEST, "%s must be an integer", name)
	}
	return n, nil
}

func queryBool(v, name string) (*FlexBool, error) {
	if v == "" {
		return nil, nil
	}
	var b FlexBool
	if err := b.parse(v); err != nil {
		return nil, memory.Errorf(memory.EBADREQUEST, "%s must be true or false", name)
	}
	return &b, nil
}

// FlexBool accepts true/false as a JSON boolean or as a string ("true",
// "on", "1", ...), as compat clients send both.
type FlexBool bool

func (b *FlexBool) UnmarshalJSON(data []byte) error {
	var v bool
	if err := json.Unmarshal(data, &v); err == nil {
		*b = FlexBool(v)
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return &json.UnmarshalTypeError{Value: jsonKindOf(data), Type: boolType}
	}
	if err := b.parse(s); err != nil {
		return &json.UnmarshalTypeError{Value: "string", Type: boolType}
	}
	return nil
}

// jsonKindOf names the kind of a JSON value as errors say it: "number",
// "string", "array", "object", "null".
func jsonKindOf(data []byte) string {
	switch t := bytes.TrimSpace(data); {
	case len(t) == 0:
		return ""
	case t[0] == '"':
		return "string"
	case t[0] == '[':
		return "array"
	case t[0] == '{':
		return "object"
	case t[0] == 'n':
		return "null"
	default:
		return "number"
	}
}

func (b *FlexBool) parse(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "on", "1", "yes":
		*b = true
	case "false", "off", "0", "no", "":
		*b = false
	default:
		return fmt.Errorf("%q is not true or false", s)
	}
	return nil
}

var boolType = reflect.TypeOf(true)

// FeedbackRequest says which recalled memories a reply used.
type FeedbackRequest struct {
	Used      []string `json:"used"`
	MemoryIDs []string `json:"memory_ids"` // the same, by another name
	UserID    string   `json:"user_id"`    // accepted and ignored: ids are global
	// RequestID names the call: sent again (its answer was lost), it
	// counts nothing more and gets the first answer.
	RequestID string `json:"request_id"`
}

// feedback counts a use of each memory a reply used (usage learning).
func (s *Server) feedback(w http.ResponseWriter, r *http.Request) error {
	var req FeedbackRequest
	if err := decodeJSON(r, &req, false, true); err != nil {
		return err
	}
	n, err := s.mem.Feedback(r.Context(), memory.FeedbackInput{Used: append(req.Used, req.MemoryIDs...), RequestID: req.RequestID})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"counted": n})
	return nil
}
