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
// stop after the relation was learnt leaves it without one). A malformed relation (no names, one entity twice) is
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
	for _, e := range edges {
		in, ok := job.relationInput(e, now)
		if !ok {
			out.refused++
			continue
		}
		var rec GraphEdge
		var recited bool
		err := s.writeGen(job.gen, func() (err error) {
			rec, recited, err = s.learnRelation(ctx, in)
			return err
		})
		if errors.Is(err, ErrStoreReplaced) {
			return err
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		text := in.From + " " + in.Relation + " " + in.To
		if recited {
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
	}
	if len(p.rows) > 0 {
		if err := s.retireEndedRelations(ctx, job.person, p, now); err != nil {
			errs = append(errs, err)
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

// retireEndedRelations retires, as replaced, the L5 rows of relations
// that the new ones in p ended (an exclusive relation: Alice works at
// Globex ends Alice works at Acme). The graph keeps the ended relation's
// history; recall stops offering it as current. Restore brings it back.
// The graph is the person's, so scope covers every agent's rows: a job
// one agent learns ends the row another agent holds for the old one.
func (s *Service) retireEndedRelations(ctx context.Context, scope Scope, p *promotion, now time.Time) error {
	byRelation := map[string]string{} // new relation id -> its L5 row
	for _, m := range p.rows {
		byRelation[m.Metadata[MetaRelation]] = m.ID
	}
	d, err := s.graphStore.GraphChanges(ctx, scope, now.Add(-time.Millisecond), now)
	if err != nil {
		return fmt.Errorf("read ended relations: %w", err)
	}
	endedBy := map[string]string{} // ended relation id -> the L5 row that replaces it
	for _, e := range d.Ended {
		if row, ok := byRelation[e.ExpiredBy]; ok && e.ExpiredHow == ExpiredEnded {
			endedBy[e.ID] = row
		}
	}
	if len(endedBy) == 0 {
		return nil
	}
	ended := make([]string, 0, len(endedBy))
	for id := range endedBy {
		ended = append(ended, id)
	}
	rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerKnowledge}, Scope: scope, Category: categoryRelation,
		Relations: ended, Limit: MaxListLimit})
	if err != nil {
		return fmt.Errorf("read the rows of the ended relations: %w", err)
	}
	for _, m := range rows {
		if by, ok := endedBy[m.Metadata[MetaRelation]]; ok {
			p.retire(m.ID, RetiredReplaced, by, ReasonRelationEnded)
		}
	}
	return nil
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
