package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The knowledge graph (L5) is bitemporal. Each relation between two
// entities has belief records: when it was true in the world (ValidFrom,
// ValidTo; zero = unknown) and when the app held that belief (RecordedAt
// until ExpiredAt; zero = still held). A changed belief expires a record
// and starts a new one, never rewrites it, so the graph can be read as it
// stood at any moment:
//
//   - on the recorded axis, what the app believed then: the records with
//     RecordedAt ≤ t < ExpiredAt;
//   - on the valid axis, what was true then as the app knows it today:
//     the records held now with ValidFrom ≤ t < ValidTo, where an unknown
//     ValidFrom counts from when the relation was first learned (not from
//     the beginning of time) and an unknown ValidTo means still true.
//
// The entities (nodes) are a person's: one per normalised name per
// person (a user id with its alias group, all their agents), so what one
// agent learns meets what another learnt. A relation's records are the
// owner's (user and agent) that learnt it; views filter by them.
//
// The rules that change beliefs:
//
//   - A new relation of an exclusive kind (one object at a time: works at,
//     lives in) ends the subject's other held relation of that kind: its
//     record expires (ExpiredHow "ended") and a new record holds it with
//     ValidTo = the new relation's ValidFrom. An older relation arriving
//     late (it was true before the held one began) ends itself instead:
//     its ValidTo is the later relation's ValidFrom.
//   - Stating a held relation again adds evidence and changes no record;
//     stating one that had ended (in the world) as begun again after its
//     end is a new relation.
//   - A fact retired as updated, restated or merged passes its place as
//     evidence to the row that took over from it. Retiring the last live
//     fact behind a relation expires it ("evidence_retired") and retires
//     its L5 row; restoring one of them holds it again from the restore
//     (by the rules above, against what is held by then) and restores the
//     row. Deleting a memory removes it from every relation's evidence; a
//     relation left with no live fact expires ("evidence_deleted").
//   - Taking a relation back as never true (its last fact retired as
//     RetiredWrong) reopens the relations it bounded: each of the
//     subject's records of its kind that ended where it began (one it
//     ended, or a late one that ended itself there) holds again without
//     that end ("reopened"), unless another held relation of its kind ends
//     it still (then at that one's start; a return to the same object, at
//     the return), and its L5 rows retired for the end come back when it
//     holds now. One not held then gets a record without the end, from
//     which a restore holds it. Restoring the relation taken back gives
//     the end back to both. A fact forgotten, dropped, replaced or
//     deleted may have been true: it reopens nothing. Plans never do.
//     The store applies these in the same transaction as the row change.

// EntityType is what kind of thing a graph node is.
type EntityType string

// Entity types; anything else is refused.
const (
	EntityPerson       EntityType = "person"
	EntityProject      EntityType = "project"
	EntityTool         EntityType = "tool"
	EntityPlace        EntityType = "place"
	EntityOrganization EntityType = "organization"
	EntityConcept      EntityType = "concept"
	EntityOther        EntityType = "other"
)

// ParseEntityType reads a type; "" is other.
func ParseEntityType(s string) (EntityType, error) {
	switch t := EntityType(strings.ToLower(strings.TrimSpace(s))); t {
	case "":
		return EntityOther, nil
	case EntityPerson, EntityProject, EntityTool, EntityPlace, EntityOrganization, EntityConcept, EntityOther:
		return t, nil
	default:
		return "", Errorf(EINVALID, "unknown entity type %q (person, project, tool, place, organization, concept, other)", s)
	}
}

// How a relation's record stopped being held.
const (
	ExpiredEnded           = "ended"            // a later relation of an exclusive kind took over
	ExpiredEvidenceRetired = "evidence_retired" // every fact behind it was retired
	ExpiredEvidenceDeleted = "evidence_deleted" // every memory behind it was deleted
	ExpiredReopened        = "reopened"         // the relation that ended it was withdrawn
)

// ReasonRelationEnded is the retire reason of an L5 row whose relation a
// later one of its kind ended; the relation holding again (reopened)
// brings the row back.
const ReasonRelationEnded = "the relation ended"

// GraphNode is an entity.
type GraphNode struct {
	ID        string     `json:"id"`
	Owner     Owner      `json:"-"`
	Name      string     `json:"label"`
	Type      EntityType `json:"type"`
	PageID    string     `json:"page_id,omitempty"` // its L8 entity page
	CreatedAt time.Time  `json:"created_at"`
	// Strength is its page's strength (DefaultStrength without a page):
	// with its degree, it decides which nodes a capped view keeps.
	Strength float64 `json:"strength"`
	// Degree counts the view's records that touch it (0 outside a view).
	Degree int `json:"degree"`
}

// GraphEdge is one belief record of a relation. ID is the relation's id,
// the same in all its records.
type GraphEdge struct {
	ID         string    `json:"id"`
	Owner      Owner     `json:"-"`
	From       string    `json:"from"`
	To         string    `json:"to"`
	Relation   string    `json:"relation"`
	Exclusive  bool      `json:"exclusive"`
	ValidFrom  time.Time `json:"valid_from"`
	ValidTo    time.Time `json:"valid_to"`
	LearnedAt  time.Time `json:"learned_at"`
	RecordedAt time.Time `json:"recorded_at"`
	ExpiredAt  time.Time `json:"expired_at"`
	ExpiredHow string    `json:"expired_how,omitempty"`
	ExpiredBy  string    `json:"expired_by,omitempty"`
	Facts      []string  `json:"facts"` // evidence: L3 facts
	Turns      []string  `json:"turns"` // evidence: L2 raw turns
}

// Held reports whether the record is the app's belief now.
func (e GraphEdge) Held() bool { return e.ExpiredAt.IsZero() }

// Began is when the relation began as the rules count it: its start, or,
// unknown, when it was first learnt.
func (e GraphEdge) Began() time.Time {
	if e.ValidFrom.IsZero() {
		return e.LearnedAt
	}
	return e.ValidFrom
}

// RelationInput is a relation to learn.
type RelationInput struct {
	Owner            Owner  // who learns it: the relation's records are this owner's
	From, To         string // entity names
	FromType, ToType EntityType
	Relation         string
	Exclusive        bool
	ValidFrom        time.Time // when it became true; zero = unknown
	Facts, Turns     []string  // evidence ids
	At               time.Time // when it is learned (system time); zero = now
}

// Graph limits.
const (
	maxEntityName   = 200
	maxRelationName = 100
	maxEvidence     = 200
)

// GraphPlan is what learning a relation changes, decided by PlanRelation
// from the subject's held records.
type GraphPlan struct {
	// Recite is the held relation stated again (only evidence is added);
	// empty when the relation is new.
	Recite string
	// New is the new relation's record (with its ID), when not a recite.
	New GraphEdge
	// End lists held records to expire as "ended", each replaced by a
	// record that ends at its ValidTo.
	End []GraphEdge
}

// PlanRelation applies the bitemporal rules: held are the held records of
// the subject for this relation (any object), next the new relation (its
// From, To, Relation, Exclusive, ValidFrom set; ID empty). It is pure.
//
// A held record of the same object, learnt by the same owner, is the
// relation stated again unless it had ended (its ValidTo) by the time the
// new statement says it began: then the relation holds again, as a new
// relation (Alice works at Acme again). Another owner's record of the
// same object (another agent of the person told the same) is neither
// recited nor ended: each owner keeps the relations it learnt.
func PlanRelation(held []GraphEdge, next GraphEdge, at time.Time) GraphPlan {
	for _, h := range held {
		if h.To == next.To && sameLearner(h, next) && SameStint(h, next) {
			return GraphPlan{Recite: h.ID}
		}
	}
	next.ID, next.LearnedAt, next.RecordedAt = NewGraphID("r", at), at, at
	return planExclusive(held, next, at)
}

// sameLearner reports whether two records of a person's relation were
// learnt by one owner: the same agent (or both the person's own). The
// records planned against are the person's, so any user id of their alias
// group is the same person: consolidation writes a topic's rows under the
// user id of its newest fact, which moves between the group's ids.
func sameLearner(a, b GraphEdge) bool { return a.Owner.AgentID == b.Owner.AgentID }

// SameStint reports whether two records of a relation between the same
// entities speak of one stint of it in the world: neither ended before
// the other began (an unknown time overlaps anything). Two stints (Alice
// worked at Acme until 2022, and again from 2024) are two relations.
func SameStint(a, b GraphEdge) bool {
	return (a.ValidTo.IsZero() || b.ValidFrom.IsZero() || b.ValidFrom.Before(a.ValidTo)) &&
		(b.ValidTo.IsZero() || a.ValidFrom.IsZero() || a.ValidFrom.Before(b.ValidTo))
}

// PlanRehold applies the same rules to a relation whose evidence came
// back (a fact restored): last is its last record, expired when the
// evidence was retired. It is held again from at, unless the subject
// holds the same relation to the same object under another id meanwhile
// (learnt again): then that one is recited and gains the evidence. An
// exclusive relation held again ends, or is ended by, the subject's other
// relations of its kind as if it were learnt now with its own start.
func PlanRehold(held []GraphEdge, last GraphEdge, at time.Time) GraphPlan {
	for _, h := range held {
		if h.ID != last.ID && h.To == last.To && sameLearner(h, last) && SameStint(h, last) {
			return GraphPlan{Recite: h.ID}
		}
	}
	next := last
	next.RecordedAt, next.ExpiredAt, next.ExpiredHow, next.ExpiredBy = at, time.Time{}, "", ""
	if next.ValidFrom.IsZero() {
		next.ValidFrom = last.LearnedAt // compared from when it was first learnt, as on the valid axis
	}
	plan := planExclusive(held, next, at)
	plan.New.ValidFrom = last.ValidFrom
	return plan
}

// PlanUnbounded is PlanRehold for a record with no end because the
// relation that ended it was taken back as never true. A later stint of
// the same object held now (a return to the same place) is then no
// relation held twice: the record ends where the return began.
func PlanUnbounded(held []GraphEdge, rec GraphEdge, at time.Time) GraphPlan {
	p := PlanRehold(held, rec, at)
	if i := slices.IndexFunc(held, func(h GraphEdge) bool { return h.ID == p.Recite }); i >= 0 &&
		held[i].Began().After(rec.Began()) {
		rec.ValidTo = held[i].Began()
		p = PlanRehold(held, rec, at)
	}
	return p
}

// planExclusive ends the held exclusive records next takes over from, or
// ends next where a later one began when next is older (a late arrival).
// A held record of unknown start counts from when it was first learnt.
// Another owner's record of the same object says the same and is left be.
func planExclusive(held []GraphEdge, next GraphEdge, at time.Time) GraphPlan {
	plan := GraphPlan{}
	if next.Exclusive {
		for _, h := range held {
			if !h.Exclusive || h.ID == next.ID || h.To == next.To && !sameLearner(h, next) {
				continue
			}
			began := h.Began()
			start := next.ValidFrom
			if start.IsZero() {
				start = at // an unknown start counts from when it is learnt
			}
			if start.Before(began) {
				// Late (or the held one begins later still): the older
				// relation ends where the later one began.
				if next.ValidTo.IsZero() || began.Before(next.ValidTo) {
					next.ValidTo = began
				}
				continue
			}
			end := next.ValidFrom
			if end.IsZero() {
				end = at // unknown start: it ended by the time it was learned
			}
			if !h.ValidTo.IsZero() && !end.Before(h.ValidTo) {
				continue // it had already ended by then
			}
			closed := h
			closed.ValidTo = end
			plan.End = append(plan.End, closed)
		}
	}
	plan.New = next
	return plan
}

// NewGraphID makes a node ("e") or relation ("r") id: the prefix, the UTC
// time to the second and 8 random hex characters.
func NewGraphID(prefix string, now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + now.UTC().Format("20060102150405") + hex.EncodeToString(b[:])
}

// GraphStore keeps the graph. LearnRelation runs plan on the subject's
// held records (those of every node of its name that belongs to the
// person, whichever agent learnt them) and applies its result, as it is,
// in one transaction (when it returns no error, every record of the
// plan's End was ended), creating the two nodes when the person has none
// of that name (linking each to the person's L8 page of the same name),
// and adds the evidence.
type GraphStore interface {
	// UsePeople tells the store who is one person: people(user) is the
	// user ids of user's alias group (user included). The service sets it
	// once, before any other call.
	UsePeople(people func(userID string) []string)
	LearnRelation(ctx context.Context, in RelationInput, plan func(held []GraphEdge, next GraphEdge) GraphPlan) (GraphEdge, error)
	// GraphVersion changes whenever nodes or records change; GraphAll
	// reads them all (without evidence) for the in-memory copy views are
	// computed from.
	GraphVersion(ctx context.Context) (int64, error)
	GraphAll(ctx context.Context) ([]GraphNode, []GraphEdge, error)
	// GraphAround finds a node by id or name and returns it, the records
	// held now that touch it and the nodes at their other ends.
	GraphAround(ctx context.Context, scope Scope, node string) (GraphNode, []GraphEdge, []GraphNode, error)
	// GraphChanges lists the records recorded or expired in (from, to] and
	// the nodes created then, with the nodes those records touch.
	GraphChanges(ctx context.Context, scope Scope, from, to time.Time) (GraphDelta, error)
	// GraphEvidence fills in the Facts and Turns of the given records.
	GraphEvidence(ctx context.Context, edges []GraphEdge) error
	// GraphCounts counts nodes and held relations in scope.
	GraphCounts(ctx context.Context, scope Scope) (nodes, edges int, err error)
	// GraphExport reads the graph of the owners in scope for an export:
	// nodes, every record with its evidence, and the links between their
	// facts.
	GraphExport(ctx context.Context, scope Scope) (GraphExport, error)
}

// GraphAxis is the time axis of an as-of view.
type GraphAxis string

// Axes.
const (
	AxisRecorded GraphAxis = "recorded" // what the app believed then
	AxisValid    GraphAxis = "valid"    // what was true then, as known now
)

// ParseGraphAxis reads an axis; "" is recorded.
func ParseGraphAxis(s string) (GraphAxis, error) {
	switch a := GraphAxis(strings.ToLower(strings.TrimSpace(s))); a {
	case "":
		return AxisRecorded, nil
	case AxisRecorded, AxisValid:
		return a, nil
	default:
		return "", Errorf(EINVALID, "axis must be recorded or valid, not %q", s)
	}
}

// GraphDelta is what changed in the graph between two times.
type GraphDelta struct {
	From     time.Time   `json:"from"`
	To       time.Time   `json:"to"`
	Appeared []GraphEdge `json:"appeared"` // records recorded in (From, To]
	Ended    []GraphEdge `json:"ended"`    // records expired in (From, To]
	Nodes    []GraphNode `json:"nodes"`    // nodes created in (From, To] and nodes the records touch
}

// LearnRelation validates a relation and stores it by the bitemporal
// rules (see PlanRelation).
func (s *Service) LearnRelation(ctx context.Context, in RelationInput) (GraphEdge, error) {
	if s.graphStore == nil {
		return GraphEdge{}, Errorf(EUNAVAILABLE, "the knowledge graph is not available")
	}
	if err := cleanRelation(&in); err != nil {
		return GraphEdge{}, err
	}
	l, err := s.learnRelation(ctx, in)
	return l.rec, err
}

// learnt is what learning a relation did.
type learnt struct {
	rec     GraphEdge // the relation's held record, with its evidence
	recited bool      // it was held already: only evidence was added
	// ended lists the relations it ended (the held exclusive ones it took
	// over from), as the plan the store applied says: a caller retires
	// their L5 rows from these ids, not from what the clock says changed.
	ended []string
}

// learnRelation stores a cleaned relation.
func (s *Service) learnRelation(ctx context.Context, in RelationInput) (learnt, error) {
	if in.At.IsZero() {
		in.At = s.now()
	}
	var l learnt
	e, err := s.graphStore.LearnRelation(ctx, in, func(held []GraphEdge, next GraphEdge) GraphPlan {
		// A belief is never recorded before one it ends or follows was:
		// a clock read earlier (a parallel pass's other topic) moves on.
		at := in.At
		for _, h := range held {
			if !h.RecordedAt.Before(at) {
				at = h.RecordedAt.Add(time.Millisecond)
			}
		}
		p := PlanRelation(held, next, at)
		l.recited, l.ended = p.Recite != "", nil
		for _, e := range p.End {
			l.ended = append(l.ended, e.ID)
		}
		return p
	})
	if err != nil {
		return learnt{}, fmt.Errorf("learn relation %q: %w", in.Relation, err)
	}
	l.rec = e
	return l, nil
}

// cleanRelation trims and checks a relation's fields.
func cleanRelation(in *RelationInput) error {
	in.From, in.To = CleanText(in.From), CleanText(in.To)
	in.Relation = strings.ToLower(strings.Join(strings.Fields(in.Relation), " "))
	switch {
	case in.From == "" || in.To == "":
		return Errorf(EINVALID, "a relation needs both entity names")
	case utf8.RuneCountInString(in.From) > maxEntityName || utf8.RuneCountInString(in.To) > maxEntityName:
		return Errorf(EINVALID, "entity names are at most %d characters", maxEntityName)
	case in.Relation == "":
		return Errorf(EINVALID, "a relation needs its name")
	case utf8.RuneCountInString(in.Relation) > maxRelationName:
		return Errorf(EINVALID, "relation names are at most %d characters", maxRelationName)
	case NormalizeText(in.From) == NormalizeText(in.To):
		return Errorf(EINVALID, "a relation needs two different entities")
	case len(in.Facts)+len(in.Turns) == 0:
		return Errorf(EINVALID, "a relation needs evidence (fact or turn ids)")
	case len(in.Facts)+len(in.Turns) > maxEvidence:
		return Errorf(EINVALID, "a relation cites at most %d memories", maxEvidence)
	case in.Owner.UserID == "":
		return Errorf(EINVALID, "a relation needs its owner")
	}
	var err error
	if in.FromType, err = ParseEntityType(string(in.FromType)); err != nil {
		return err
	}
	in.ToType, err = ParseEntityType(string(in.ToType))
	return err
}
