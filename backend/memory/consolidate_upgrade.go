package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ReasonOtherAgents is the retire reason of an agent's consolidation row
// that rests on facts the agent was not told: before consolidation ran per
// agent, what it derived from all of a person's facts was written under
// the agent of the newest fact. The first pass that consolidates the
// agent on its own retires such rows (see retireOtherAgentsRows).
const ReasonOtherAgents = "built before consolidation kept each agent's facts apart, from facts this agent was not told"

// consolidatedLayers are the layers a consolidation call writes rows to
// besides merged facts (which never mix agents: see oneAgent).
var consolidatedLayers = []Layer{LayerSummary, LayerSchema, LayerKnowledge}

// carried is what an owner's first clusters brought from an older
// version's state, for prepareOwner to finish once they are clustered.
type carried struct {
	rebuild map[string]bool // topics whose derived rows were retired: called again
	arc     bool            // the arc was retired: a topic is called again to write the agent's own
	clear   string          // an old key the clusters came from, emptied once they are saved
}

// loadOwnerClusters reads an owner's clusters, carrying over what an
// older version kept:
//
//   - an agent with no clusters yet, whose facts the person's clusters
//     hold (they were clustered with the person's before consolidation
//     ran per agent), starts from them: what they were called with is
//     kept, so an upgrade sends no topic again that did not change, and
//     the clustering that follows keeps this agent's facts only. What was
//     derived then from facts the agent was not told, under this agent,
//     is retired (retireOtherAgentsRows) and its topics called again. An
//     agent whose facts the person's clusters do not hold (a new agent,
//     an imported store, a changed alias group) starts afresh;
//   - a person whose key changed when "/" came to be escaped (a user id
//     holding "/") finds their clusters under the old key.
func (s *Service) loadOwnerClusters(ctx context.Context, o ownerFacts, gen uint64) (OwnerClusters, carried, error) {
	st, err := s.cstore.LoadClusters(ctx, o.key)
	if err != nil {
		return st, carried{}, fmt.Errorf("load clusters of %s: %w", o.key, err)
	}
	if st.NextSeq != 0 || len(st.Clusters) != 0 {
		return st, carried{}, nil
	}
	mine := make(map[string]bool, len(o.facts))
	for _, f := range o.facts {
		mine[f.ID] = true
	}
	person, old, err := s.personClusters(ctx, o, mine)
	if err != nil {
		return st, carried{}, err
	}
	if o.agent == "" {
		if old == "" {
			return st, carried{}, nil
		}
		return person, carried{clear: old}, nil
	}
	if !holdsOneOf(person, mine) {
		return st, carried{}, nil
	}
	mixed, err := s.mixedClusters(ctx, o, person, mine)
	if err != nil {
		return st, carried{}, err
	}
	c, err := s.retireOtherAgentsRows(ctx, o, gen, mixed)
	if err != nil {
		return st, carried{}, err
	}
	person.CrossAt = time.Time{}
	return person, c, nil
}

// personClusters is the person's clusters, under their key or, when none
// are, under the key as it was before "/" was escaped in it, if that
// differs and they hold one of the owner's facts (else another owner's
// now has that key); old is then that key.
func (s *Service) personClusters(ctx context.Context, o ownerFacts, mine map[string]bool) (st OwnerClusters, old string, err error) {
	if o.agent != "" {
		if st, err = s.cstore.LoadClusters(ctx, o.personKey); err != nil {
			return st, "", fmt.Errorf("load clusters of %s: %w", o.personKey, err)
		}
		if st.NextSeq != 0 || len(st.Clusters) != 0 {
			return st, "", nil
		}
	}
	key := strings.ReplaceAll(o.personKey, "%2F", "/")
	if key == o.personKey {
		return st, "", nil
	}
	legacy, err := s.cstore.LoadClusters(ctx, key)
	if err != nil {
		return st, "", fmt.Errorf("load clusters of %s: %w", key, err)
	}
	if !holdsOneOf(legacy, mine) {
		return st, "", nil
	}
	return legacy, key, nil
}

// holdsOneOf reports whether a cluster of st holds one of the facts.
func holdsOneOf(st OwnerClusters, facts map[string]bool) bool {
	return slices.ContainsFunc(st.Clusters, func(c Cluster) bool {
		return slices.ContainsFunc(c.Members, func(id string) bool { return facts[id] })
	})
}

// mixedClusters reports whether the person's clusters hold a fact the
// agent was not told: another owner's, or one deleted since (whose owner
// is unknown, so taken to be another's).
func (s *Service) mixedClusters(ctx context.Context, o ownerFacts, person OwnerClusters, mine map[string]bool) (bool, error) {
	var others []string
	for _, c := range person.Clusters {
		for _, id := range c.Members {
			if !mine[id] {
				others = append(others, id)
			}
		}
	}
	rows, err := s.store.GetMany(ctx, others)
	if err != nil {
		return false, fmt.Errorf("read the facts clustered with %s's: %w", o.key, err)
	}
	for _, id := range others {
		if m, ok := rows[id]; !ok || !o.scope.Covers(m.Owner) {
			return true, nil
		}
	}
	return false, nil
}

// retireOtherAgentsRows retires, as dropped with ReasonOtherAgents, the
// live consolidation rows of an agent (o.agent is set) that rest on facts
// or turns of another owner: a schema or relation row citing one, and the
// arc, which cites nothing and summarised every fact of the person, when
// the person's clusters mixed the agent's facts with others (mixed).
// Recall stops handing the agent what another agent was told, and no
// later call for the agent is shown those rows; Restore brings one back,
// and a row restored once is left alone. Rows whose sources are all gone
// are kept: nothing shows they came from elsewhere. It returns the topics
// of the rows it retired, and whether one was the arc, so they are
// written again from the agent's own facts.
func (s *Service) retireOtherAgentsRows(ctx context.Context, o ownerFacts, gen uint64, mixed bool) (carried, error) {
	rows, err := s.consolidatedRows(ctx, o)
	if err != nil {
		return carried{}, err
	}
	var cited []string
	for _, m := range rows {
		cited = union(cited, m.SourceIDs)
	}
	sources, err := s.store.GetMany(ctx, cited)
	if err != nil {
		return carried{}, fmt.Errorf("read the sources of %s's consolidation rows: %w", o.key, err)
	}
	c := carried{rebuild: map[string]bool{}}
	var ids []string
	for _, m := range rows {
		foreign := slices.ContainsFunc(m.SourceIDs, func(id string) bool {
			src, ok := sources[id]
			return ok && !o.scope.Covers(src.Owner)
		})
		arc := m.Layer == LayerSummary && m.Category == categoryArc
		if !foreign && !(mixed && arc) {
			continue
		}
		if kept, err := s.everRestored(ctx, m.ID); err != nil || kept {
			if err != nil {
				return carried{}, err
			}
			continue
		}
		ids = append(ids, m.ID)
		c.arc = c.arc || arc
		if t := m.Metadata[MetaTopic]; t != "" {
			c.rebuild[t] = true
		}
	}
	if len(ids) == 0 {
		return c, nil
	}
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	if err := s.checkGen(gen); err != nil {
		return carried{}, err
	}
	// Restored since it was read (Restore takes indexSync too): kept.
	ids = slices.DeleteFunc(ids, func(id string) bool {
		restored, rerr := s.everRestored(ctx, id)
		err = errors.Join(err, rerr)
		return restored
	})
	if err != nil || len(ids) == 0 {
		return c, err
	}
	if _, err := s.retireMany(ctx, ids, Retirement{How: RetiredDropped, Reason: ReasonOtherAgents, At: s.now().UTC()}); err != nil {
		return carried{}, fmt.Errorf("retire %s's rows built from other agents' facts: %w", o.key, err)
	}
	return c, nil
}

// consolidatedRows lists the owner's live rows a consolidation call wrote
// (patterns, relation rows, the arc).
func (s *Service) consolidatedRows(ctx context.Context, o ownerFacts) ([]Memory, error) {
	var rows []Memory
	const page = 500
	for offset := 0; ; offset += page {
		got, _, err := s.store.List(ctx, ListFilter{Layers: consolidatedLayers, Scope: o.scope, Oldest: true, Offset: offset, Limit: page})
		if err != nil {
			return nil, fmt.Errorf("list the consolidation rows of %s: %w", o.key, err)
		}
		for _, m := range got {
			if m.Source == sourceConsol {
				rows = append(rows, m)
			}
		}
		if len(got) < page {
			return rows, nil
		}
	}
}

// finish marks the topics whose rows were retired due, and one topic for
// a retired arc (the newest that can be called), once st is clustered.
func (c carried) finish(st *OwnerClusters) {
	marked := false
	for i := range st.Clusters {
		if c.rebuild[st.Clusters[i].ID] && len(st.Clusters[i].Members) >= 2 {
			st.Clusters[i].Dirty, marked = true, true
		}
	}
	for i := len(st.Clusters) - 1; i >= 0 && c.arc && !marked; i-- {
		if len(st.Clusters[i].Members) >= 2 {
			st.Clusters[i].Dirty, marked = true, true
		}
	}
}
