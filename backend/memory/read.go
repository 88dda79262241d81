package memory

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// Paging limits for lists.
const (
	DefaultListLimit = 20
	MaxListLimit     = 1000
)

// ListInput selects memories for a list, newest first.
type ListInput struct {
	Layer          string
	UserID         string
	AgentID        string
	Limit          int  // 0 means DefaultListLimit
	Offset         int  // rows to skip
	IncludeRaw     bool // with no Layer, false hides L2 rows
	IncludeRetired bool
	Category       string   // only this category ("" any)
	MinStrength    *float64 // strength band, inclusive (nil: unbounded)
	MaxStrength    *float64
	Text           string // only rows whose text contains this
	Sort           string // "date" (newest first, the default), "oldest" or "strength" (strongest first)
	// After is a page's Next: the page starts right after that page's
	// last row (ParseListCursor; not with Offset).
	After string
}

// maxListText bounds the text filter of a list.
const maxListText = 500

// ListResult is a page of memories; Total counts every row that matched
// the filter, before paging.
type ListResult struct {
	Total    int
	Offset   int
	Limit    int
	Memories []Memory
	// Next is where the following page starts (ListInput.After); zero
	// when no row follows.
	Next ListCursor
}

// List returns a page of memories of the owners in scope (a user id covers
// its aliases), newest first.
func (s *Service) List(ctx context.Context, in ListInput) (ListResult, error) {
	layer, err := ParseLayer(in.Layer)
	if err != nil {
		return ListResult{}, err
	}
	limit, err := pageLimit("limit", in.Limit, DefaultListLimit, MaxListLimit)
	if err != nil {
		return ListResult{}, err
	}
	if in.Offset < 0 {
		return ListResult{}, Errorf(EINVALID, "offset must not be negative")
	}
	scope, err := s.scope([]string{in.UserID}, in.AgentID)
	if err != nil {
		return ListResult{}, err
	}
	f := ListFilter{
		Scope:          scope,
		IncludeRetired: in.IncludeRetired,
		Category:       strings.TrimSpace(in.Category),
		MinStrength:    in.MinStrength,
		MaxStrength:    in.MaxStrength,
		Text:           strings.TrimSpace(in.Text),
		Offset:         in.Offset,
		Limit:          limit,
	}
	for _, b := range []*float64{in.MinStrength, in.MaxStrength} {
		if b != nil && (math.IsNaN(*b) || *b < 0 || *b > 1) {
			return ListResult{}, Errorf(EINVALID, "a strength bound must be between 0 and 1")
		}
	}
	if in.MinStrength != nil && in.MaxStrength != nil && *in.MinStrength > *in.MaxStrength {
		return ListResult{}, Errorf(EINVALID, "min_strength is above max_strength")
	}
	if len(f.Text) > maxListText || len(f.Category) > maxCategoryLen {
		return ListResult{}, Errorf(EINVALID, "text filters are at most %d bytes", maxListText)
	}
	sort := in.Sort
	switch sort {
	case "", "date":
		sort = "date"
	case "oldest":
		f.Oldest = true
	case "strength":
		f.ByStrength = true
	default:
		return ListResult{}, Errorf(EINVALID, "sort must be date, oldest or strength, not %q", in.Sort)
	}
	if f.After, err = ParseListCursor(in.After, sort); err != nil {
		return ListResult{}, err
	}
	if !f.After.IsZero() && in.Offset != 0 {
		return ListResult{}, Errorf(EINVALID, "after and offset do not go together: after already says where the page starts")
	}
	f.Limit++ // one more row says whether a next page exists
	switch {
	case layer != "":
		f.Layers = []Layer{layer}
	case !in.IncludeRaw:
		f.ExcludeLayers = []Layer{LayerRaw}
	}
	rows, total, err := s.store.List(ctx, f)
	if err != nil {
		return ListResult{}, fmt.Errorf("list memories: %w", err)
	}
	res := ListResult{Total: total, Offset: in.Offset, Limit: limit, Memories: rows}
	if len(rows) > limit {
		res.Memories = rows[:limit]
		res.Next = cursorAfter(sort, rows[limit-1])
	}
	return res, nil
}

// Detail is one memory with its story: every recorded change, the row that
// replaced it, the rows it replaced, and the raw rows it came from.
type Detail struct {
	Memory     Memory
	History    []HistoryEntry
	ReplacedBy *Memory
	Replaced   []Memory
	Sources    []Memory
	Linked     []Memory // rows reconcile judged related (LINK)
}

// Get returns one memory, live or retired, with its history.
func (s *Service) Get(ctx context.Context, id string) (Detail, error) {
	m, err := s.store.Get(ctx, strings.TrimSpace(id))
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Memory: m}
	if d.History, err = s.store.History(ctx, m.ID); err != nil {
		return Detail{}, fmt.Errorf("read history of %s: %w", m.ID, err)
	}
	if d.Replaced, _, err = s.store.List(ctx, ListFilter{RetiredBy: m.ID, IncludeRetired: true, Limit: MaxListLimit}); err != nil {
		return Detail{}, fmt.Errorf("read rows replaced by %s: %w", m.ID, err)
	}
	var linked []string
	if s.xstore != nil {
		if linked, err = s.xstore.Linked(ctx, m.ID); err != nil {
			return Detail{}, err
		}
	}
	related := append(append([]string{m.RetiredBy}, m.SourceIDs...), linked...)
	rows, err := s.store.GetMany(ctx, related)
	if err != nil {
		return Detail{}, fmt.Errorf("read rows related to %s: %w", m.ID, err)
	}
	if r, ok := rows[m.RetiredBy]; ok && m.RetiredBy != "" {
		d.ReplacedBy = &r
	}
	for _, sid := range m.SourceIDs {
		if r, ok := rows[sid]; ok {
			d.Sources = append(d.Sources, r)
		}
	}
	for _, lid := range linked {
		if r, ok := rows[lid]; ok {
			d.Linked = append(d.Linked, r)
		}
	}
	return d, nil
}

// scope is the owner filter of a read: user ids expanded by aliases (none
// means every user). An id no row can hold (too long, control characters,
// not UTF-8) is a mistake, not a scope that finds nothing: it is refused.
func (s *Service) scope(userIDs []string, agentID string) (Scope, error) {
	agentID = strings.TrimSpace(agentID)
	if err := checkLabel("agent_id", agentID); err != nil {
		return Scope{}, err
	}
	for _, u := range userIDs {
		if err := checkLabel("user_id", strings.TrimSpace(u)); err != nil {
			return Scope{}, err
		}
	}
	return Scope{UserIDs: s.cfg.Aliases.Expand(userIDs...), AgentID: agentID}, nil
}

// pageLimit applies a default to 0 and refuses values outside 1..max.
func pageLimit(name string, n, def, max int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > max:
		return 0, Errorf(EINVALID, "%s must be between 1 and %d", name, max)
	default:
		return n, nil
	}
}
