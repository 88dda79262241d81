package memory

import (
	"context"
	"fmt"
	"strings"
)

// Prompt folding bounds.
const (
	MaxPromptLimit    = 200
	promptLineBytes   = 500
	PromptBlockHeader = "## Persistent Memory"
)

// PromptInput asks for an owner's prompt block.
type PromptInput struct {
	UserID, AgentID string // no user: the default user
	Limit           int    // 0: the PromptLimit setting (40)
}

// PromptBlock is the "## Persistent Memory" block an agent puts at the top
// of its prompt: the owner's live curated memories at or above the
// injection threshold, strongest first, one line each.
type PromptBlock struct {
	Text      string   // "" when no memory is strong enough
	Bytes     int      // len(Text)
	Threshold float64  // the injection threshold in effect
	Memories  []Memory // the rows behind the lines, in order
}

// Prompt builds the prompt block: "## Persistent Memory", then one line
// "- (<category>) <text>" per memory (text on one line, cut at 500 bytes;
// category "fact" when it has none).
func (s *Service) Prompt(ctx context.Context, in PromptInput) (PromptBlock, error) {
	limit, err := pageLimit("limit", in.Limit, s.cfg.Strength.PromptLimit, MaxPromptLimit)
	if err != nil {
		return PromptBlock{}, err
	}
	th := s.cfg.Strength.InjectAt
	user := strings.TrimSpace(in.UserID)
	if user == "" {
		user = DefaultUserID // one person's block, never everyone's
	}
	scope, err := s.scope([]string{user}, in.AgentID)
	if err != nil {
		return PromptBlock{}, err
	}
	scope.WithShared = true // what the person wrote is every agent's to recall
	// Read more than limit: some are left out below.
	read, _, err := s.store.List(ctx, ListFilter{Layers: CuratedLayers, Scope: scope,
		MinStrength: &th, ByStrength: true, Limit: min(2*limit+10, MaxListLimit)})
	if err != nil {
		return PromptBlock{}, fmt.Errorf("read memories for the prompt: %w", err)
	}
	// An intention no longer current (past its TTL, a day past due) is no
	// longer the agent's business, as in recall; a line that says what a
	// stronger one says (a fact and its profile row) is given once.
	now, said := s.now(), map[string]bool{}
	var rows []Memory
	for _, m := range read {
		key := NormalizeText(m.Content)
		if len(rows) == limit || said[key] || m.Layer == LayerIntention && !s.intentionCurrent(m, now) {
			continue
		}
		said[key] = true
		rows = append(rows, m)
	}
	out := PromptBlock{Threshold: th, Memories: rows}
	if len(rows) == 0 {
		return out, nil
	}
	var b strings.Builder
	b.WriteString(PromptBlockHeader)
	for _, m := range rows {
		category := m.Category
		if category == "" {
			category = CategoryFact
		}
		b.WriteString("\n- (" + oneLineText(category, maxCategoryLen) + ") " + oneLineText(m.Content, promptLineBytes))
	}
	out.Text = b.String()
	out.Bytes = len(out.Text)
	return out, nil
}

// oneLineText joins s's lines and spaces and cuts it at n bytes.
func oneLineText(s string, n int) string {
	return CutText(strings.Join(strings.Fields(s), " "), n)
}
