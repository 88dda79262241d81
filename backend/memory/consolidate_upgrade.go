package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// loadOwnerClusters reads an owner's clusters, carrying over what an
// older version kept:
//
//   - an agent with no clusters yet starts from the person's (before
//     consolidation ran per agent, an agent's facts were clustered with
//     the person's): their clusters, and what they were called with, are
//     kept, so an upgrade sends no topic again that did not change. The
//     clustering that follows keeps this agent's facts only. What was
//     derived then from every agent's facts under this agent is retired
//     (retireOtherAgentsRows);
//   - a person whose key changed when "/" came to be escaped (a user id
//     holding "/") finds their clusters under the old key.
func (s *Service) loadOwnerClusters(ctx context.Context, o ownerFacts, gen uint64) (OwnerClusters, error) {
	st, err := s.cstore.LoadClusters(ctx, o.key)
	if err != nil {
		return st, fmt.Errorf("load clusters of %s: %w", o.key, err)
	}
	if st.NextSeq != 0 || len(st.Clusters) != 0 {
		return st, nil
	}
	if o.agent == "" {
		return s.legacyClusters(ctx, o, st)
	}
	person, err := s.cstore.LoadClusters(ctx, o.personKey)
	if err != nil {
		return st, fmt.Errorf("load clusters of %s: %w", o.personKey, err)
	}
	if person.NextSeq == 0 && len(person.Clusters) == 0 {
		if person, err = s.legacyClusters(ctx, o, person); err != nil {
			return st, err
		}
	}
	person.CrossAt = time.Time{}
	if _, err := s.retireOtherAgentsRows(ctx, o, gen); err != nil {
		return st, err
	}
	return person, nil
}

// legacyClusters is the clusters kept under the person's key as it was
// before "/" was escaped in it, when it differs and they hold one of the
// owner's facts (else another owner's now has that key); st otherwise.
func (s *Service) legacyClusters(ctx context.Context, o ownerFacts, st OwnerClusters) (OwnerClusters, error) {
	key := strings.ReplaceAll(o.personKey, "%2F", "/")
	if key == o.personKey {
		return st, nil
	}
	old, err := s.cstore.LoadClusters(ctx, key)
	if err != nil {
		return st, fmt.Errorf("load clusters of %s: %w", key, err)
	}
	mine := make(map[string]bool, len(o.facts))
	for _, f := range o.facts {
		mine[f.ID] = true
	}
	for _, c := range old.Clusters {
		if slices.ContainsFunc(c.Members, func(id string) bool { return mine[id] }) {
			return old, nil
		}
	}
	return st, nil
}

// ReasonOtherAgents is the retire reason of an agent's consolidation row
// that rests on another agent's facts: before consolidation ran per agent,
// what it derived from all of a person's facts was written under the agent
// of the newest fact. The first pass that consolidates the agent on its
// own retires such rows (see retireOtherAgentsRows).
const ReasonOtherAgents = "built from other agents' facts before consolidation kept each agent's apart"

// consolidatedLayers are the layers a consolidation call writes rows to
// besides merged facts (which never mix agents: see oneAgent).
var consolidatedLayers = []Layer{LayerSummary, LayerSchema, LayerKnowledge}

// retireOtherAgentsRows retires, as dropped with ReasonOtherAgents, the
// live consolidation rows of an agent (o.agent is set) that rest on facts
// or turns of another owner: a schema or relation row citing one, and the
// arc, which cites nothing and summarised every fact of the person, when
// the person has facts outside this agent (o.shared). Recall stops handing
// the agent what another agent was told, and no later call for the agent
// is shown those rows; Restore brings one back. Rows whose sources are all
// gone are kept: nothing shows they came from elsewhere. It runs when an
// agent's consolidation state is first made, so once per agent; running
// it again finds nothing to retire.
func (s *Service) retireOtherAgentsRows(ctx context.Context, o ownerFacts, gen uint64) (int, error) {
	var rows []Memory
	const page = 500
	for offset := 0; ; offset += page {
		got, _, err := s.store.List(ctx, ListFilter{Layers: consolidatedLayers, Scope: o.scope, Oldest: true, Offset: offset, Limit: page})
		if err != nil {
			return 0, fmt.Errorf("list the consolidation rows of %s: %w", o.key, err)
		}
		for _, m := range got {
			if m.Source == sourceConsol {
				rows = append(rows, m)
			}
		}
		if len(got) < page {
			break
		}
	}
	var cited []string
	for _, m := range rows {
		cited = union(cited, m.SourceIDs)
	}
	sources, err := s.store.GetMany(ctx, cited)
	if err != nil {
		return 0, fmt.Errorf("read the sources of %s's consolidation rows: %w", o.key, err)
	}
	var ids []string
	for _, m := range rows {
		foreign := slices.ContainsFunc(m.SourceIDs, func(id string) bool {
			src, ok := sources[id]
			return ok && !o.scope.Covers(src.Owner)
		})
		if foreign || (o.shared && m.Layer == LayerSummary && m.Category == categoryArc) {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	if err := s.checkGen(gen); err != nil {
		return 0, err
	}
	out, cas, err := s.store.RetireMany(ctx, ids, Retirement{How: RetiredDropped, Reason: ReasonOtherAgents, At: s.now().UTC()})
	if err != nil {
		return 0, fmt.Errorf("retire %s's rows built from other agents' facts: %w", o.key, err)
	}
	for _, m := range out {
		s.current().index.Remove(m.ID)
		s.publish("memory.retired", m)
	}
	s.applyCascade(ctx, cas)
	return len(out), nil
}
