package memory

import (
	"context"
	"errors"
	"fmt"
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
// not counted. A malformed relation (no names, one entity twice) is
// ignored like any other guard.
func (s *Service) writeEdges(ctx context.Context, job *clusterJob, edges []PlannedEdge, now time.Time, out *clusterOutcome) error {
	if s.graphStore == nil || len(edges) == 0 {
		return nil
	}
	p := &promotion{s: s, raw: Memory{ID: "cluster " + job.cluster.ID, Owner: job.rowOwner}, now: now,
		scope: job.scope, retired: map[string]bool{}}
	var errs []error
	for _, e := range edges {
		in, ok := job.relationInput(e, now)
		if !ok {
			continue
		}
		rec, recited, err := s.learnRelation(ctx, in)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if recited {
			continue
		}
		out.edges++
		m := p.newRow(LayerKnowledge, in.From+" "+in.Relation+" "+in.To, categoryRelation, in.ValidFrom)
		m.Source = sourceConsol
		m.SourceIDs = append(append([]string(nil), in.Facts...), in.Turns...)
		m.Metadata = map[string]string{MetaRelation: rec.ID, MetaTopic: job.cluster.ID}
	}
	if len(p.rows) > 0 {
		if err := p.embed(ctx); err != nil {
			errs = append(errs, err)
		} else if err := s.commit(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("write relation rows: %w", err))
		}
	}
	return errors.Join(errs...)
}

// relationInput turns a planned edge into a relation to learn, or false
// when it fails a guard.
func (job *clusterJob) relationInput(e PlannedEdge, now time.Time) (RelationInput, bool) {
	facts := job.evidenceOf(e.Evidence)
	var turns []string
	validFrom := e.ValidFrom
	for _, id := range facts {
		f := job.facts[id]
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
