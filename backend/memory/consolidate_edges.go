package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// categoryRelation is the category of an L5 row that states a relation.
const categoryRelation = "relation"

// writeEdges learns the relations the plan proposes that are backed by
// facts of the cluster coming from at least EdgeMinTurns distinct turns
// (one turn is not corroboration). A relation's valid-from is the plan's,
// else the earliest event date of its facts. Each new relation is also
// written as a searchable L5 row ("alice works at globex" with the names
// as written); a relation already held only gains the evidence and is
// not counted (its row is written now if it has none: a failure or a
// stop after the relation was learnt leaves it without one). The rows of
// the relations the new ones end are retired as the rows commit (see
// retireEndedRows), and so is a row written for a relation ended before
// it commits. A malformed relation (no names, one entity twice) is
// ignored like any other guard.
func (s *Service) writeEdges(ctx context.Context, job *clusterJob, edges []PlannedEdge, now time.Time, out *clusterOutcome) error {
	if s.graphStore == nil || len(edges) == 0 {
		return nil
	}
	p := &promotion{s: s, gen: job.gen, raw: Memory{ID: "cluster " + job.cluster.ID, Owner: job.rowOwner}, now: now,
		scope: job.scope, retired: map[string]bool{}}
	// A relation rests on facts live now: the user may have retired,
	// edited or deleted one while the model was thinking.
	current, err := s.store.GetMany(ctx, job.order)
	if err != nil {
		return fmt.Errorf("read the cluster's facts again: %w", err)
	}
	job.gone = map[string]bool{}
	for _, id := range job.order {
		if m, ok := current[id]; !ok || !m.Live() || m.Content != job.facts[id].Content {
			job.gone[id] = true
		}
	}
	var errs []error
	ends := map[string]string{}       // relation a learn ended -> the relation that ended it
	pending := map[string]GraphEdge{} // relation of a row to write -> its record when learnt
	for _, e := range edges {
		in, ok := job.relationInput(e, now)
		if !ok {
			out.refused++
			continue
		}
		var l learnt
		err := s.writeGen(job.gen, func() (err error) {
			l, err = s.learnRelation(ctx, in)
			return err
		})
		if errors.Is(err, ErrStoreReplaced) {
			return err
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rec := l.rec
		for _, id := range l.ended {
			ends[id] = rec.ID
		}
		text := in.From + " " + in.Relation + " " + in.To
		if l.recited {
			// Held already; its row was written with it, unless that write
			// failed (or the app stopped) after the relation was learnt.
			written := slices.ContainsFunc(p.rows, func(m Memory) bool { return m.Metadata[MetaRelation] == rec.ID })
			if has, err := s.hasRelationRow(ctx, job.scope, rec.ID); err != nil || has || written {
				if err != nil {
					errs = append(errs, err)
				}
				continue
			}
		} else {
			out.edges++
		}
		if !rec.ValidTo.IsZero() && !rec.ValidTo.After(now) {
			// Learnt late, it ended already (where a later one began): the
			// graph keeps its history, recall does not offer it as true now.
			continue
		}
		m := p.newRow(LayerKnowledge, text, categoryRelation, in.ValidFrom)
		m.Source = sourceConsol
		m.SourceIDs = append(append([]string(nil), in.Facts...), in.Turns...)
		m.Metadata = map[string]string{MetaRelation: rec.ID, MetaTopic: job.cluster.ID}
		pending[rec.ID] = rec
	}
	if len(p.rows) > 0 || len(ends) > 0 {
		p.settle = func(ctx context.Context) error {
			return s.retireEndedRows(ctx, job.person, p, ends, pending)
		}
		if err := p.embed(ctx); err != nil {
			errs = append(errs, err)
		} else if err := s.commit(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("write relation rows: %w", err))
		}
	}
	return errors.Join(errs...)
}

// hasRelationRow reports whether the relation has an L5 row, live or
// retired (one retired by hand stays retired: it is not written again).
// A row an upgrade retired as resting on another agent's facts does not
// count: the agent's own facts stating the relation earn it a row.
func (s *Service) hasRelationRow(ctx context.Context, scope Scope, rel string) (bool, error) {
	rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerKnowledge}, Scope: scope, Category: categoryRelation,
		IncludeRetired: true, Relations: []string{rel}, Limit: MaxListLimit})
	if err != nil {
		return false, fmt.Errorf("read the rows of relation %s: %w", rel, err)
	}
	for _, m := range rows {
		if m.Metadata[MetaRelation] == rel && (m.Live() || m.RetireReason != ReasonOtherAgents) {
			return true, nil
		}
	}
	return false, nil
}

// retireEndedRows retires, as replaced because the relation ended
// (ReasonRelationEnded), the L5 rows of relations that a topic's new ones
// ended (an exclusive relation: Alice works at Globex ends Alice works at
// Acme). The graph keeps the ended relation's history; recall stops
// offering it as current; restore (or the relation reopening) brings the
// row back. The ended relations are the ones the learns reported (ends:
// ended relation -> the relation that ended it), never read from a time
// window, so a relation ended by a learn whose clock moved on is found.
//
// It is the promotion's settle step: it runs as p commits, under the index
// lock, so another topic of the pass (in parallel) either committed its
// rows before (they are found and retired) or commits them after, seeing
// the graph as it is now:
//
//   - the stored live rows of the relations in ends are retired;
//   - a row of p still to write (pending: its relation -> its record when
//     learnt) whose relation was ended since it was learnt, by a later
//     relation of this reply or of another topic, is written and retired
//     with it, as it would have been had it been written first.
//
// The graph is the person's, so scope covers every agent's rows: a job one
// agent learns ends the row another agent holds for the old one.
func (s *Service) retireEndedRows(ctx context.Context, scope Scope, p *promotion, ends map[string]string, pending map[string]GraphEdge) error {
	rowOf := map[string]string{} // relation -> its row in p
	for _, m := range p.rows {
		rowOf[m.Metadata[MetaRelation]] = m.ID
	}
	if len(ends) > 0 {
		ended := make([]string, 0, len(ends))
		for id := range ends {
			ended = append(ended, id)
		}
		slices.Sort(ended)
		rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerKnowledge}, Scope: scope, Category: categoryRelation,
			Relations: ended, Limit: MaxListLimit})
		if err != nil {
			return fmt.Errorf("read the rows of the ended relations: %w", err)
		}
		for _, m := range rows {
			if by, ok := ends[m.Metadata[MetaRelation]]; ok {
				p.retire(m.ID, RetiredReplaced, rowOf[by], ReasonRelationEnded)
			}
		}
	}
	ended, err := s.endedSince(ctx, scope, pending)
	if err != nil {
		return err
	}
	for _, m := range p.rows {
		if rel := m.Metadata[MetaRelation]; ended[rel] {
			p.retire(m.ID, RetiredReplaced, rowOf[ends[rel]], ReasonRelationEnded)
		}
	}
	return nil
}

// endedSince reports which of the relations learnt (by id, with the record
// each had when learnt) a later relation has ended since: held now with
// an end they did not have, or an earlier one. A relation no longer held
// (its facts retired meanwhile) is left to the rules that expired it.
func (s *Service) endedSince(ctx context.Context, scope Scope, learnt map[string]GraphEdge) (map[string]bool, error) {
	ended := map[string]bool{}
	subjects := map[string]bool{}
	for _, rec := range learnt {
		subjects[rec.From] = true
	}
	for subject := range subjects {
		_, held, _, err := s.graphStore.GraphAround(ctx, scope, subject)
		if ErrorCode(err) == ENOTFOUND {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the relations of entity %s again: %w", subject, err)
		}
		for _, h := range held {
			was, ok := learnt[h.ID]
			if ok && !h.ValidTo.IsZero() && (was.ValidTo.IsZero() || h.ValidTo.Before(was.ValidTo)) {
				ended[h.ID] = true
			}
		}
	}
	return ended, nil
}

// relationInput turns a planned edge into a relation to learn, or false
// when it fails a guard.
func (job *clusterJob) relationInput(e PlannedEdge, now time.Time) (RelationInput, bool) {
	var facts, turns []string
	validFrom := e.ValidFrom
	for _, f := range job.liveEvidenceOf(e.Evidence) {
		facts = append(facts, f.ID)
		turns = union(turns, f.SourceIDs)
		if e.ValidFrom.IsZero() && !f.EventAt.IsZero() && (validFrom.IsZero() || f.EventAt.Before(validFrom)) {
			validFrom = f.EventAt
		}
	}
	if len(turns) < EdgeMinTurns {
		return RelationInput{}, false
	}
	in := RelationInput{Owner: job.rowOwner, From: e.From, To: e.To, FromType: entityTypeOr(e.FromType),
		ToType: entityTypeOr(e.ToType), Relation: e.Relation, Exclusive: e.Exclusive, ValidFrom: validFrom,
		Facts: facts, Turns: turns, At: now}
	if cleanRelation(&in) != nil {
		return RelationInput{}, false
	}
	return in, true
}

// entityTypeOr reads a model's entity type; an unknown one is other.
func entityTypeOr(s string) EntityType {
	t, err := ParseEntityType(s)
	if err != nil {
		return EntityOther
	}
	return t
}

// reheld is what a retirement or a restore leaves to write after its
// lock: the relations it held again that have no L5 row (Cascade.Reheld),
// and the store generation it ran in.
type reheld struct {
	rels []string
	gen  uint64
}

// writeReheldRows writes the L5 row of each relation a retirement or a
// restore held again, true now, that has none (one learnt late, as
// already ended, never had one; see Cascade.Reheld), as a pass writes it
// for a relation it learns: "Alice works at Hooli" by its nodes' names,
// resting on its facts and turns, owned as the relation is. The change
// itself is committed by then, so a failure here is counted with the
// index faults, not returned; a pass that learns the relation again
// writes the row then (writeEdges).
func (s *Service) writeReheldRows(ctx context.Context, r reheld) {
	if len(r.rels) == 0 || s.graphStore == nil {
		return
	}
	if err := s.writeReheld(ctx, r); err != nil && !errors.Is(err, ErrStoreReplaced) {
		s.indexFaults.Add(1)
	}
}

func (s *Service) writeReheld(ctx context.Context, r reheld) error {
	nodes, edges, err := s.graphCopy.get(ctx, s.graphStore)
	if err != nil {
		return fmt.Errorf("read the relations held again: %w", err)
	}
	names := map[string]string{}
	for _, n := range nodes {
		names[n.ID] = n.Name
	}
	want := map[string]bool{}
	for _, id := range r.rels {
		want[id] = true
	}
	var held []GraphEdge
	for _, e := range edges {
		if want[e.ID] && e.Held() {
			held = append(held, e)
		}
	}
	if err := s.graphStore.GraphEvidence(ctx, held); err != nil {
		return fmt.Errorf("read the evidence of the relations held again: %w", err)
	}
	now := s.now().UTC()
	for _, rec := range held {
		text := names[rec.From] + " " + rec.Relation + " " + names[rec.To]
		scope := s.ownerScope(rec.Owner)
		// A pass (or another change) may have written it meanwhile.
		if has, err := s.hasRelationRow(ctx, scope, rec.ID); err != nil || has {
			if err != nil {
				return err
			}
			continue
		}
		p := &promotion{s: s, gen: r.gen, raw: Memory{ID: "relation " + rec.ID, Owner: rec.Owner}, now: now,
			scope: scope, retired: map[string]bool{}}
		m := p.newRow(LayerKnowledge, text, categoryRelation, rec.ValidFrom)
		m.Source = sourceConsol
		m.SourceIDs = append(append([]string(nil), rec.Facts...), rec.Turns...)
		m.Metadata = map[string]string{MetaRelation: rec.ID}
		if err := p.embed(ctx); err != nil {
			return err
		}
		if err := s.commit(ctx, p); err != nil {
			return fmt.Errorf("write the row of relation %s: %w", rec.ID, err)
		}
	}
	return nil
}
