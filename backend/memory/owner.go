package memory

import (
	"sort"
	"strings"
)

// DefaultUserID is the owner of a write that names no user, matching the
// Hermes plugin's default. There are no ownerless rows.
const DefaultUserID = "default"

// Owner is who a memory belongs to: a user and, optionally, an agent.
type Owner struct {
	UserID  string `json:"user_id"`
	AgentID string `json:"agent_id"`
}

// Scope limits a read to some owners. An empty UserIDs means every user; an
// empty AgentID means every agent. UserIDs is already expanded by aliases.
// WithShared widens an AgentID to the rows that have no agent too: what
// the person wrote themselves (in the Atlas, from the CLI) is theirs and
// every one of their agents' to recall, while what an agent wrote stays
// that agent's. Recall (search, the prompt block) reads so; listing,
// export and every write or delete keep to the agent's own rows.
//
// ExactAgent makes an empty AgentID mean "rows with no agent" instead of
// "every agent": what HyAtlas derives for the person themselves (their Now
// page) is built from their own rows only, never from their agents'.
type Scope struct {
	UserIDs    []string
	AgentID    string
	WithShared bool
	ExactAgent bool
}

// SourceConsolidation is the source of the rows a consolidation pass
// writes (patterns, knowledge rows, arcs, merged facts). They come from a
// person's facts of any agent, so they are never shared with an agent as
// the person's own (see Scope.WithShared).
const SourceConsolidation = "consolidation"

// Holds reports whether row m is inside the scope: its owner is covered,
// and a row shared with an agent as the person's own (no agent) is not
// one consolidation derived from facts any of their agents may have told.
func (s Scope) Holds(m Memory) bool {
	if !s.Covers(m.Owner) {
		return false
	}
	return !(s.WithShared && s.AgentID != "" && m.Owner.AgentID == "" && m.Source == SourceConsolidation)
}

// agentFiltered reports whether the scope limits the agent.
func (s Scope) agentFiltered() bool { return s.AgentID != "" || s.ExactAgent }

// All reports whether the scope covers every user.
func (s Scope) All() bool { return len(s.UserIDs) == 0 }

// Covers reports whether o is inside the scope.
func (s Scope) Covers(o Owner) bool {
	if s.agentFiltered() && o.AgentID != s.AgentID && (!s.WithShared || o.AgentID != "") {
		return false
	}
	if s.All() {
		return true
	}
	for _, u := range s.UserIDs {
		if u == o.UserID {
			return true
		}
	}
	return false
}

// Aliases groups user ids that are one person (HYATLAS_USER_ALIASES). A
// read for any id in a group covers the whole group.
type Aliases struct {
	groups map[string][]string
}

// ParseAliases reads "a,b,c;d,e": groups separated by ';', ids in a group by
// ','. Blank ids are ignored; a group needs two ids. Groups that share an
// id are one group ("a,b;b,c" is a, b and c): ids that are one person with
// the same id are one person, for reads, consolidation and the graph
// alike. A group with one id is an EINVALID error, so a typo is not
// silently ignored.
func ParseAliases(s string) (Aliases, error) {
	a := Aliases{groups: map[string][]string{}}
	for _, group := range strings.Split(s, ";") {
		var ids []string
		for _, id := range strings.Split(group, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		if len(ids) == 1 {
			return Aliases{}, Errorf(EINVALID, "alias group %q needs at least two user ids", strings.TrimSpace(group))
		}
		merged := ids
		for _, id := range ids {
			merged = union(merged, a.groups[id]) // the groups it joins
		}
		for _, id := range merged {
			a.groups[id] = merged
		}
	}
	return a, nil
}

// Expand returns the given ids plus every alias of each, sorted and
// de-duplicated. Empty ids are dropped; no ids gives nil (all users).
func (a Aliases) Expand(userIDs ...string) []string {
	var out []string
	for _, id := range userIDs {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		out = union(out, []string{id})
		out = union(out, a.groups[id])
	}
	return out
}

// Len returns the number of ids that have aliases.
func (a Aliases) Len() int { return len(a.groups) }

func union(a, b []string) []string {
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]string, 0, len(a)+len(b))
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
