package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Extraction limits.
const (
	// MaxExtractTries is how many unreadable replies a raw row may get
	// before it is marked failed and left alone.
	MaxExtractTries = 3
	relatedFactsMax = 5
	openIntentsMax  = 10
	offeredPagesMax = 10
	entityScanMax   = 500
)

// ErrNotReady says extraction cannot run now: no extractor, no endpoint or
// no key. The row stays queued. It wraps ErrProvider.
var ErrNotReady = fmt.Errorf("%w: extraction is not configured or has no key", ErrProvider)

// ExtractOne extracts one queued raw row: it gathers what the model needs
// (today's date, the owner's nearest live facts, open intentions, the
// entity pages the text names), makes one call, and promotes the reply in
// one transaction. It returns the row's status afterwards.
//
// A row that is not pending (done, failed, retired, not raw) is left as it
// is. On a provider error the row stays pending with the error noted and
// the error is returned (wrapping ErrProvider), so a caller draining a
// queue can stop. An unreadable reply counts a try; after MaxExtractTries
// the row is marked failed. A row edited while the model read its old text
// gets nothing of the old text: the new one is extracted. Two callers
// asking for the same row at once do the work once; the second waits for
// the first's outcome (and does the work itself when a snapshot restore
// made the first's stale).
func (s *Service) ExtractOne(ctx context.Context, id string) (ExtractionStatus, error) {
	if s.cannotStore(ctx) {
		return StatusPending, nil // no paid call whose answer could not be kept
	}
	mine := &inflight{done: make(chan struct{}), gen: s.generation()}
	for {
		v, busy := s.extracting.LoadOrStore(id, mine)
		if !busy {
			break
		}
		running := v.(*inflight)
		select { // another caller is on it: wait for its outcome
		case <-running.done:
		case <-ctx.Done():
			return StatusPending, nil
		}
		raw, err := s.store.Get(ctx, id)
		if err != nil {
			return "", fmt.Errorf("read row %s: %w", id, err)
		}
		// A restore while it ran made its work stale; a row the restored
		// data has pending is extracted here, not left for a catch-up run.
		if s.generation() == running.gen || raw.Extraction != ExtractPending {
			return statusOf(raw), nil
		}
		mine.gen = s.generation()
	}
	defer func() {
		s.extracting.Delete(id)
		close(mine.done)
	}()

	// A text edited while the model read the old one is extracted again,
	// the new text this time (a few times at most: an edit each time is
	// left pending for the next run).
	for range maxEditedRuns - 1 {
		st, edited, err := s.extractRow(ctx, id, mine.gen)
		if !edited {
			return st, err
		}
	}
	st, _, err := s.extractRow(ctx, id, mine.gen)
	return st, err
}

// maxEditedRuns bounds the extractions of one ExtractOne call whose row
// is edited while each runs.
const maxEditedRuns = 3

// extractRow is one extraction of the raw row id, in store generation gen
// (see ExtractOne). edited says the row's text changed while the model
// read it: nothing was promoted and the row is still pending.
func (s *Service) extractRow(ctx context.Context, id string, gen uint64) (st ExtractionStatus, edited bool, err error) {
	raw, err := s.store.Get(ctx, id)
	if err != nil {
		return "", false, fmt.Errorf("read row %s for extraction: %w", id, err)
	}
	if raw.Layer != LayerRaw || !raw.Live() || raw.Extraction != ExtractPending {
		return statusOf(raw), false, nil
	}
	if s.extractor == nil || s.llmState() != LLMOK {
		return StatusPending, false, ErrNotReady
	}
	// One extraction at a time per person: each must see the facts the
	// one before it promoted, or two could replace the same fact.
	unlock, err := s.lockOwner(ctx, raw.Owner)
	if err != nil {
		return StatusPending, false, fmt.Errorf("%w: %v", ErrProvider, err) // still pending; nothing was tried
	}
	defer unlock()
	req, err := s.extractRequest(ctx, raw)
	if err != nil {
		st, err := s.extractFailed(ctx, raw, err)
		return st, false, err
	}
	plan, err := s.extractor.Extract(ctx, req)
	if err != nil {
		st, err := s.extractFailed(ctx, raw, err)
		return st, false, err
	}
	plan = checkPlan(plan, req)
	created, err := s.promote(ctx, raw, gen, plan, req)
	if errors.Is(err, ErrStaleExtraction) || errors.Is(err, ErrStoreReplaced) {
		// Deleted, retired, extracted or edited meanwhile, or a snapshot
		// restored: nothing is promoted, and the row as it is now says
		// what is left (a restored row still pending is extracted again).
		now, gerr := s.store.Get(ctx, raw.ID)
		if gerr != nil {
			return StatusSkipped, false, nil
		}
		edited := now.Live() && now.Extraction == ExtractPending && now.Content != raw.Content && s.generation() == gen
		return statusOf(now), edited, nil
	}
	if err != nil {
		st, err := s.extractFailed(ctx, raw, err)
		return st, false, err
	}
	if s.cfg.Extraction.Reconcile && len(created) > 0 {
		// A failed second call leaves the facts as promoted; the
		// extraction itself is done.
		_ = s.reconcile(ctx, raw, gen, created)
	}
	s.lastExtractErr.Store(nil)
	s.events.Publish(Event{Type: "extract.done", At: s.now().UTC(), Data: map[string]any{
		"id": raw.ID, "created": len(created), "user_id": raw.Owner.UserID,
	}})
	return StatusDone, false, nil
}

// WritePipeline is the write path's health as the status reports it:
// "ok", or "degraded: " and why. Storage comes first: while the disk
// refuses writes (see StorageFault) nothing new can be kept at all. Then
// the error of the last extraction when it failed and none has succeeded
// since (the writes themselves are kept and queued either way). Waiting for
// a key is not a failure: the llm state says so.
func (s *Service) WritePipeline(ctx context.Context) string {
	if err := s.StorageFault(ctx); err != nil {
		return "degraded: " + ErrorMessage(err)
	}
	if msg := s.lastExtractErr.Load(); msg != nil {
		return "degraded: " + *msg
	}
	return "ok"
}

// storageRecheck is how often StorageFault tries the disk again while it
// refuses writes, so the status clears once space is freed even when no
// write comes.
const storageRecheck = 10 * time.Second

// cannotStore reports whether nothing can be stored now (StorageFault):
// the passes that write (extraction, episodes, consolidation, fading,
// compaction, re-embedding) then do nothing, and call no model whose
// answer could not be kept. They run again once the disk takes writes.
func (s *Service) cannotStore(ctx context.Context) bool {
	return s.store.WriteFault() != nil && s.StorageFault(ctx) != nil
}

// StorageFault is why writes cannot be stored now (a full disk, a data
// folder that may not be written), or nil. While there is a fault it
// probes the store again at most every storageRecheck.
func (s *Service) StorageFault(ctx context.Context) error {
	if s.store.WriteFault() == nil {
		return nil
	}
	now := s.now().UnixNano()
	if last := s.storageChecked.Load(); now-last >= int64(storageRecheck) && s.storageChecked.CompareAndSwap(last, now) {
		_ = s.store.Probe(ctx) // clears the fault when it commits
	}
	return s.store.WriteFault()
}

// defaultSyncWait bounds how long a write waits for its own extraction
// (sync mode): a slow or hung endpoint, or another extraction for the same
// person ahead of it, must not hold the agent's write call past the
// timeouts clients use.
const defaultSyncWait = 25 * time.Second

// extractNow runs the extraction of a write the caller waits for (sync
// mode), at most the sync wait, and turns its outcome into the write's status. The write itself
// is already durable; nothing here can lose it.
func (s *Service) extractNow(ctx context.Context, id string) ExtractionStatus {
	limit := s.cfg.Extraction.SyncWait
	if limit <= 0 {
		limit = defaultSyncWait
	}
	wait, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	st, err := s.ExtractOne(wait, id)
	switch {
	case err == nil && st != StatusPending:
		return st // done or failed, even if only just in time
	case errors.Is(wait.Err(), context.DeadlineExceeded) && ctx.Err() == nil, ctx.Err() != nil:
		// The caller has waited long enough, or hung up: the write answers
		// pending and the workers extract it now (a call cut short counts
		// no try), not the next catch-up run minutes later.
		s.enqueue(id)
		return StatusPending
	case err != nil:
		// Provider errors and store trouble alike leave the row queued.
		return StatusPending
	}
	return st
}

// extractFailed records a failed extraction. Provider errors (and a
// cancelled call) leave the row pending for the next run; anything else
// (an unreadable or refused reply, a failure gathering the context or
// committing the result) counts a try, so one bad row can never hold up
// the queue: after MaxExtractTries it is marked failed.
func (s *Service) extractFailed(ctx context.Context, raw Memory, cause error) (ExtractionStatus, error) {
	msg := CutText(cause.Error(), 500)
	s.lastExtractErr.Store(&msg)
	if errors.Is(cause, ErrProvider) || ctx.Err() != nil {
		// Record the reason with a fresh context: the caller's may be done.
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := s.xstore.SetExtraction(wctx, raw.ID, ExtractPending, raw.ExtractTries, msg); err != nil {
			return "", fmt.Errorf("note extraction error on %s: %w", raw.ID, err)
		}
		if ctx.Err() != nil {
			return StatusPending, fmt.Errorf("%w: %v", ErrProvider, ctx.Err())
		}
		return StatusPending, cause
	}
	tries := raw.ExtractTries + 1
	state, status := ExtractPending, StatusPending
	if tries >= MaxExtractTries {
		state, status = ExtractFailed, StatusFailed
	}
	if err := s.xstore.SetExtraction(ctx, raw.ID, state, tries, msg); err != nil {
		return "", fmt.Errorf("note extraction error on %s: %w", raw.ID, err)
	}
	if state == ExtractFailed {
		s.events.Publish(Event{Type: "extract.failed", At: s.now().UTC(), Data: map[string]any{
			"id": raw.ID, "error": msg,
		}})
	}
	return status, nil
}

// inflight is an extraction in progress: done closes when it ends; gen is
// the store generation it works on.
type inflight struct {
	done chan struct{}
	gen  uint64
}

// statusOf is the extraction status a raw row reports.
func statusOf(m Memory) ExtractionStatus {
	switch m.Extraction {
	case ExtractDone:
		return StatusDone
	case ExtractFailed:
		return StatusFailed
	case ExtractPending:
		return StatusPending
	default:
		return StatusSkipped
	}
}

// lockOwner serialises extraction for a person: it locks every user id in
// the writer's alias scope, in sorted order (so two scopes that overlap,
// as with groups "a,b;b,c", always share a lock and never deadlock).
//
// Waiting for a lock ends with ctx (a write that waits for its extraction
// gives up after its sync wait, not after the extraction before it): the
// locks taken so far are released and ctx's error returned.
func (s *Service) lockOwner(ctx context.Context, o Owner) (func(), error) {
	ids := s.cfg.Aliases.Expand(o.UserID) // sorted
	locks := make([]chan struct{}, 0, len(ids))
	unlock := func() {
		for i := len(locks) - 1; i >= 0; i-- {
			<-locks[i]
		}
	}
	for _, id := range ids {
		l, _ := s.ownerLocks.LoadOrStore(id, make(chan struct{}, 1))
		select {
		case l.(chan struct{}) <- struct{}{}:
			locks = append(locks, l.(chan struct{}))
		case <-ctx.Done():
			unlock()
			return nil, fmt.Errorf("waiting for another extraction for %s: %w", o.UserID, ctx.Err())
		}
	}
	return unlock, nil
}

// ownerScope is the scope extraction works in for facts and intentions:
// the write's user and the user's aliases and, for an agent's write, that
// agent's rows and the person's own (no agent), as the agent recalls them;
// the person's own write sees every agent's. What a write may retire is
// narrower (see promotion.mayRetire): an agent's write never retires
// another agent's fact nor the person's own, and is never shown another
// agent's.
func (s *Service) ownerScope(o Owner) Scope {
	if o.AgentID == "" {
		return Scope{UserIDs: s.cfg.Aliases.Expand(o.UserID)}
	}
	return Scope{UserIDs: s.cfg.Aliases.Expand(o.UserID), AgentID: o.AgentID, WithShared: true}
}

// personScope is the scope of the person's entity pages: every agent's,
// one page per thing a person knows (the graph's nodes are the person's).
func (s *Service) personScope(o Owner) Scope {
	return Scope{UserIDs: s.cfg.Aliases.Expand(o.UserID)}
}

// extractRequest gathers what one extraction call is shown.
func (s *Service) extractRequest(ctx context.Context, raw Memory) (ExtractRequest, error) {
	scope := s.ownerScope(raw.Owner)
	req := ExtractRequest{Text: raw.Content, Today: s.now().In(s.cfg.Extraction.Location), Owner: raw.Owner}
	related, err := s.similarLive(ctx, raw.ID, raw.Content, []Layer{LayerFact}, scope, relatedFactsMax)
	if err != nil {
		return ExtractRequest{}, err
	}
	for _, m := range related {
		if m.Category == CategoryExperience {
			continue
		}
		req.RelatedFacts = append(req.RelatedFacts, RelatedFact{ID: m.ID, Text: m.Content, EventAt: m.EventAt})
	}
	intents, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerIntention}, Scope: scope, Limit: openIntentsMax})
	if err != nil {
		return ExtractRequest{}, fmt.Errorf("list open intentions: %w", err)
	}
	// One no longer current is not offered: the goal said again is a new
	// intention, as promotion writes it (see intentions).
	for _, m := range s.currentIntentions(intents, s.now()) {
		req.OpenIntentions = append(req.OpenIntentions, RelatedIntention{ID: m.ID, Goal: m.Content, DueAt: m.DueAt})
	}
	pages, err := s.entityPages(ctx, s.personScope(raw.Owner))
	if err != nil {
		return ExtractRequest{}, err
	}
	// Only pages the write itself names: recalled text an agent injected
	// is not the write's, and is never sent because of it.
	lower := strings.ToLower(CleanText(raw.Content))
	for _, p := range pages {
		if len(req.Entities) < offeredPagesMax && p.Name != "" && containsWord(lower, strings.ToLower(p.Name)) {
			req.Entities = append(req.Entities, p)
		}
	}
	return req, nil
}

// similarLive returns live rows of layers in scope whose vector is at least
// RelatedMin similar to the vector of row id (or of text, when the row has
// no vector of the embedder in use), best first, at most k.
func (s *Service) similarLive(ctx context.Context, id, text string, layers []Layer, scope Scope, k int) ([]Memory, error) {
	hits, err := s.similarHits(ctx, id, text, layers, scope, k)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	rows, err := s.store.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("read similar rows: %w", err)
	}
	out := make([]Memory, 0, len(ids))
	for _, h := range hits {
		if m, ok := rows[h.ID]; ok && m.Live() && scope.Holds(m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// similarHits is similarLive's vector search.
func (s *Service) similarHits(ctx context.Context, id, text string, layers []Layer, scope Scope, k int) ([]VectorHit, error) {
	cur := s.acquire()
	defer cur.done()
	q, ok := cur.index.Vector(id)
	if !ok {
		v, err := embedWith(ctx, cur.embedder, text, PurposeDocument)
		if err != nil {
			return nil, err
		}
		q = v.Values
	}
	hits, err := cur.index.Search(ctx, q, k+1, VectorFilter{Layers: layers, Scope: scope})
	if err != nil {
		return nil, fmt.Errorf("search similar rows: %w", err)
	}
	out := hits[:0]
	for _, h := range hits {
		if h.ID != id && h.Score >= s.cfg.Extraction.RelatedMin && len(out) < k {
			out = append(out, h)
		}
	}
	return out, nil
}

// containsWord reports whether name occurs in text (both lower-case) at
// word boundaries.
func containsWord(text, name string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(name)
		before := start == 0 || notWordRune(lastRune(text[:start]))
		after := end == len(text) || notWordRune(firstRune(text[end:]))
		if before && after {
			return true
		}
		from = start + 1
	}
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
