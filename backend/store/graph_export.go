package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"hyatlas/backend/memory"
)

// GraphExport reads the graph of the owners in scope: its nodes (and the
// nodes its records touch), every record of every relation (oldest first, with the relation's evidence),
// and the links whose first fact is in scope.
func (s *Store) GraphExport(ctx context.Context, scope memory.Scope) (memory.GraphExport, error) {
	var g memory.GraphExport
	var nw where
	nw.scope("n.", scope)
	nodes, err := s.queryNodes(ctx, nw)
	if err != nil {
		return g, err
	}
	g.Nodes = nodes
	var ew where
	ew.scope("", scope)
	edges, err := queryEdges(ctx, s.reader, `SELECT `+edgeColumns+` FROM graph_edges`+ew.sql()+` ORDER BY seq`, ew.args...)
	if err != nil {
		return g, err
	}
	ptrs := make([]*memory.GraphEdge, len(edges))
	for i := range edges {
		ptrs[i] = &edges[i]
	}
	if err := fillEvidence(ctx, s.reader, ptrs); err != nil {
		return g, err
	}
	g.Relations = edges
	// A person's agents share entities: the records in scope may touch
	// nodes another agent of theirs made.
	if g.Nodes, err = s.addTouched(ctx, g.Nodes, edges); err != nil {
		return g, err
	}
	var lw where
	lw.scope("m.", scope)
	err = s.query(ctx, `SELECT l.a, l.b, l.kind, l.at FROM links l JOIN memories m ON m.id = l.a`+lw.sql()+` ORDER BY l.at, l.a, l.b`,
		lw.args, func(r *sql.Rows) error {
			var l memory.Link
			var at int64
			err := r.Scan(&l.A, &l.B, &l.Kind, &at)
			l.At = fromMillis(sql.NullInt64{Int64: at, Valid: true})
			g.Links = append(g.Links, l)
			return err
		})
	if err != nil {
		return g, fmt.Errorf("export links: %w", err)
	}
	return g, nil
}

// importGraph merges an exported graph in, inside an import's
// transaction. An entity the person already has under the same name
// (under any of their user ids and agents) is used as is; a new one keeps its id unless that id is taken.
// A relation whose id is here already is left as it is; one the owner
// holds already with the same ends (learnt here too) only gains the
// evidence; any other comes in with all its records. Evidence and links
// that name memories not here are dropped, and so is evidence of another
// person's: a relation rests on its person's memories only, and one that
// nothing live here backs comes in expired (see expireUnbacked). Two people
// never share an entity: a relation's end that the export gives to
// another person is the relation's person's entity of that name (found,
// or made).
func (s *Store) importGraph(ctx context.Context, tx *sql.Tx, g memory.GraphExport, cas *memory.Cascade) (memory.GraphImportReport, error) {
	var rep memory.GraphImportReport
	ids := map[string]string{} // exported entity id -> its id here
	exported := map[string]memory.GraphNode{}
	for _, n := range g.Nodes {
		id, made, err := importNode(ctx, tx, n, s.personOf(n.Owner.UserID))
		if err != nil {
			return rep, err
		}
		ids[n.ID], exported[n.ID] = id, n
		if made {
			rep.Nodes++
		}
	}
	// end is the id here of a relation's end for its owner's person.
	theirs := map[[2]string]string{} // {person's first id, exported entity id} -> id here
	end := func(e memory.GraphEdge, node string) (string, error) {
		n, person := exported[node], s.personOf(e.Owner.UserID)
		if slices.Contains(person, n.Owner.UserID) {
			return ids[node], nil
		}
		key := [2]string{person[0], node}
		if id, ok := theirs[key]; ok {
			return id, nil
		}
		n.Owner, n.PageID = e.Owner, "" // the page is the other person's
		id, made, err := importNode(ctx, tx, n, person)
		if made {
			rep.Nodes++
		}
		theirs[key] = id
		return id, err
	}
	var order []string
	records := map[string][]memory.GraphEdge{}
	for _, e := range g.Relations {
		if records[e.ID] == nil {
			order = append(order, e.ID)
		}
		var err error
		if e.From, err = end(e, e.From); err == nil {
			e.To, err = end(e, e.To)
		}
		if err != nil {
			return rep, err
		}
		records[e.ID] = append(records[e.ID], e)
	}
	at := time.Now().UTC()
	for _, rel := range order {
		recs := records[rel]
		made, err := importRelation(ctx, tx, recs, s.personOf(recs[0].Owner.UserID))
		backed := made
		if made && slices.ContainsFunc(recs, memory.GraphEdge.Held) {
			backed, err = s.expireUnbacked(ctx, tx, rel, at, cas)
		}
		if err == nil && backed {
			err = s.importedHoldsByTheRules(ctx, tx, recs, s.personOf(recs[0].Owner.UserID), at, cas)
		}
		if err != nil {
			return rep, err
		}
		if made {
			rep.Relations++
		}
	}
	for _, l := range g.Links {
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO links (a, b, kind, at)
			SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?) AND EXISTS (SELECT 1 FROM memories WHERE id = ?)`,
			l.A, l.B, l.Kind, l.At.UnixMilli(), l.A, l.B)
		if err != nil {
			return rep, fmt.Errorf("import link %s-%s: %w", l.A, l.B, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			rep.Links++
		}
	}
	return rep, nil
}

// importNode returns the id the exported node has here, creating it when
// the person (the user ids given) has no entity of that name.
func importNode(ctx context.Context, tx *sql.Tx, n memory.GraphNode, person []string) (string, bool, error) {
	norm := memory.NormalizeText(n.Name)
	id, _, _, found, err := mergeNamesakes(ctx, tx, person, norm)
	if err != nil {
		return "", false, fmt.Errorf("import entity %q: %w", n.Name, err)
	}
	if found {
		return id, false, nil
	}
	id = n.ID
	var taken bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM graph_nodes WHERE id = ?)`, id).Scan(&taken); err != nil {
		return "", false, fmt.Errorf("import entity %q: %w", n.Name, err)
	}
	if taken {
		id = memory.NewGraphID("e", n.CreatedAt)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO graph_nodes (id, user_id, agent_id, name, norm, type, page_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, coalesce((SELECT id FROM memories WHERE id = ?), ''), ?)`,
		id, n.Owner.UserID, n.Owner.AgentID, n.Name, norm, string(n.Type), n.PageID, n.CreatedAt.UnixMilli()); err != nil {
		return "", false, fmt.Errorf("import entity %q: %w", n.Name, err)
	}
	return id, true, nil
}

// importedHoldsByTheRules applies the one-at-a-time rule to a relation
// just imported, as to one learnt: its held record ends the subject's
// other exclusive one here (or, older, ends where that one began), so an
// import never leaves two jobs open at once. The rows of the relations it
// ends are no longer offered as true now (retired as replaced, the
// relation ended), and neither are its own when it ends itself by now.
func (s *Store) importedHoldsByTheRules(ctx context.Context, tx *sql.Tx, recs []memory.GraphEdge, person []string, at time.Time, cas *memory.Cascade) error {
	var h memory.GraphEdge
	for _, e := range recs {
		if e.Held() {
			h = e
		}
	}
	if h.ID == "" || !h.Exclusive {
		return nil
	}
	held, err := heldOfSubject(ctx, tx, person, h.From, h.Relation)
	if err != nil {
		return err
	}
	others := held[:0]
	for _, o := range held {
		if o.ID != h.ID {
			others = append(others, o)
		}
	}
	p := memory.PlanRehold(others, h, at)
	if p.Recite != "" {
		return nil
	}
	if err := endRecords(ctx, tx, p.End, at, h.ID); err != nil {
		return err
	}
	if len(p.End) > 0 {
		ended := make([]string, len(p.End))
		for i, e := range p.End {
			ended[i] = e.ID
		}
		if err := s.retireRelationRows(ctx, tx, ended, memory.Retirement{How: memory.RetiredReplaced,
			Reason: memory.ReasonRelationEnded, At: at}, cas); err != nil {
			return err
		}
	}
	if !p.New.ValidTo.IsZero() && !p.New.ValidTo.Equal(h.ValidTo) { // older: it ends where a later one began
		closed := h
		closed.ValidTo = p.New.ValidTo
		if err := endRecords(ctx, tx, []memory.GraphEdge{closed}, at, ""); err != nil {
			return err
		}
		if !closed.ValidTo.After(at) {
			// Ended by now: its row, which came in with the memories, is
			// not offered as true now, as a pass writes none for a
			// relation it learns already ended.
			return s.retireRelationRows(ctx, tx, []string{h.ID}, memory.Retirement{How: memory.RetiredReplaced,
				Reason: memory.ReasonRelationEnded, At: at}, cas)
		}
	}
	return nil
}

// expireUnbacked expires the held record of relation rel, just imported,
// when nothing live here backs it, by the rule a delete applies (see
// dropEvidence): one that rests on facts needs a live fact, one that rests
// on turns alone needs a turn. Its facts all retired here, it expires as
// evidence_retired, and restoring one holds it again; with no evidence
// here at all (every memory it cites left out of the export, or another
// person's), as evidence_deleted, for good. Its L5 rows, come in with the
// memories, are retired as dropped for the same reason. It reports
// whether the relation is held.
func (s *Store) expireUnbacked(ctx context.Context, tx *sql.Tx, rel string, at time.Time, cas *memory.Cascade) (bool, error) {
	var facts, live, cited int
	if err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM graph_evidence WHERE rel_id = ? AND kind = 'fact'),
		(SELECT count(*) FROM graph_evidence e JOIN memories m ON m.id = e.memory_id
		 WHERE e.rel_id = ? AND e.kind = 'fact' AND m.retired_at IS NULL),
		(SELECT count(*) FROM graph_evidence e JOIN memories m ON m.id = e.memory_id WHERE e.rel_id = ?)`,
		rel, rel, rel).Scan(&facts, &live, &cited); err != nil {
		return false, fmt.Errorf("read the evidence of imported relation %s: %w", rel, err)
	}
	if live > 0 || (facts == 0 && cited > 0) {
		return true, nil
	}
	how, reason := memory.ExpiredEvidenceRetired, reasonEvidenceRetired
	if facts == 0 {
		how, reason = memory.ExpiredEvidenceDeleted, reasonEvidenceDeleted
	}
	if err := expireRecord(ctx, tx, rel, at, how, ""); err != nil {
		return false, err
	}
	if err := s.retireRelationRows(ctx, tx, []string{rel}, memory.Retirement{How: memory.RetiredDropped,
		Reason: reason, At: at}, cas); err != nil {
		return false, fmt.Errorf("retire the rows of imported relation %s: %w", rel, err)
	}
	return false, nil
}

// importRelation brings in one relation's records (see importGraph);
// person is its owner's user ids.
func importRelation(ctx context.Context, tx *sql.Tx, recs []memory.GraphEdge, person []string) (bool, error) {
	first := recs[0]
	owners, err := queryStrings(ctx, tx, `SELECT DISTINCT user_id FROM graph_edges WHERE rel_id = ?`, first.ID)
	if err != nil {
		return false, fmt.Errorf("import relation %s: %w", first.ID, err)
	}
	if len(owners) > 0 { // known here already: it gains the evidence learnt since, if it is the person's
		if !slices.Contains(person, owners[0]) {
			return false, nil
		}
		return false, importEvidence(ctx, tx, first.ID, first, person)
	}
	into := first.ID
	for _, e := range recs {
		if !e.Held() {
			continue
		}
		// The subject's node is one person's (every user id of an alias
		// group): a record of it by the same agent is the same learner's
		// (memory.sameLearner), whichever of the group's ids it has.
		held, err := queryEdges(ctx, tx, `SELECT `+edgeColumns+` FROM graph_edges WHERE expired_at IS NULL
			AND agent_id = ? AND src = ? AND relation = ? AND dst = ?`,
			e.Owner.AgentID, e.From, e.Relation, e.To)
		if err != nil {
			return false, fmt.Errorf("import relation %s: %w", first.ID, err)
		}
		for _, h := range held {
			if memory.SameStint(h, e) {
				into = h.ID // learnt here too: it gains the evidence
				break
			}
		}
	}
	if into != first.ID {
		// The relation's L5 row came in with the memories: it states the
		// relation held here now.
		if _, err := tx.ExecContext(ctx, `UPDATE memories SET metadata = json_set(metadata, '$.`+memory.MetaRelation+`', ?)
			WHERE `+relationRowsWhere, into, first.ID); err != nil {
			return false, fmt.Errorf("import relation %s: %w", first.ID, err)
		}
	}
	if into == first.ID {
		for _, e := range recs {
			if err := insertRecord(ctx, tx, e); err != nil {
				return false, err
			}
		}
	}
	if err := importEvidence(ctx, tx, into, first, person); err != nil {
		return false, err
	}
	return into == first.ID, nil
}

// importEvidence adds to relation into the evidence the imported relation
// rests on that is here and is the person's (the user ids given): memories
// not imported, and another person's, are dropped. One statement picks
// them and gives each its kind (a raw row is a turn, any other a fact).
func importEvidence(ctx context.Context, tx *sql.Tx, into string, rel memory.GraphEdge, person []string) error {
	ids := append(append([]string(nil), rel.Facts...), rel.Turns...)
	if len(ids) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO graph_evidence (rel_id, memory_id, kind)
		SELECT ?, id, CASE layer WHEN ? THEN 'turn' ELSE 'fact' END FROM memories
		WHERE id IN (`+placeholders(len(ids))+`) AND user_id IN (`+placeholders(len(person))+`)`,
		append(append([]any{into, string(memory.LayerRaw)}, anys(ids)...), anys(person)...)...); err != nil {
		return fmt.Errorf("import the evidence of %s: %w", rel.ID, err)
	}
	return nil
}
