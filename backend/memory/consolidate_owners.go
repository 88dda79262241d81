package memory

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// ownerFacts is one owner's live facts, oldest first: an alias group's,
// or one of its agents' (see factsByOwner).
type ownerFacts struct {
	key       string
	personKey string // the alias group's key (key without the agent)
	agent     string
	scope     Scope // exactly this owner's rows
	person    Scope // the alias group's rows of every agent
	facts     []Memory
}

// factsByOwner reads every live L3 fact (task experiences aside), grouped
// by owner: the alias group of the fact's user and, byAgent, the agent
// that wrote it. Consolidation runs per agent (an agent's topics, schemas,
// arc and relation rows come from its own facts only, so recall never
// hands one agent what another was told); the person's own facts (no
// agent) are a group of their own. Compaction's cap counts the person's
// facts of every agent (byAgent false). Agent groups come first, so on
// the first pass after an upgrade each can take its clusters from the
// person's state before the person's group drops the agents' facts.
func (s *Service) factsByOwner(ctx context.Context, byAgent bool) ([]ownerFacts, error) {
	const page = 1000
	groups := map[string]*ownerFacts{}
	for offset := 0; ; offset += page {
		rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerFact}, Oldest: true, Offset: offset, Limit: page})
		if err != nil {
			return nil, fmt.Errorf("list facts to consolidate: %w", err)
		}
		for _, m := range rows {
			if m.Category == CategoryExperience {
				continue
			}
			ids := s.cfg.Aliases.Expand(m.Owner.UserID)
			agent := ""
			if byAgent {
				agent = m.Owner.AgentID
			}
			key := ownerKey(ids, agent)
			g := groups[key]
			if g == nil {
				g = &ownerFacts{key: key, personKey: groupKey(ids), agent: agent, person: Scope{UserIDs: ids},
					scope: Scope{UserIDs: ids, AgentID: agent, ExactAgent: byAgent}}
				groups[key] = g
			}
			g.facts = append(g.facts, m)
		}
		if len(rows) < page {
			break
		}
	}
	out := make([]ownerFacts, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].agent == "") != (out[j].agent == "") {
			return out[i].agent != ""
		}
		return out[i].key < out[j].key
	})
	return out, nil
}

// groupKey names an alias group (its sorted user ids): the ids joined by
// commas, each with its own "%", "," and "/" escaped, so the group {amy,
// bea} and a user whose id is "amy,bea" never share the key (nor the
// topics and consolidation state kept under it). Ids without those
// characters keep the plain joined form.
func groupKey(ids []string) string {
	esc := make([]string, len(ids))
	for i, id := range ids {
		esc[i] = groupKeyEscape.Replace(id)
	}
	return strings.Join(esc, ",")
}

// ownerKey names a consolidation owner: the alias group's key, and for an
// agent's facts "/" and the agent's id, escaped alike ("amy/hermes").
func ownerKey(ids []string, agent string) string {
	if agent == "" {
		return groupKey(ids)
	}
	return groupKey(ids) + "/" + groupKeyEscape.Replace(agent)
}

var groupKeyEscape = strings.NewReplacer("%", "%25", ",", "%2C", "/", "%2F")
