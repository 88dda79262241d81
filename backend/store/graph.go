package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hyatlas/backend/memory"
)

// The knowledge graph's tables and their rules are in
// migrations/0004_graph.sql; the rules for learning a relation are the
// domain's (memory.PlanRelation), applied here in one transaction.

const edgeColumns = `rel_id, user_id, agent_id, src, dst, relation, exclusive, valid_from, valid_to,
	learned_at, recorded_at, expired_at, expired_how, expired_by`

// LearnRelation creates the relation's nodes when they are new, runs plan
// on the subject's held records for the relation, applies the plan and
// adds the evidence that exists (kind by layer: raw rows are turns, the
// rest facts). It fails, changing nothing, when none of the evidence ids
// is a memory. It returns the relation's held record with its evidence.
func (s *Store) LearnRelation(ctx context.Context, in memory.RelationInput, plan func([]memory.GraphEdge, memory.GraphEdge) memory.GraphPlan) (memory.GraphEdge, error) {
	var out memory.GraphEdge
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		ids := append(append([]string(nil), in.Facts...), in.Turns...)
		kinds, err := evidenceKinds(ctx, tx, ids)
		if err != nil {
			return err
		}
		if len(kinds) == 0 {
			return memory.Errorf(memory.EINVALID, "none of the relation's evidence ids is a memory")
		}
		person := s.personOf(in.Owner.UserID)
		src, err := ensureNode(ctx, tx, in.Owner, person, in.From, in.FromType, in.At)
		if err != nil {
			return err
		}
		dst, err := ensureNode(ctx, tx, in.Owner, person, in.To, in.ToType, in.At)
		if err != nil {
			return err
		}
		held, err := heldOfSubject(ctx, tx, person, src, in.Relation)
		if err != nil {
			return err
		}
		p := plan(held, memory.GraphEdge{Owner: in.Owner, From: src, To: dst, Relation: in.Relation,
			Exclusive: in.Exclusive, ValidFrom: in.ValidFrom})
		rel := p.Recite
		if rel == "" {
			at := in.At
			if p.New.RecordedAt.After(at) { // the plan moved past what it follows
				at = p.New.RecordedAt
			}
			if err := endRecords(ctx, tx, p.End, at, p.New.ID); err != nil {
				return err
			}
			if err := insertRecord(ctx, tx, p.New); err != nil {
				return err
			}
			rel = p.New.ID
		}
		for id, kind := range kinds {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO graph_evidence (rel_id, memory_id, kind)
				VALUES (?, ?, ?)`, rel, id, kind); err != nil {
				return fmt.Errorf("add evidence: %w", err)
			}
		}
		got, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges
			WHERE rel_id = ? AND expired_at IS NULL`, rel)
		if err != nil {
			return err
		}
		if len(got) != 1 {
			return fmt.Errorf("relation %s: %d held records after learning it", rel, len(got))
		}
		out = got[0]
		return fillEvidence(ctx, tx, []*memory.GraphEdge{&out})
	})
	return out, err
}

// dropEvidence takes deleted memories out of every relation's evidence
// and expires the held records of relations left without support: one
// that rests on facts needs a live fact (as for a retirement), one that
// rests on turns alone needs a turn. The L5 rows of the relations it
// expires are retired.
func (s *Store) dropEvidence(ctx context.Context, tx *sql.Tx, ids []string, at time.Time, cas *memory.Cascade) error {
	var expired []string
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := make([]any, 0, len(chunk)+2)
		args = append(args, at.UnixMilli(), memory.ExpiredEvidenceDeleted)
		for _, id := range chunk {
			args = append(args, id)
		}
		in := placeholders(len(chunk))
		// The deleted rows are gone from memories; their evidence rows are
		// still here, so "rests on facts" counts the deleted facts too.
		rels, err := queryStrings(ctx, tx, `UPDATE graph_edges SET expired_at = ?, expired_how = ?
			WHERE expired_at IS NULL
			  AND rel_id IN (SELECT rel_id FROM graph_evidence WHERE memory_id IN (`+in+`))
			  AND NOT EXISTS (SELECT 1 FROM graph_evidence e JOIN memories m ON m.id = e.memory_id
			                  WHERE e.rel_id = graph_edges.rel_id AND e.kind = 'fact' AND m.retired_at IS NULL)
			  AND (EXISTS (SELECT 1 FROM graph_evidence e WHERE e.rel_id = graph_edges.rel_id AND e.kind = 'fact')
			       OR NOT EXISTS (SELECT 1 FROM graph_evidence e JOIN memories m ON m.id = e.memory_id
			                      WHERE e.rel_id = graph_edges.rel_id))
			RETURNING rel_id`, args...)
		if err != nil {
			return fmt.Errorf("expire relations without evidence: %w", err)
		}
		expired = append(expired, rels...)
		if _, err := tx.ExecContext(ctx, `DELETE FROM graph_evidence WHERE memory_id IN (`+in+`)`, args[2:]...); err != nil {
			return fmt.Errorf("drop evidence: %w", err)
		}
	}
	return s.retireRelationRows(ctx, tx, expired, memory.Retirement{How: memory.RetiredDropped,
		Reason: reasonEvidenceDeleted, At: at}, cas)
}

// dropGraph deletes the graph of the owners in scope (every owner for an
// empty scope): a delete of everything an owner has must not leave the
// names of the people and things in their life behind. An entity of
// theirs that another owner's records still touch (another agent of the
// person) passes to the owner of the oldest of those records, or, when
// that owner has a node of the name already, its records move there. A
// link to a page the delete took is cleared.
func dropGraph(ctx context.Context, tx *sql.Tx, scope memory.Scope) error {
	var w, nw where
	w.scope("", scope)
	nw.scope("n.", scope)
	for _, q := range []string{
		`DELETE FROM graph_evidence WHERE rel_id IN (SELECT rel_id FROM graph_edges` + w.sql() + `)`,
		`DELETE FROM graph_edges` + w.sql(),
	} {
		if _, err := tx.ExecContext(ctx, q, w.args...); err != nil {
			return fmt.Errorf("delete the graph: %w", err)
		}
	}
	if err := passUsedNodes(ctx, tx, nw); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM graph_nodes`+w.sql(), w.args...); err != nil {
		return fmt.Errorf("delete the graph: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE graph_nodes SET page_id = ''
		WHERE page_id <> '' AND NOT EXISTS (SELECT 1 FROM memories WHERE id = page_id)`); err != nil {
		return fmt.Errorf("unlink deleted pages: %w", err)
	}
	return nil
}

// passUsedNodes gives the nodes nw selects (on graph_nodes n) that records
// still touch to the owner of the oldest such record, or moves the records
// to that owner's own node of the name.
func passUsedNodes(ctx context.Context, tx *sql.Tx, nw where) error {
	type pass struct{ id, norm, user, agent string }
	var passes []pass
	rows, err := tx.QueryContext(ctx, `SELECT n.id, n.norm, g.user_id, g.agent_id FROM graph_nodes n
		JOIN graph_edges g ON g.seq = (SELECT min(seq) FROM graph_edges WHERE src = n.id OR dst = n.id)`+nw.sql(), nw.args...)
	if err != nil {
		return fmt.Errorf("find the entities others use: %w", err)
	}
	for rows.Next() {
		var p pass
		if err := rows.Scan(&p.id, &p.norm, &p.user, &p.agent); err != nil {
			rows.Close()
			return fmt.Errorf("find the entities others use: %w", err)
		}
		passes = append(passes, p)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("find the entities others use: %w", err)
	}
	for _, p := range passes {
		var other string
		err := tx.QueryRowContext(ctx, `SELECT id FROM graph_nodes WHERE user_id = ? AND agent_id = ? AND norm = ?`,
			p.user, p.agent, p.norm).Scan(&other)
		if errors.Is(err, sql.ErrNoRows) {
			if _, err := tx.ExecContext(ctx, `UPDATE graph_nodes SET user_id = ?, agent_id = ? WHERE id = ?`, p.user, p.agent, p.id); err != nil {
				return fmt.Errorf("pass entity %s: %w", p.id, err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("pass entity %s: %w", p.id, err)
		}
		for _, q := range []string{`UPDATE graph_edges SET src = ? WHERE src = ?`, `UPDATE graph_edges SET dst = ? WHERE dst = ?`} {
			if _, err := tx.ExecContext(ctx, q, other, p.id); err != nil {
				return fmt.Errorf("move the relations of entity %s: %w", p.id, err)
			}
		}
	}
	return nil
}

// evidenceKinds maps the ids that are memories to their evidence kind.
func evidenceKinds(ctx context.Context, tx *sql.Tx, ids []string) (map[string]string, error) {
	kinds := map[string]string{}
	for _, id := range ids {
		var layer string
		err := tx.QueryRowContext(ctx, `SELECT layer FROM memories WHERE id = ?`, id).Scan(&layer)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read evidence %s: %w", id, err)
		}
		kinds[id] = "fact"
		if memory.Layer(layer) == memory.LayerRaw {
			kinds[id] = "turn"
		}
	}
	return kinds, nil
}

// ensureNode returns the person's node for name (the oldest, into which
// any other of the name is merged: an alias group set late brings two),
// creating it for owner o when the person
// (the user ids given) has none. A new node, or one whose page is not a
// live memory, is linked to the person's live entity page of that name,
// if any. A node of type other takes a more specific type when one is
// given.
func ensureNode(ctx context.Context, tx *sql.Tx, o memory.Owner, person []string, name string, t memory.EntityType, at time.Time) (string, error) {
	norm := memory.NormalizeText(name)
	users := placeholders(len(person))
	id, have, page, found, err := mergeNamesakes(ctx, tx, person, norm)
	if err != nil {
		return "", fmt.Errorf("read node %q: %w", name, err)
	}
	if found && have == string(memory.EntityOther) && t != memory.EntityOther {
		if _, err := tx.ExecContext(ctx, `UPDATE graph_nodes SET type = ? WHERE id = ?`, string(t), id); err != nil {
			return "", fmt.Errorf("type node %s: %w", id, err)
		}
	}
	pageState := "none" // of the node found: none, live, retired or gone
	if found && page != "" {
		var live bool
		switch err := tx.QueryRowContext(ctx, `SELECT retired_at IS NULL FROM memories WHERE id = ?`, page).Scan(&live); {
		case errors.Is(err, sql.ErrNoRows):
			pageState = "gone"
		case err != nil:
			return "", fmt.Errorf("read the page of %q: %w", name, err)
		case live:
			return id, nil
		default:
			pageState = "retired"
		}
	}
	var now string
	err = tx.QueryRowContext(ctx, `SELECT id FROM memories WHERE layer = ? AND user_id IN (`+users+`)
		AND retired_at IS NULL AND json_extract(metadata, '$.`+memory.MetaEntityID+`') = ? ORDER BY seq DESC LIMIT 1`,
		append(append([]any{string(memory.LayerEntity)}, anys(person)...), norm)...).Scan(&now)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("find the page of %q: %w", name, err)
	}
	if found {
		// A retired page stays linked until another is live: restoring it
		// brings it back.
		if now != "" || pageState == "gone" {
			if _, err := tx.ExecContext(ctx, `UPDATE graph_nodes SET page_id = ? WHERE id = ?`, now, id); err != nil {
				return "", fmt.Errorf("link node %s to its page: %w", id, err)
			}
		}
		return id, nil
	}
	id = memory.NewGraphID("e", at)
	if _, err := tx.ExecContext(ctx, `INSERT INTO graph_nodes (id, user_id, agent_id, name, norm, type, page_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, o.UserID, o.AgentID, name, norm, string(t), now, at.UnixMilli()); err != nil {
		return "", fmt.Errorf("add node %q: %w", name, err)
	}
	return id, nil
}

// mergeNamesakes finds the person's nodes of a normalised name and makes
// them one: the oldest stays, takes the others' relations, and their page
// and type when it has none; the others go. It returns the one left.
func mergeNamesakes(ctx context.Context, tx *sql.Tx, person []string, norm string) (id, typ, page string, found bool, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, type, page_id FROM graph_nodes WHERE norm = ? AND user_id IN (`+
		placeholders(len(person))+`) ORDER BY created_at, seq`, append([]any{norm}, anys(person)...)...)
	if err != nil {
		return "", "", "", false, err
	}
	type node struct{ id, typ, page string }
	var nodes []node
	for rows.Next() {
		var n node
		if err := rows.Scan(&n.id, &n.typ, &n.page); err != nil {
			rows.Close()
			return "", "", "", false, err
		}
		nodes = append(nodes, n)
	}
	if err := rows.Close(); err != nil {
		return "", "", "", false, err
	}
	if len(nodes) == 0 {
		return "", "", "", false, nil
	}
	keep := nodes[0]
	for _, n := range nodes[1:] {
		if keep.typ == string(memory.EntityOther) {
			keep.typ = n.typ
		}
		if keep.page == "" {
			keep.page = n.page
		}
		for _, q := range []string{`UPDATE graph_edges SET src = ? WHERE src = ?`, `UPDATE graph_edges SET dst = ? WHERE dst = ?`} {
			if _, err := tx.ExecContext(ctx, q, keep.id, n.id); err != nil {
				return "", "", "", false, fmt.Errorf("merge node %s into %s: %w", n.id, keep.id, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM graph_nodes WHERE id = ?`, n.id); err != nil {
			return "", "", "", false, fmt.Errorf("merge node %s into %s: %w", n.id, keep.id, err)
		}
	}
	if len(nodes) > 1 {
		if _, err := tx.ExecContext(ctx, `UPDATE graph_nodes SET type = ?, page_id = ? WHERE id = ?`, keep.typ, keep.page, keep.id); err != nil {
			return "", "", "", false, fmt.Errorf("merge into node %s: %w", keep.id, err)
		}
	}
	return keep.id, keep.typ, keep.page, true, nil
}

// heldOfSubject reads the person's held records of a relation whose
// subject is the person's entity named as node src is: those on src and on
// any other node of that name the person has (two user ids of an alias
// group may each have one), whichever of their agents learnt them.
// (The unary + keeps SQLite on the subject's index, graph_edges_held_src:
// by the owner, it read every held record of the user, 10 ms a relation at
// 50,000.)
func heldOfSubject(ctx context.Context, tx *sql.Tx, person []string, src, relation string) ([]memory.GraphEdge, error) {
	args := append(append([]any{relation}, anys(person)...), src)
	return queryEdges(ctx, tx, heldOfSubjectSQL(len(person)), append(args, anys(person)...)...)
}

// heldOfSubjectSQL is heldOfSubject's query for a person of n user ids
// (arguments: the relation, the ids, the subject's node, the ids).
func heldOfSubjectSQL(n int) string {
	users := placeholders(n)
	return `SELECT ` + edgeColumns + ` FROM graph_edges
		WHERE expired_at IS NULL AND relation = ? AND +user_id IN (` + users + `) AND src IN (
			SELECT n.id FROM graph_nodes n, graph_nodes s
			WHERE s.id = ? AND n.norm = s.norm AND n.user_id IN (` + users + `))
		ORDER BY seq`
}

// anys converts strings to query arguments.
func anys(vals []string) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

// endRecords applies a plan's End: each held record expires as "ended" by
// the relation by, and a record that ends in the world at its ValidTo
// takes its place, recorded at.
func endRecords(ctx context.Context, tx *sql.Tx, ends []memory.GraphEdge, at time.Time, by string) error {
	for _, e := range ends {
		if err := expireRecord(ctx, tx, e.ID, at, memory.ExpiredEnded, by); err != nil {
			return err
		}
		e.RecordedAt, e.ExpiredAt, e.ExpiredHow, e.ExpiredBy = at, time.Time{}, "", ""
		if err := insertRecord(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

func expireRecord(ctx context.Context, tx *sql.Tx, rel string, at time.Time, how, by string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE graph_edges SET expired_at = ?, expired_how = ?, expired_by = ?
		WHERE rel_id = ? AND expired_at IS NULL`, at.UnixMilli(), how, by, rel); err != nil {
		return fmt.Errorf("expire relation %s: %w", rel, err)
	}
	return nil
}

func insertRecord(ctx context.Context, tx *sql.Tx, e memory.GraphEdge) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO graph_edges (`+edgeColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.Owner.UserID, e.Owner.AgentID, e.From, e.To, e.Relation, e.Exclusive,
		nullMillis(e.ValidFrom), nullMillis(e.ValidTo), e.LearnedAt.UnixMilli(), e.RecordedAt.UnixMilli(),
		nullMillis(e.ExpiredAt), e.ExpiredHow, e.ExpiredBy); err != nil {
		return fmt.Errorf("record relation %s: %w", e.ID, err)
	}
	return nil
}

// queryEdges reads records (edgeColumns) without their evidence.
func queryEdges(ctx context.Context, q querier, query string, args ...any) ([]memory.GraphEdge, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read relations: %w", err)
	}
	defer rows.Close()
	var out []memory.GraphEdge
	for rows.Next() {
		var (
			e                 memory.GraphEdge
			from, to, expired sql.NullInt64
			learned, recorded int64
		)
		if err := rows.Scan(&e.ID, &e.Owner.UserID, &e.Owner.AgentID, &e.From, &e.To, &e.Relation, &e.Exclusive,
			&from, &to, &learned, &recorded, &expired, &e.ExpiredHow, &e.ExpiredBy); err != nil {
			return nil, fmt.Errorf("read relation: %w", err)
		}
		e.ValidFrom, e.ValidTo, e.ExpiredAt = fromNullMillis(from), fromNullMillis(to), fromNullMillis(expired)
		e.LearnedAt, e.RecordedAt = time.UnixMilli(learned).UTC(), time.UnixMilli(recorded).UTC()
		e.Facts, e.Turns = []string{}, []string{}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read relations: %w", err)
	}
	return out, nil
}

// fillEvidence reads the evidence of the given records' relations.
func fillEvidence(ctx context.Context, q querier, edges []*memory.GraphEdge) error {
	byRel := map[string][]*memory.GraphEdge{}
	var rels []string
	for _, e := range edges {
		if byRel[e.ID] == nil {
			rels = append(rels, e.ID)
		}
		byRel[e.ID] = append(byRel[e.ID], e)
	}
	for start := 0; start < len(rels); start += 500 {
		chunk := rels[start:min(start+500, len(rels))]
		args := make([]any, len(chunk))
		for i, r := range chunk {
			args[i] = r
		}
		rows, err := q.QueryContext(ctx, `SELECT rel_id, memory_id, kind FROM graph_evidence
			WHERE rel_id IN (`+placeholders(len(chunk))+`) ORDER BY rel_id, memory_id`, args...)
		if err != nil {
			return fmt.Errorf("read evidence: %w", err)
		}
		for rows.Next() {
			var rel, id, kind string
			if err := rows.Scan(&rel, &id, &kind); err != nil {
				rows.Close()
				return fmt.Errorf("read evidence: %w", err)
			}
			for _, e := range byRel[rel] {
				if kind == "turn" {
					e.Turns = append(e.Turns, id)
				} else {
					e.Facts = append(e.Facts, id)
				}
			}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("read evidence: %w", err)
		}
	}
	return nil
}

func nullMillis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func fromNullMillis(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.UnixMilli(n.Int64).UTC()
}

// UsePeople sets who is one person (memory.GraphStore): a person's
// entities are shared by all their user ids and agents.
func (s *Store) UsePeople(people func(userID string) []string) {
	s.people.Store(&people)
}

// personOf is the user ids that are one person with user, user first.
func (s *Store) personOf(user string) []string {
	out := []string{user}
	if f := s.people.Load(); f != nil && *f != nil {
		for _, u := range (*f)(user) {
			if u != user {
				out = append(out, u)
			}
		}
	}
	return out
}
