package api

import (
	"time"

	"hyatlas/backend/memory"
)

// The JSON shapes of the API. Fields marked compat keep the names and
// meanings of the public HyAtlas contract.

// MemoryJSON is a full memory row (our endpoints).
type MemoryJSON struct {
	ID           string            `json:"id"`
	MemoryID     string            `json:"memory_id"` // compat alias of id
	Layer        memory.Layer      `json:"layer"`
	Content      string            `json:"content"`
	UserID       string            `json:"user_id"`
	AgentID      string            `json:"agent_id"`
	SessionID    string            `json:"session_id"`
	Category     string            `json:"category"`
	Strength     float64           `json:"strength"`
	Source       string            `json:"source"`
	SourceIDs    []string          `json:"source_ids"`
	Metadata     map[string]string `json:"metadata"`
	EventAt      *time.Time        `json:"event_at"`
	ValidTo      *time.Time        `json:"valid_to"`
	DueAt        *time.Time        `json:"due_at"`
	CreatedAt    time.Time         `json:"created_at"`
	UpdatedAt    time.Time         `json:"updated_at"`
	RetiredAt    *time.Time        `json:"retired_at"`
	RetiredBy    string            `json:"retired_by"`
	RetiredHow   memory.RetireHow  `json:"retired_how"`
	RetireReason string            `json:"retire_reason"`
	UseCount     int               `json:"use_count"`
	LastUsedAt   *time.Time        `json:"last_used_at"`
	Extraction   string            `json:"extraction"`
}

func toMemoryJSON(m memory.Memory) MemoryJSON {
	j := MemoryJSON{
		ID: m.ID, MemoryID: m.ID, Layer: m.Layer, Content: m.Content,
		UserID: m.Owner.UserID, AgentID: m.Owner.AgentID, SessionID: m.SessionID,
		Category: m.Category, Strength: m.Strength, Source: m.Source,
		SourceIDs: m.SourceIDs, Metadata: m.Metadata,
		EventAt: timePtr(m.EventAt), ValidTo: timePtr(m.ValidTo), DueAt: timePtr(m.DueAt),
		CreatedAt: asStored(m.CreatedAt), UpdatedAt: asStored(m.UpdatedAt), RetiredAt: timePtr(m.RetiredAt),
		RetiredBy: m.RetiredBy, RetiredHow: m.RetiredHow, RetireReason: m.RetireReason,
		UseCount: m.UseCount, LastUsedAt: timePtr(m.LastUsedAt), Extraction: string(m.Extraction),
	}
	if j.SourceIDs == nil {
		j.SourceIDs = []string{}
	}
	if j.Metadata == nil {
		j.Metadata = map[string]string{}
	}
	return j
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = asStored(t)
	return &t
}

// asStored is t as the store keeps it, to the millisecond: the answer to a
// write shows the times a later read of the row shows.
func asStored(t time.Time) time.Time { return t.Truncate(time.Millisecond) }

// ListItem is one row of /api/v1/list (compat), plus ours.
type ListItem struct {
	MemoryID   string            `json:"memory_id"`
	Content    string            `json:"content"`
	Layer      memory.Layer      `json:"layer"`
	UserID     string            `json:"user_id"`
	AgentID    string            `json:"agent_id"`
	SessionID  string            `json:"session_id"`
	TS         string            `json:"ts"`          // compat: RFC 3339 write time
	GMTCreated int64             `json:"gmt_created"` // compat: unix seconds
	Extracted  bool              `json:"extracted"`
	Category   string            `json:"category"`
	Strength   float64           `json:"strength"`
	EventAt    *time.Time        `json:"event_at,omitempty"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	// Set on retired rows only (compat names).
	InvalidAt string `json:"invalid_at,omitempty"`
	// A retired row carries superseded_by and drop_reason always, "" when
	// none (the public contract: empty superseded_by means dropped).
	SupersededBy  *string `json:"superseded_by,omitempty"`
	SupersededHow string  `json:"superseded_how,omitempty"`
	DropReason    *string `json:"drop_reason,omitempty"`
}

func toListItem(m memory.Memory) ListItem {
	it := ListItem{
		MemoryID: m.ID, Content: m.Content, Layer: m.Layer, UserID: m.Owner.UserID,
		AgentID: m.Owner.AgentID, SessionID: m.SessionID,
		TS: m.CreatedAt.UTC().Format(time.RFC3339), GMTCreated: m.CreatedAt.Unix(),
		Extracted: m.Extraction == memory.ExtractDone, Category: m.Category, Strength: m.Strength,
		EventAt: timePtr(m.EventAt), Metadata: m.Metadata,
	}
	if !m.Live() {
		it.InvalidAt = m.RetiredAt.UTC().Format(time.RFC3339)
		by, reason := m.RetiredBy, m.RetireReason
		it.SupersededBy, it.SupersededHow, it.DropReason = &by, string(m.RetiredHow), &reason
	}
	return it
}

// HitJSON is one search hit (compat fields first).
type HitJSON struct {
	MemoryID   string       `json:"memory_id"`
	Content    string       `json:"content"`
	Score      float64      `json:"score"`
	Layer      memory.Layer `json:"layer"`
	GMTCreated int64        `json:"gmt_created"`
	UserID     string       `json:"user_id"`
	AgentID    string       `json:"agent_id"`
	SessionID  string       `json:"session_id,omitempty"`
	Category   string       `json:"category,omitempty"`
	Strength   float64      `json:"strength"`
	EventAt    *time.Time   `json:"event_at,omitempty"`
	Replaced   []string     `json:"replaced"`
	Why        memory.Why   `json:"why"`
}

func toHit(h memory.Hit) HitJSON {
	m := h.Memory
	return HitJSON{
		MemoryID: m.ID, Content: m.Content, Score: round(h.Score), Layer: m.Layer,
		GMTCreated: m.CreatedAt.Unix(), UserID: m.Owner.UserID, AgentID: m.Owner.AgentID,
		SessionID: m.SessionID, Category: m.Category, Strength: m.Strength,
		EventAt: timePtr(m.EventAt), Replaced: nonNil(h.Replaced), Why: roundWhy(h.Why),
	}
}

func round(f float64) float64 {
	const p = 1e6
	if f < 0 {
		return -float64(int64(-f*p+0.5)) / p
	}
	return float64(int64(f*p+0.5)) / p
}

func roundWhy(w memory.Why) memory.Why {
	for _, f := range []*float64{&w.Vector, &w.Keyword, &w.Session, &w.Speaker, &w.Date, &w.Entity, &w.Graph, &w.Recency,
		&w.Usage, &w.Intention, &w.Strength, &w.Demotion, &w.Fused} {
		*f = round(*f)
	}
	return w
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// layerCounts returns every layer's live count, zeros included.
func layerCounts(live map[memory.Layer]int) map[memory.Layer]int {
	out := make(map[memory.Layer]int, len(memory.Layers))
	for _, l := range memory.Layers {
		out[l] = live[l]
	}
	return out
}

// AddResponse answers POST /api/v1/add (compat).
type AddResponse struct {
	Success          bool                    `json:"success"`
	MemoryID         string                  `json:"memory_id"`
	ExtractionStatus memory.ExtractionStatus `json:"extraction_status"`
	Layer            memory.Layer            `json:"layer"`
	UserID           string                  `json:"user_id"`
}

// SearchResponse answers POST /api/v1/search: hits grouped by channel
// (compat), the channel order (compat; "now" first when there is a Now
// page), the owner's Now page (compat), and every hit id in rank order.
type SearchResponse struct {
	Memories map[memory.Channel][]HitJSON `json:"memories"`
	Order    []memory.Channel             `json:"order"`
	Now      *HitJSON                     `json:"now,omitempty"`
	Ranked   []string                     `json:"ranked"`
	// Gate says why the answer is empty on purpose (a trivial query, or
	// nothing relevant); absent otherwise.
	Gate string `json:"gate,omitempty"`
}

// ListResponse answers /api/v1/list (compat).
type ListResponse struct {
	Total      int                  `json:"total"`
	Offset     int                  `json:"offset"`
	Limit      int                  `json:"limit"`
	Memories   []ListItem           `json:"memories"`
	Next       string               `json:"next,omitempty"` // the next page's `after`; absent on the last page
	Layers     map[memory.Layer]int `json:"layers"`
	GraphNodes int                  `json:"graph_nodes"`
	GraphEdges int                  `json:"graph_edges"`
}

// mapAll converts every element of xs with f, keeping the order; nil in,
// empty (not null) out.
func mapAll[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
