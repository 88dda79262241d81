package store

import (
	"context"
	"database/sql"
	"sort"
	"time"

	"hyatlas/backend/memory"
)

// migrationHooks are the steps of a migration that need the domain's
// rules: each runs after its migration's SQL, in the same transaction.
var migrationHooks = map[int]func(ctx context.Context, tx *sql.Tx, at time.Time) error{
	9: endMergedExclusives,
}

// endMergedExclusives applies the exclusive rule to the relations that
// migration 9 brought onto one entity from several agents: of a subject's
// held exclusive relations of one kind to different objects, each ends
// where the next one (by when it began) began, as if they had been learnt
// in that order. The ended records are replaced by closed ones recorded
// at the migration.
func endMergedExclusives(ctx context.Context, tx *sql.Tx, at time.Time) error {
	recs, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges g
		WHERE expired_at IS NULL AND exclusive = 1 AND EXISTS (SELECT 1 FROM graph_edges o
			WHERE o.expired_at IS NULL AND o.exclusive = 1 AND o.src = g.src AND o.relation = g.relation
			AND o.dst <> g.dst)
		ORDER BY src, relation, seq`)
	if err != nil {
		return err
	}
	groups := map[string][]memory.GraphEdge{}
	var order []string
	for _, r := range recs {
		k := r.From + "\x00" + r.Relation
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		g := groups[k]
		sort.SliceStable(g, func(i, j int) bool { return g[i].Began().Before(g[j].Began()) })
		var held []memory.GraphEdge // as they stand now: an end given here counts for the next
		for _, r := range g {
			p := memory.PlanRehold(held, r, at)
			if err := endRecords(ctx, tx, p.End, at, r.ID); err != nil {
				return err
			}
			for _, e := range p.End {
				for i := range held {
					if held[i].ID == e.ID {
						held[i] = e
					}
				}
			}
			held = append(held, r)
		}
	}
	return nil
}
