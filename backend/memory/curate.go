package memory

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Limits on curation input.
const (
	maxReasonLen   = 1000
	maxCategoryLen = 64
	minForgetText  = 3
	// minForgetContains keeps a short text from retiring every row that
	// happens to contain it (forgetting "the").
	minForgetContains = 8
)

// EditInput changes a memory by hand. Nil fields are left alone.
type EditInput struct {
	Content  *string
	Category *string
	Strength *float64
	// IfContent: change it only while its text is this (see Update).
	IfContent *string
}

// Edit changes a memory's content, category or strength. A content change
// re-embeds the row and keeps the old text in its history as "edited".
// Retired rows can be edited too; they stay retired.
func (s *Service) Edit(ctx context.Context, id string, in EditInput) (Memory, error) {
	if in.Content == nil && in.Category == nil && in.Strength == nil {
		return Memory{}, Errorf(EBADREQUEST, "nothing to change: give content, category or strength")
	}
	u := Update{At: s.now().UTC(), Category: in.Category, Strength: in.Strength, IfContent: in.IfContent}
	if in.Content != nil {
		c := *in.Content
		if strings.TrimSpace(c) == "" || !utf8.ValidString(c) {
			return Memory{}, Errorf(EINVALID, "content must be non-empty UTF-8 text")
		}
		v, err := s.embedOne(ctx, c, PurposeDocument)
		if err != nil {
			return Memory{}, err
		}
		u.Content, u.Vector = &c, &v
	}
	if in.Category != nil {
		c := strings.TrimSpace(*in.Category)
		if c == "" {
			return Memory{}, Errorf(EINVALID, "category must not be empty (fact, preference, goal, or any short label)")
		}
		if err := checkLabel("category", c); err != nil || len(c) > maxCategoryLen {
			return Memory{}, Errorf(EINVALID, "category must be at most %d bytes of plain text", maxCategoryLen)
		}
		u.Category = &c
	}
	if st := in.Strength; st != nil && (math.IsNaN(*st) || *st < 0 || *st > 1) {
		return Memory{}, Errorf(EINVALID, "strength must be between 0 and 1")
	}
	// The row as it was: its layer (a strength needs a curated one) and
	// its text (its twin follows an edit of it; see editTwin).
	var before Memory
	if in.Content != nil || in.Strength != nil {
		var err error
		if before, err = s.store.Get(ctx, strings.TrimSpace(id)); err != nil {
			return Memory{}, err
		}
		if in.Strength != nil && !before.Layer.Curated() {
			return Memory{}, errNoStrength(before.Layer)
		}
	}
	m, err := s.update(ctx, id, u)
	if err != nil || in.Content == nil {
		return m, err
	}
	return m, s.editTwin(ctx, before, *in.Content)
}

// editTwin gives a preference's other row (the L1 profile row of an L3
// fact, or the fact of a profile row) the text its twin was edited to,
// while it still says what the twin said before: the Atlas, recall's
// profile channel and the prompt block must not keep the old preference.
// A twin edited on its own since is left alone.
func (s *Service) editTwin(ctx context.Context, before Memory, text string) error {
	twin := before.Metadata[MetaMirror]
	if twin == "" {
		twin = before.Metadata[MetaMirrorOf]
	}
	if twin == "" || text == before.Content {
		return nil
	}
	v, err := s.embedOne(ctx, text, PurposeDocument)
	if err != nil {
		return err
	}
	was := before.Content
	_, err = s.update(ctx, twin, Update{At: s.now().UTC(), Content: &text, Vector: &v, IfContent: &was})
	switch ErrorCode(err) {
	case "", ESTALE, ENOTFOUND: // done, or the twin says something else now, or is gone
		return nil
	}
	return fmt.Errorf("the edit is saved, but the preference's other row still says the old text: %w", err)
}

// update writes a checked change to a memory, its vector to the index,
// and tells the listeners.
func (s *Service) update(ctx context.Context, id string, u Update) (Memory, error) {
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	if u.Vector != nil {
		v, err := s.currentVector(ctx, *u.Vector, *u.Content)
		if err != nil {
			return Memory{}, err
		}
		u.Vector = &v
	}
	m, err := s.store.Update(ctx, strings.TrimSpace(id), u)
	if err != nil {
		return Memory{}, err
	}
	if u.Vector != nil && m.Live() {
		s.indexRow(m, *u.Vector)
	}
	s.publish("memory.edited", m)
	return m, nil
}

// RetireInput says how and why a memory is retired.
type RetireInput struct {
	How    string // "" means dropped
	Reason string
	By     string // the id of the row that replaces it, if any
}

// Retire hides a live memory from recall without deleting it. It records
// how, why and by what, and can be undone with Restore. Retiring a retired
// row is an ECONFLICT error.
func (s *Service) Retire(ctx context.Context, id string, in RetireInput) (Memory, error) {
	how, err := ParseRetireHow(in.How, RetiredDropped)
	if err != nil {
		return Memory{}, err
	}
	if len(in.Reason) > maxReasonLen || !utf8.ValidString(in.Reason) {
		return Memory{}, Errorf(EINVALID, "reason must be at most %d bytes of UTF-8", maxReasonLen)
	}
	by := strings.TrimSpace(in.By)
	if by != "" && by == strings.TrimSpace(id) {
		return Memory{}, Errorf(EINVALID, "a memory cannot be replaced by itself")
	}
	return s.retire(ctx, strings.TrimSpace(id), Retirement{How: how, Reason: in.Reason, By: by, At: s.now().UTC()})
}

// checkReplacer refuses a replacing memory that could not stand in for
// row id: one that does not exist, is retired itself (two rows replaced
// by each other would leave neither), or belongs to someone else. A
// retired row shows its replacer, so that must be the same person's, and
// an agent's row may be replaced by the agent's own or the person's own
// (no agent), never by another agent's. (Consolidation alone does that:
// the graph is the person's, so a job one agent learns retires another
// agent's row of the job it ended, in favour of the new job's row.)
func (s *Service) checkReplacer(ctx context.Context, id, by string) error {
	rep, err := s.store.Get(ctx, by)
	if err != nil {
		return Errorf(EINVALID, "replacing memory %q does not exist", by)
	}
	m, err := s.store.Get(ctx, id)
	if err != nil {
		return err // the retire says the row is unknown
	}
	if !rep.Live() {
		return Errorf(EINVALID, "replacing memory %q is retired itself; restore it first", by)
	}
	owner := Scope{UserIDs: s.cfg.Aliases.Expand(m.Owner.UserID), AgentID: m.Owner.AgentID, WithShared: true}
	if !owner.Covers(rep.Owner) {
		return Errorf(EINVALID, "replacing memory %q is not the same person's (or is another agent's)", by)
	}
	return nil
}

// retire retires row id as r says. A replacing row (r.By) is checked
// under the same lock as the retirement, so it cannot be retired (or
// deleted) between the check and the write by any of the service's
// writes.
func (s *Service) retire(ctx context.Context, id string, r Retirement) (Memory, error) {
	m, later, err := func() (Memory, reheld, error) {
		s.indexSync.Lock()
		defer s.indexSync.Unlock()
		if r.By != "" {
			if err := s.checkReplacer(ctx, id, r.By); err != nil {
				return Memory{}, reheld{}, err
			}
		}
		m, cas, err := s.store.Retire(ctx, id, r)
		if err != nil {
			return Memory{}, reheld{}, err
		}
		s.current().index.Remove(m.ID)
		s.publish("memory.retired", m)
		s.applyCascade(ctx, cas)
		return m, reheld{cas.Reheld, s.storeGen.Load()}, nil
	}()
	if err != nil {
		return Memory{}, err
	}
	s.writeReheldRows(ctx, later) // after the lock: a row is written as a pass writes one
	return m, nil
}

// Restore brings a retired memory back exactly as it was, and records that
// it did. Restoring a live row is an ECONFLICT error.
func (s *Service) Restore(ctx context.Context, id string) (Memory, error) {
	m, later, err := func() (Memory, reheld, error) {
		s.indexSync.Lock()
		defer s.indexSync.Unlock()
		m, cas, err := s.store.Restore(ctx, strings.TrimSpace(id), s.now().UTC())
		if err != nil {
			return Memory{}, reheld{}, err
		}
		s.reindexRestored(ctx, m)
		s.applyCascade(ctx, cas)
		return m, reheld{cas.Reheld, s.storeGen.Load()}, nil
	}()
	if err != nil {
		return Memory{}, err
	}
	s.writeReheldRows(ctx, later) // after the lock: a row is written as a pass writes one
	return m, nil
}

// reindexRestored puts a restored row's vector back in the index.
func (s *Service) reindexRestored(ctx context.Context, m Memory) {
	v, err := s.store.Vector(ctx, m.ID)
	switch {
	case ErrorCode(err) == ENOTFOUND:
		// It has none yet (an import without vectors): the re-embedding
		// makes it, as for any live row without one.
		s.kickReembed()
	case err != nil:
		s.indexFaults.Add(1)
	default:
		s.indexRow(m, v)
	}
	s.publish("memory.restored", m)
}

// applyCascade mirrors in the vector index (and to live views) the rows a
// store change retired or restored along with the ones it named. The
// caller holds indexSync.
func (s *Service) applyCascade(ctx context.Context, cas Cascade) {
	if len(cas.Retired) > 0 {
		s.current().index.Remove(cas.Retired...)
	}
	rows, err := s.store.GetMany(ctx, append(append([]string(nil), cas.Retired...), cas.Restored...))
	if err != nil {
		s.indexFaults.Add(int64(len(cas.Restored)))
		return
	}
	for _, id := range cas.Retired {
		if m, ok := rows[id]; ok {
			s.publish("memory.retired", m)
		}
	}
	for _, id := range cas.Restored {
		if m, ok := rows[id]; ok && m.Live() {
			s.reindexRestored(ctx, m)
		}
	}
}

// Delete removes one memory for good, from the store, the full-text index
// and the vector index, in one transaction. An unknown id is ENOTFOUND.
func (s *Service) Delete(ctx context.Context, id string) error {
	id = strings.TrimSpace(id)
	if id == "" {
		return Errorf(EBADREQUEST, "id required")
	}
	n, err := s.deleteWhere(ctx, DeleteFilter{IDs: []string{id}})
	if err != nil {
		return err
	}
	if n == 0 {
		return Errorf(ENOTFOUND, "memory %q not found", id)
	}
	return nil
}

func (s *Service) deleteWhere(ctx context.Context, f DeleteFilter) (int, error) {
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	if f.At.IsZero() {
		f.At = s.now().UTC()
	}
	ids, cas, err := s.store.Delete(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("delete memories: %w", err)
	}
	s.current().index.Remove(ids...)
	s.applyCascade(ctx, cas)
	if len(ids) > 0 {
		s.events.Publish(Event{Type: "memory.deleted", At: s.now().UTC(), Data: map[string]any{"ids": ids}})
	}
	return len(ids), nil
}

// ForgetInput retires memories by their text: what an agent sends when the
// user asks it to forget something (the Hermes memory tool's replace and
// remove are mirrored this way).
type ForgetInput struct {
	Text     string
	UserID   string
	AgentID  string
	Contains bool // match rows containing Text, not only rows equal to it
	// Source, when set, limits it to rows written with that source (the
	// Hermes plugin retires only the entries it mirrored).
	Source string
	Reason string
}

// Forget retires every live memory of the owner (its alias group; the
// default user when none is given) whose text equals Text (case and
// spacing ignored) or, with Contains, contains it. It is reversible: each
// row is retired as "forgotten" and can be restored.
func (s *Service) Forget(ctx context.Context, in ForgetInput) ([]Memory, error) {
	text := NormalizeText(in.Text)
	if text == "" {
		return nil, Errorf(EBADREQUEST, "text required")
	}
	if n := len([]rune(text)); n < minForgetText || (in.Contains && n < minForgetContains) {
		return nil, Errorf(EINVALID, "text must be at least %d characters (%d with contains)", minForgetText, minForgetContains)
	}
	if len(in.Reason) > maxReasonLen || !utf8.ValidString(in.Reason) {
		return nil, Errorf(EINVALID, "reason must be at most %d bytes of UTF-8", maxReasonLen)
	}
	reason := in.Reason
	if reason == "" {
		reason = "asked to forget"
	}
	user := strings.TrimSpace(in.UserID)
	if user == "" {
		user = DefaultUserID // as a write without a user: never every user's rows
	}
	scope, err := s.scope([]string{user}, in.AgentID)
	if err != nil {
		return nil, err
	}
	rows, err := s.store.FindByContent(ctx, scope, text, in.Contains)
	if err != nil {
		return nil, fmt.Errorf("find memories to forget: %w", err)
	}
	var ids []string
	for _, m := range rows {
		if in.Source == "" || m.Source == in.Source {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	// All of them in one transaction: a forget is never half done.
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	return s.retireMany(ctx, ids, Retirement{How: RetiredForgotten, Reason: reason, At: s.now().UTC()})
}

// retireMany retires the live rows of ids in one transaction and brings
// the index, the event stream and what follows the rows in line. The
// caller holds indexSync.
func (s *Service) retireMany(ctx context.Context, ids []string, r Retirement) ([]Memory, error) {
	out, cas, err := s.store.RetireMany(ctx, ids, r)
	if err != nil {
		return nil, err
	}
	for _, m := range out {
		s.current().index.Remove(m.ID)
		s.publish("memory.retired", m)
	}
	s.applyCascade(ctx, cas)
	return out, nil
}

// DeleteAllInput scopes a bulk hard delete.
type DeleteAllInput struct {
	ID      string
	Layer   string
	UserID  string
	AgentID string
	All     bool
}

// DeleteAll hard-deletes the rows in scope and returns how many. A call
// with no scope is refused (EBADREQUEST) unless All is set, and All needs
// the admin switch (EFORBIDDEN without it).
func (s *Service) DeleteAll(ctx context.Context, in DeleteAllInput) (int, error) {
	layer, err := ParseLayer(in.Layer)
	if err != nil {
		return 0, err
	}
	// A value no row can hold is a mistake, not a scope that deletes nothing.
	for field, v := range map[string]string{"id": in.ID, "user_id": in.UserID, "agent_id": in.AgentID} {
		if err := checkLabel(field, v); err != nil {
			return 0, err
		}
	}
	scope, err := s.scope([]string{in.UserID}, in.AgentID)
	if err != nil {
		return 0, err
	}
	f := DeleteFilter{Scope: scope}
	if id := strings.TrimSpace(in.ID); id != "" {
		f.IDs = []string{id}
	}
	if layer != "" {
		f.Layers = []Layer{layer}
	}
	if len(f.IDs) == 0 && len(f.Layers) == 0 && f.Scope.All() && f.Scope.AgentID == "" {
		if !in.All {
			return 0, Errorf(EBADREQUEST, "unscoped delete refused: give id, layer, user_id or agent_id (or all=true with HYATLAS_ADMIN=on)")
		}
		if !s.cfg.Admin {
			return 0, Errorf(EFORBIDDEN, "deleting the whole store needs HYATLAS_ADMIN=on")
		}
		f.Whole = true
	}
	return s.deleteWhere(ctx, f)
}
