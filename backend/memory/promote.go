package memory

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Metadata keys extraction writes.
const (
	MetaCount     = "count"     // how many times a fact was stated or an event happened
	MetaMirrorOf  = "mirror_of" // the L3 fact an L1 profile row mirrors
	MetaMirror    = "mirror"    // the L1 profile row that mirrors an L3 fact
	MetaEntity    = "entity"    // an entity page's JSON (name, kind, state, summary, history)
	MetaEntityID  = "entity_key"
	sourceExtract = "extraction"
	maxEntityHist = 50
)

// checkPlan drops what the Service did not offer or cannot use: ids of
// facts and intentions that were not shown to the model (a model that
// invents ids must not retire anything), empty texts and unknown labels.
func checkPlan(p ExtractPlan, req ExtractRequest) ExtractPlan {
	offeredFacts := map[string]bool{}
	for _, f := range req.RelatedFacts {
		offeredFacts[f.ID] = true
	}
	offeredIntents := map[string]bool{}
	for _, in := range req.OpenIntentions {
		offeredIntents[in.ID] = true
	}
	var out ExtractPlan
	for _, f := range p.Facts {
		f.Text = strings.TrimSpace(f.Text)
		if f.Text == "" {
			continue
		}
		if !knownLabel(f.Label) {
			f.Label = LabelProjectState
		}
		f.Replaces = slices.DeleteFunc(slices.Clone(f.Replaces), func(id string) bool { return !offeredFacts[id] })
		if !offeredFacts[f.Updates] {
			f.Updates = ""
		}
		if !ValidTime(f.EventAt) {
			f.EventAt = time.Time{}
		}
		out.Facts = append(out.Facts, f)
	}
	for _, in := range p.Intentions {
		if in.Goal = strings.TrimSpace(in.Goal); in.Goal != "" {
			if !ValidTime(in.DueAt) {
				in.DueAt = time.Time{}
			}
			out.Intentions = append(out.Intentions, in)
		}
	}
	for _, id := range p.IntentionsDone {
		if offeredIntents[id] && !slices.Contains(out.IntentionsDone, id) {
			out.IntentionsDone = append(out.IntentionsDone, id)
		}
	}
	for _, e := range p.Entities {
		if !entityKinds[e.Kind] {
			e.Kind = "other"
		}
		if e.Name = strings.TrimSpace(e.Name); e.Name != "" {
			out.Entities = append(out.Entities, e)
		}
	}
	for _, x := range p.Experiences {
		x.Task, x.Lesson = strings.TrimSpace(x.Task), strings.TrimSpace(x.Lesson)
		if x.Lesson != "" {
			out.Experiences = append(out.Experiences, x)
		}
	}
	return out
}

// entityKinds are the kinds of the reply contract.
var entityKinds = map[string]bool{"person": true, "project": true, "tool": true, "place": true,
	"organization": true, "concept": true, "other": true}

func knownLabel(l string) bool {
	switch l {
	case LabelUserPreferences, LabelProjectState, LabelTechnicalLesson, LabelDecision, LabelNegativeKnowledge:
		return true
	}
	return false
}

// promotion collects the rows and changes one extraction makes.
type promotion struct {
	s       *Service
	gen     uint64 // the store generation its inputs were read in
	raw     Memory
	now     time.Time
	scope   Scope
	rows    []Memory // new rows, in order; vectors are made in one batch
	vectors []Vector
	changes Changes
	retired map[string]bool
	// offered is the text of each fact the model was shown, by id.
	offered map[string]string
	// expect holds, for each row to retire, the text the plan was worked
	// out from; mirrorOf the fact whose retirement an L1 mirror's follows
	// (see dropStale). keepRestored also spares rows restored meanwhile.
	expect, mirrorOf map[string]string
	keepRestored     bool
	// credits: what a new row (by id) took from rows it retires, given
	// back if a retirement is dropped (see dropStale).
	credits map[string][]credit
}

func (p *promotion) newRow(layer Layer, text, category string, eventAt time.Time) *Memory {
	p.rows = append(p.rows, Memory{
		ID: NewID(p.now), Layer: layer, Content: text, Owner: p.raw.Owner, SessionID: p.raw.SessionID,
		Category: category, Strength: DefaultStrength, Source: sourceExtract, SourceIDs: []string{p.raw.ID},
		EventAt: eventAt, CreatedAt: p.now, UpdatedAt: p.now, Extraction: ExtractSkipped,
	})
	return &p.rows[len(p.rows)-1]
}

func (p *promotion) retire(id string, how RetireHow, by, reason string) {
	if p.retired[id] {
		return
	}
	p.retired[id] = true
	p.changes.Retire = append(p.changes.Retire, RowRetirement{ID: id,
		Retirement: Retirement{How: how, By: by, Reason: reason, At: p.now}})
}

// promote turns a checked plan into rows and commits them, with the raw
// row marked extracted, in one transaction. It returns the new L3 facts.
// req is what the model was shown; gen the store generation raw was read in.
func (s *Service) promote(ctx context.Context, raw Memory, gen uint64, plan ExtractPlan, req ExtractRequest) ([]Memory, error) {
	p := &promotion{s: s, gen: gen, raw: raw, now: s.now().UTC(), scope: s.ownerScope(raw.Owner), retired: map[string]bool{},
		offered: map[string]string{}}
	for _, f := range req.RelatedFacts {
		p.offered[f.ID] = f.Text
	}
	p.changes.Extracted = raw.ID
	if err := p.facts(ctx, plan.Facts); err != nil {
		return nil, err
	}
	for _, x := range plan.Experiences {
		text := x.Lesson
		if x.Task != "" {
			text = "Task: " + x.Task + "\nLesson: " + x.Lesson
		}
		p.newRow(LayerFact, text, CategoryExperience, raw.EventAt)
	}
	goals := map[string]string{}
	for _, in := range req.OpenIntentions {
		goals[in.ID] = in.Goal
	}
	for _, id := range plan.IntentionsDone {
		// One rewritten (or deleted) while the model was thinking, or
		// before the commit, stays: the model judged a goal that is no
		// longer there.
		m, err := s.store.Get(ctx, id)
		if ErrorCode(err) == ENOTFOUND || err == nil && (m.Content != goals[id] || !p.mayRetire(m)) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read intention %s: %w", id, err)
		}
		p.retireAsRead(m, RetiredDone, raw.ID, "the write it points to shows it done")
	}
	if err := p.intentions(ctx, plan.Intentions); err != nil {
		return nil, err
	}
	if err := p.entities(ctx, plan.Entities); err != nil {
		return nil, err
	}
	if err := p.embed(ctx); err != nil {
		return nil, err
	}
	if err := p.dedupe(ctx); err != nil {
		return nil, err
	}
	if err := s.commit(ctx, p); err != nil {
		return nil, err
	}
	var facts []Memory
	for _, m := range p.rows {
		if m.Layer == LayerFact && m.Category != CategoryExperience && !p.retired[m.ID] {
			facts = append(facts, m)
		}
	}
	if len(p.changes.Insert)+len(p.changes.Update)+len(p.changes.Retire) > 0 {
		s.markNowDirty(raw.Owner)
	}
	return facts, nil
}

// facts adds L3 facts, their L1 mirrors and the retirements they imply.
func (p *promotion) facts(ctx context.Context, facts []PlannedFact) error {
	for _, f := range facts {
		at := f.EventAt
		if at.IsZero() {
			at = p.raw.EventAt
		}
		m := p.newRow(LayerFact, f.Text, categoryOfLabel(f.Label), at)
		m.Metadata = map[string]string{MetaLabel: f.Label}
		id := m.ID
		var restatedFrom Memory // the fact this one states again, if any
		if f.Updates != "" {
			old, same, err := p.asOffered(ctx, f.Updates)
			if err != nil {
				return err
			}
			if same {
				p.credit(id, old.ID, countOf(old), m.Strength)
				m.Metadata[MetaCount] = strconv.Itoa(countOf(old) + 1)
				m.Strength = p.restated(old) // stated again: a reference
				if err := p.retireFact(ctx, old, RetiredUpdated, id); err != nil {
					return err
				}
				restatedFrom = old
			}
		}
		for _, ref := range f.Replaces {
			old, same, err := p.asOffered(ctx, ref)
			if err != nil {
				return err
			}
			if !same {
				continue
			}
			if err := p.retireFact(ctx, old, RetiredReplaced, id); err != nil {
				return err
			}
		}
		if f.Label == LabelUserPreferences {
			factStrength := m.Strength
			mirror := p.newRow(LayerProfile, f.Text, CategoryPreference, at)
			mirror.Metadata = map[string]string{MetaMirrorOf: id}
			p.rows[len(p.rows)-2].Metadata[MetaMirror] = mirror.ID // the fact (newRow may have moved it)
			if restatedFrom.ID != "" {
				if err := p.inheritMirror(ctx, len(p.rows)-1, restatedFrom, factStrength); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// asOffered reads an offered fact and reports whether it still holds the
// text the model was shown. One edited by hand (or deleted) while the
// model was thinking is left alone: the model judged a text that is no
// longer there, so the new fact stands beside it instead.
func (p *promotion) asOffered(ctx context.Context, id string) (Memory, bool, error) {
	m, err := p.s.store.Get(ctx, id)
	if ErrorCode(err) == ENOTFOUND {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("read offered fact %s: %w", id, err)
	}
	text, offered := p.offered[id]
	return m, offered && m.Content == text && p.mayRetire(m), nil
}

// mayRetire reports whether the write being promoted may retire row m: the
// person's own write (no agent) any of the person's rows; an agent's write
// only that agent's own, never another agent's nor the person's own (which
// every agent recalls, and would lose to a row it cannot see).
func (p *promotion) mayRetire(m Memory) bool {
	return p.raw.Owner.AgentID == "" || m.Owner.AgentID == p.raw.Owner.AgentID
}

// retireFact retires a fact and its L1 mirror in favour of row by.
func (p *promotion) retireFact(_ context.Context, old Memory, how RetireHow, by string) error {
	p.retireAsRead(old, how, by, "")
	return nil
}

// retireAsRead retires a fact as it was read (old), with its L1 mirror:
// if it changes before the commit, neither is retired (see dropStale).
func (p *promotion) retireAsRead(old Memory, how RetireHow, by, reason string) {
	if p.expect == nil {
		p.expect, p.mirrorOf = map[string]string{}, map[string]string{}
	}
	p.expect[old.ID] = old.Content
	p.retire(old.ID, how, by, reason)
	if mirror := old.Metadata[MetaMirror]; mirror != "" {
		p.mirrorOf[mirror] = old.ID
		p.retire(mirror, how, by, reason) // already retired or deleted: Apply skips it
	}
}

// restated is the strength of a fact that states old again: old's,
// raised by one reference's bump.
func (p *promotion) restated(old Memory) float64 {
	return clampStrength(old.Strength + p.s.cfg.Strength.Bump)
}

// inheritMirror gives the new L1 mirror p.rows[i] of a fact that states old
// again the strength it earned: at least the new fact's, and old's
// mirror's raised by a reference. The mirror is the row the Atlas shows
// and the prompt block reads, so a preference promoted there stays
// promoted when it is said again. Taken back if old's retirement is
// dropped (see giveBack).
func (p *promotion) inheritMirror(ctx context.Context, i int, old Memory, factStrength float64) error {
	before := p.rows[i].Strength
	s := max(before, factStrength)
	if id := old.Metadata[MetaMirror]; id != "" {
		mirror, err := p.s.store.Get(ctx, id)
		switch {
		case err == nil && mirror.Live():
			s = max(s, p.restated(mirror))
		case err != nil && ErrorCode(err) != ENOTFOUND:
			return fmt.Errorf("read the profile row of %s: %w", old.ID, err)
		}
	}
	if s != before {
		p.credit(p.rows[i].ID, old.ID, 0, before)
		p.rows[i].Strength = s
	}
	return nil
}

// countOf is how many times a fact has been stated (1 without a count).
func countOf(m Memory) int {
	if n, err := strconv.Atoi(m.Metadata[MetaCount]); err == nil && n > 0 {
		return n
	}
	return 1
}

// embed makes the new rows' vectors in one batch.
func (p *promotion) embed(ctx context.Context) error {
	if len(p.rows) == 0 {
		return nil
	}
	texts := make([]string, len(p.rows))
	for i, m := range p.rows {
		texts[i] = m.Content
	}
	cur := p.s.acquire()
	defer cur.done()
	vecs, err := embedDocuments(ctx, cur.embedder, texts)
	if err != nil {
		return fmt.Errorf("embed extracted rows: %w", err)
	}
	p.vectors = vecs
	return nil
}

var digitRuns = regexp.MustCompile(`[0-9]+`)

// sameDigits reports whether two texts hold the same set of digit runs, so
// "PR #101722" never folds into "PR #96783" however similar the words.
func sameDigits(a, b string) bool {
	set := func(s string) []string {
		d := digitRuns.FindAllString(s, -1)
		slices.Sort(d)
		return slices.Compact(d)
	}
	return slices.Equal(set(a), set(b))
}

// sameWords reports whether two texts share most of their content words
// (more than half of all the words either has: "likes tea" and "likes
// coffee" share half): an embedder's cosine alone
// calls two short sentences of one shape the same ("drinks tea in the
// afternoon", "drinks coffee every morning at home").
func sameWords(a, b string) bool {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range contentWords(s) {
			m[w] = true
		}
		return m
	}
	x, y := set(a), set(b)
	shared := 0
	for w := range x {
		if y[w] {
			shared++
		}
	}
	return 2*shared > len(x)+len(y)-shared
}

// dedupe retires, for each new fact, the owner's nearest live fact when it
// says the same (cosine at least DedupeScore, the same digit runs and
// most of the same words): the newest wording wins and the old one is
// retired as restated, with its mirrors. A memory the user added by hand
// stays.
func (p *promotion) dedupe(ctx context.Context) error {
	floor := p.s.cfg.Extraction.DedupeScore
	if floor <= 0 {
		return nil
	}
	cur := p.s.acquire()
	defer cur.done()
	for i, m := range p.rows {
		if m.Layer != LayerFact || m.Category == CategoryExperience || p.vectors[i].Embedder != cur.embedder.Info().ID {
			continue
		}
		hits, err := cur.index.Search(ctx, p.vectors[i].Values, 3, VectorFilter{Layers: []Layer{LayerFact}, Scope: p.scope})
		if err != nil {
			return fmt.Errorf("search near-duplicate facts: %w", err)
		}
		for _, h := range hits {
			if h.Score < floor || p.retired[h.ID] {
				continue
			}
			old, err := p.s.store.Get(ctx, h.ID)
			// What the user wrote by hand is never retired as restated by
			// a model's wording of it.
			if err != nil || !old.Live() || old.Category == CategoryExperience || old.Source == sourceManual || !p.mayRetire(old) ||
				!sameDigits(old.Content, m.Content) || !sameWords(old.Content, m.Content) {
				continue
			}
			if err := p.retireFact(ctx, old, RetiredRestated, m.ID); err != nil {
				return err
			}
			p.credit(m.ID, old.ID, 0, p.rows[i].Strength)
			p.rows[i].Strength = max(p.rows[i].Strength, p.restated(old))
			if mid := m.Metadata[MetaMirror]; mid != "" {
				for j := range p.rows {
					if p.rows[j].ID == mid {
						if err := p.inheritMirror(ctx, j, old, p.rows[i].Strength); err != nil {
							return err
						}
					}
				}
			}
			break
		}
	}
	return nil
}

// commit applies the promotion in one transaction and brings the index in
// line with it. It holds the index lock, so the embedder cannot change
// between the vectors' check and the index update, and a restore cannot
// come between its generation check and the write: a promotion worked out
// from the data before a restore is refused with ErrStoreReplaced.
func (s *Service) commit(ctx context.Context, p *promotion) error {
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	if err := s.checkGen(p.gen); err != nil {
		return err
	}
	if err := p.dropStale(ctx); err != nil {
		return err
	}
	for i, m := range p.rows {
		v, err := s.currentVector(ctx, p.vectors[i], m.Content)
		if err != nil {
			return err
		}
		p.vectors[i] = v
		p.changes.Insert = append(p.changes.Insert, NewRow{Memory: m, Vector: v})
	}
	for i, u := range p.changes.Update {
		if u.Update.Vector != nil {
			v, err := s.currentVector(ctx, *u.Update.Vector, *u.Update.Content)
			if err != nil {
				return err
			}
			p.changes.Update[i].Update.Vector = &v
		}
	}
	cas, err := s.xstore.Apply(ctx, p.changes)
	if err != nil {
		return fmt.Errorf("commit extraction of %s: %w", p.raw.ID, err)
	}
	s.applyToIndex(p.changes)
	s.applyCascade(ctx, cas)
	return nil
}

// applyToIndex mirrors committed Changes in the vector index.
func (s *Service) applyToIndex(c Changes) {
	for _, r := range c.Insert {
		s.indexRow(r.Memory, r.Vector)
		s.publish("memory.added", r.Memory)
	}
	for _, u := range c.Update {
		if u.Update.Vector != nil {
			if m, err := s.store.Get(context.Background(), u.ID); err == nil && m.Live() {
				s.indexRow(m, *u.Update.Vector)
			}
		}
	}
	ids := make([]string, 0, len(c.Retire))
	for _, r := range c.Retire {
		ids = append(ids, r.ID)
	}
	if len(ids) > 0 {
		s.current().index.Remove(ids...)
	}
}
