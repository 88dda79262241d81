package memory

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Categories of generated L4 rows.
const (
	CategoryEpisode = "episode" // one stretch of work, summarised once it ended
	CategoryNow     = "now"     // the owner's current focus and open loops
)

const (
	episodeTextsMax = 200
	nowFactsMax     = 15
	// episodeRetry is the least time before an episode whose summary call
	// went out and came to nothing (the endpoint failed, or the summary
	// could not be embedded or stored) is asked for again.
	episodeRetry = 15 * time.Minute
)

// noteEpisode adds a committed write to its owner's episode. Failing here
// cannot lose the write (it is durable); the episode just misses it.
func (s *Service) noteEpisode(ctx context.Context, m Memory) {
	if s.xstore == nil || !s.cfg.Mode.UsesLLM() || s.cfg.Extraction.EpisodeGap <= 0 {
		return
	}
	_ = s.xstore.TouchEpisode(ctx, m.Owner, m.CreatedAt, s.cfg.Extraction.EpisodeGap)
}

// nowOwner names whose Now page a row goes into: the person (a user id's
// alias group) and the agent. A person writing under two ids of the group
// has one page, as they have one recall.
type nowOwner struct{ group, agent string }

func (s *Service) nowOwnerOf(o Owner) nowOwner {
	return nowOwner{group: groupKey(s.cfg.Aliases.Expand(o.UserID)), agent: o.AgentID}
}

// markNowDirty notes that an owner's Now page is out of date; the page is
// written under the owner o who wrote last.
func (s *Service) markNowDirty(o Owner) {
	if !s.cfg.Extraction.NowOff {
		s.nowDirty.Store(s.nowOwnerOf(o), o)
	}
}

// HousekeepResult says what one Housekeep pass did.
type HousekeepResult struct {
	Episodes int // episode summaries written
	NowPages int // Now pages rebuilt
}

// Housekeep writes the summaries of episodes that have ended (one call
// each) and rebuilds the Now page of owners whose memory changed, at most
// once every NowEvery per owner. It stops at the first provider error, and
// before its next call once extraction is paused; what it did not reach
// waits for the next pass.
func (s *Service) Housekeep(ctx context.Context) (HousekeepResult, error) {
	var res HousekeepResult
	if s.extractor == nil || !s.cfg.Mode.UsesLLM() || s.llmState() != LLMOK || s.cannotStore(ctx) {
		return res, nil
	}
	var epErr error
	if gap := s.cfg.Extraction.EpisodeGap; gap > 0 {
		res.Episodes, epErr = s.summarizeEpisodes(ctx, s.now().Add(-gap))
		if errors.Is(epErr, ErrProvider) || ctx.Err() != nil {
			return res, epErr
		}
	}
	if !s.cfg.Extraction.NowOff && !s.nowStaleChecked.Load() {
		if _, err := s.markStaleNowPages(ctx); err != nil {
			return res, errors.Join(epErr, err)
		}
		s.nowStaleChecked.Store(true) // once per start: from here the marks are kept as changes come
	}
	n, err := s.rebuildNowPages(ctx)
	res.NowPages = n
	return res, errors.Join(epErr, err)
}

// summarizeEpisodes summarises every ended episode. An episode of one
// write gets no summary (its facts already say it all), nor does one whose
// summary the model would not give (an unreadable or refused reply): it is
// marked summarised without one rather than asked for again. Any other
// failure (the endpoint, reading its writes, embedding or storing the
// summary) leaves the episode due, and one whose call went out is not
// asked for again before episodeRetry has passed.
func (s *Service) summarizeEpisodes(ctx context.Context, idleBefore time.Time) (int, error) {
	gen := s.generation()
	due, err := s.xstore.DueEpisodes(ctx, idleBefore)
	if err != nil {
		return 0, err
	}
	done := 0
	var skipped error
	for _, ep := range due {
		if s.pausedNow() {
			return done, skipped // paused during the pass: the rest wait for the resume
		}
		if t, ok := s.episodeTried.Load(ep.Seq); ok && s.now().Sub(t.(time.Time)) < episodeRetry {
			continue // its last call failed a short while ago
		}
		id, settled, err := s.summarizeEpisode(ctx, gen, ep)
		switch {
		case id != "": // marked with its summary, in the summary's transaction
			s.episodeTried.Delete(ep.Seq)
			done++
			continue
		case settled:
			skipped = errors.Join(skipped, err) // nil when it needs no summary
		case errors.Is(err, ErrStoreReplaced):
			s.episodeTried.Delete(ep.Seq) // the restored data is asked for at once
			return done, err
		case errors.Is(err, ErrProvider) || ctx.Err() != nil:
			return done, err // the endpoint is down: the episode waits
		default:
			// Its writes could not be read, or its summary not embedded or
			// stored: it stays due, and the ones after it are not held up.
			skipped = errors.Join(skipped, err)
			continue
		}
		if err := s.writeGen(gen, func() error { return s.xstore.SetEpisodeSummary(ctx, ep.Seq, "") }); err != nil {
			return done, fmt.Errorf("mark episode %d summarised: %w", ep.Seq, err)
		}
		s.episodeTried.Delete(ep.Seq)
	}
	return done, skipped
}

// summarizeEpisode writes the L4 summary of one episode. It returns the
// summary's id ("" when none was written) and whether the episode is
// settled without one: it needs none, or the model's reply to its call
// was unreadable or refused (err says which).
func (s *Service) summarizeEpisode(ctx context.Context, gen uint64, ep Episode) (string, bool, error) {
	if ep.Writes < 2 {
		return "", true, nil
	}
	// The newest writes, oldest first: the summary tells the episode in
	// order. Exactly the episode owner's: a person's own episode (no agent)
	// is not crowded out of the limit by their agents' writes.
	rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerRaw},
		Scope:       Scope{UserIDs: []string{ep.Owner.UserID}, AgentID: ep.Owner.AgentID, ExactAgent: true},
		CreatedFrom: ep.StartedAt, CreatedTo: ep.LastAt, Limit: episodeTextsMax})
	if err != nil {
		return "", false, fmt.Errorf("list episode %d: %w", ep.Seq, err)
	}
	var texts, ids []string
	for i := len(rows) - 1; i >= 0; i-- {
		if m := rows[i]; m.Owner == ep.Owner {
			texts, ids = append(texts, m.Content), append(ids, m.ID)
		}
	}
	if len(texts) < 2 {
		return "", true, nil
	}
	s.episodeTried.Store(ep.Seq, s.now()) // the call goes out
	text, err := s.extractor.Summarize(ctx, SummaryRequest{Kind: SummaryEpisode,
		Today: s.now().In(s.cfg.Extraction.Location), Owner: ep.Owner, Texts: texts})
	if err != nil {
		unreadable := errors.Is(err, ErrUnparseable) || errors.Is(err, ErrRejected)
		return "", unreadable, fmt.Errorf("summarise episode %d: %w", ep.Seq, err)
	}
	if text == "" {
		return "", true, nil
	}
	now := s.now().UTC()
	m := Memory{ID: NewID(now), Layer: LayerSummary, Content: text, Owner: ep.Owner, Category: CategoryEpisode,
		Strength: DefaultStrength, Source: sourceExtract, SourceIDs: ids, EventAt: ep.StartedAt,
		ValidTo: ep.LastAt, CreatedAt: now, UpdatedAt: now, Extraction: ExtractSkipped,
		Metadata: map[string]string{"writes": strconv.Itoa(len(ids))}}
	if err := s.insertGenerated(ctx, gen, Changes{Episode: ep.Seq}, m); err != nil {
		return "", false, fmt.Errorf("store the summary of episode %d: %w", ep.Seq, err)
	}
	return m.ID, false, nil
}

// rebuildNowPages rebuilds the Now page of each owner marked dirty whose
// page is older than NowEvery.
func (s *Service) rebuildNowPages(ctx context.Context) (int, error) {
	if s.cfg.Extraction.NowOff {
		return 0, nil
	}
	done := 0
	var firstErr error
	s.nowDirty.Range(func(_, v any) bool {
		if s.pausedNow() {
			return false // paused during the pass: the pages stay marked
		}
		o := v.(Owner)
		built, err := s.rebuildNow(ctx, o)
		if err != nil {
			firstErr = errors.Join(firstErr, err)
			return !errors.Is(err, ErrProvider) && ctx.Err() == nil
		}
		if built {
			done++
		}
		return true
	})
	return done, firstErr
}

// CurrentNow returns the owner's live Now page, if there is one; for an
// agent's recall, its own page before the person's.
func (s *Service) CurrentNow(ctx context.Context, scope Scope) (Memory, bool, error) {
	if scope.WithShared && scope.AgentID != "" {
		own := scope
		own.WithShared = false
		if m, ok, err := s.CurrentNow(ctx, own); ok || err != nil {
			return m, ok, err
		}
	}
	rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerSummary}, Category: CategoryNow,
		Scope: scope, Limit: 1})
	if err != nil || len(rows) == 0 {
		return Memory{}, false, err
	}
	return rows[0], true, nil
}

// nowScope is exactly the rows of o's person (every user id of the alias
// group) written with o's agent (with none: the person's own).
func (s *Service) nowScope(o Owner) Scope {
	return Scope{UserIDs: s.cfg.Aliases.Expand(o.UserID), AgentID: o.AgentID, ExactAgent: true}
}

// ownNowPages lists the live Now pages of o's person and agent (under any
// user id of the group), newest first.
func (s *Service) ownNowPages(ctx context.Context, o Owner) ([]Memory, error) {
	rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerSummary}, Category: CategoryNow,
		Scope: s.nowScope(o), Limit: 100})
	if err != nil {
		return nil, fmt.Errorf("read Now pages: %w", err)
	}
	own := rows[:0]
	for _, m := range rows {
		if m.Owner.AgentID == o.AgentID {
			own = append(own, m)
		}
	}
	return own, nil
}

// rebuildNow writes the Now page of o's person and agent from their open
// intentions and newest facts (under every user id of the alias group),
// retiring the previous pages as replaced. An unreadable or refused reply
// leaves the page as it is until the next change; the endpoint failing,
// or the page failing to be stored, leaves it marked for a later pass.
//
// At most one call goes out per NowEvery for an owner, failed or not: the
// wait runs from the later of the newest page and the last call asked
// (a failed call leaves no page, and would otherwise be asked again on
// every pass).
func (s *Service) rebuildNow(ctx context.Context, o Owner) (bool, error) {
	// Exactly this agent's rows: the person's own page (no agent) never
	// holds what their agents were told.
	scope := s.nowScope(o)
	key := s.nowOwnerOf(o)
	gen := s.generation()
	prev, err := s.ownNowPages(ctx, o)
	if err != nil {
		return false, err
	}
	var last time.Time
	if t, ok := s.nowTried.Load(key); ok {
		last = t.(time.Time)
	}
	if len(prev) > 0 && prev[0].CreatedAt.After(last) {
		last = prev[0].CreatedAt
	}
	if !last.IsZero() && s.now().Sub(last) < s.cfg.Extraction.NowEvery {
		return false, nil // too soon: stays dirty for a later pass
	}
	s.nowDirty.Delete(key) // a write after this marks it again; one before is read below
	var texts []string
	intents, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerIntention}, Scope: scope, Limit: openIntentsMax})
	if err != nil {
		s.nowDirty.LoadOrStore(key, o)
		return false, fmt.Errorf("list intentions: %w", err)
	}
	for _, m := range s.currentIntentions(intents, s.now()) { // as recall and the prompt block
		texts = append(texts, "Open goal: "+m.Content+dueText(m.DueAt))
	}
	facts, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerFact}, Scope: scope, Limit: nowFactsMax})
	if err != nil {
		s.nowDirty.LoadOrStore(key, o)
		return false, fmt.Errorf("list facts: %w", err)
	}
	for _, m := range facts {
		texts = append(texts, m.EventAt.Format("2006-01-02")+": "+m.Content)
	}
	if len(texts) == 0 {
		return false, nil
	}
	s.nowTried.Store(key, s.now()) // the call goes out: the next waits NowEvery, whatever it answers
	text, err := s.extractor.Summarize(ctx, SummaryRequest{Kind: SummaryNow,
		Today: s.now().In(s.cfg.Extraction.Location), Owner: o, Texts: texts})
	if err != nil {
		if errors.Is(err, ErrProvider) || ctx.Err() != nil {
			s.nowDirty.LoadOrStore(key, o) // the endpoint is down: try again later
		}
		return false, fmt.Errorf("build Now page: %w", err)
	}
	if text == "" {
		return false, nil
	}
	now := s.now().UTC()
	m := Memory{ID: NewID(now), Layer: LayerSummary, Content: text, Owner: o, Category: CategoryNow,
		Strength: DefaultStrength, Source: sourceExtract, EventAt: now, CreatedAt: now, UpdatedAt: now,
		Extraction: ExtractSkipped}
	var c Changes
	for _, p := range prev {
		c.Retire = append(c.Retire, RowRetirement{ID: p.ID, Retirement: Retirement{How: RetiredReplaced, By: m.ID, At: now}})
	}
	if err := s.insertGenerated(ctx, gen, c, m); err != nil {
		// Not stored (not embedded, not saved): the page is built again,
		// after NowEvery; one built from the data before a restore is
		// built again on the new at once.
		s.nowDirty.LoadOrStore(key, o)
		if errors.Is(err, ErrStoreReplaced) {
			s.nowTried.Delete(key)
		}
		return false, err
	}
	return true, nil
}

func dueText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " (due " + t.Format("2006-01-02") + ")"
}

// insertGenerated embeds and commits a generated row with c, unless a
// restore replaced the store since gen, when its sources were read.
func (s *Service) insertGenerated(ctx context.Context, gen uint64, c Changes, m Memory) error {
	v, err := s.embedOne(ctx, m.Content, PurposeDocument)
	if err != nil {
		return err
	}
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	if err := s.checkGen(gen); err != nil {
		return err
	}
	if v, err = s.currentVector(ctx, v, m.Content); err != nil {
		return err
	}
	c.Insert = append(c.Insert, NewRow{Memory: m, Vector: v})
	cas, err := s.xstore.Apply(ctx, c)
	if err != nil {
		return fmt.Errorf("store %s row: %w", m.Category, err)
	}
	s.applyToIndex(c)
	s.applyCascade(ctx, cas)
	return nil
}

// EndSession closes the owner's open episode at once, as an agent's session
// ended (Hermes's on_session_end): its summary is written by the next
// housekeeping pass instead of after the idle gap. false when the owner had
// no open episode, when session is given and the episode holds no write of
// it (an unknown session ends nothing), or episodes are not kept (no LLM,
// or the gap is 0).
func (s *Service) EndSession(ctx context.Context, o Owner, session string) (bool, error) {
	owner, err := cleanOwner(o)
	if err != nil {
		return false, err
	}
	if s.xstore == nil || !s.cfg.Mode.UsesLLM() || s.cfg.Extraction.EpisodeGap <= 0 {
		return false, nil
	}
	closed, err := s.xstore.CloseEpisode(ctx, owner, strings.TrimSpace(session))
	if err != nil {
		return false, fmt.Errorf("end session: %w", err)
	}
	return closed, nil
}
