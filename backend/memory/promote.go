package memory

import (
	"context"
	"fmt"
	"slices"
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
	// settle, when set, is the last look at what others committed
	// meanwhile: commit runs it under the index lock, after the generation
	// check and before the changes are applied, so every commit of the
	// service is either wholly before it or sees what it adds.
	settle func(context.Context) error
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
	p.changes.Extracted, p.changes.ExtractedContent = raw.ID, raw.Content
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
	if p.settle != nil {
		if err := p.settle(ctx); err != nil {
			return err
		}
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
