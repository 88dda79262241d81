package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// OwnerTopics is one consolidation owner's topics (its clusters and where
// their calls stand) as an export carries them, under the owner's key
// (see ownerKey). With them, an imported store's first pass calls only the
// topics that changed since, instead of sending every topic to the model
// once more.
type OwnerTopics struct {
	Owner string        `json:"owner"`
	State OwnerClusters `json:"state"`
}

// ImportSet is what an import writes in one transaction.
type ImportSet struct {
	Rows   []ExportRow
	Graph  GraphExport
	Topics []OwnerTopics
	// At is when the import ran: a live turn that comes in pending is
	// asked for extraction then (extract_asked_at), so the catch-up
	// window counts from the import, not from when it was said.
	At time.Time
}

// ImportWritten is what an import wrote: the ids of the new rows, what it
// added to the graph, and how many owners' topics it added to.
type ImportWritten struct {
	IDs    []string
	Graph  GraphImportReport
	Topics int
	// Retired lists the rows the graph's rules retired as it came in (the
	// L5 rows of relations it ended, or that nothing live here backs),
	// imported or held here before.
	Retired []string
}

// Bounds of an imported topics record.
const (
	maxTopicsOwnerLen = 16 << 10
	maxTopicsClusters = 1 << 20
	maxTopicsMembers  = 1 << 16 // one cluster's
	// maxTopicsSeq bounds next_seq and the number in a cluster id: far
	// past what passes reach (a few new topics each), far short of
	// overflowing the counter that numbers the next one.
	maxTopicsSeq = 1 << 40
)

// readTopics reads every owner's topics for an export. It runs before the
// rows are read: a pass between the two can then only make the topics
// older than the rows (a topic the copy calls once more), never newer (a
// topic marked done whose merge the copy does not hold).
func (s *Service) readTopics(ctx context.Context) ([]OwnerTopics, error) {
	if s.cstore == nil {
		return nil, nil
	}
	all, err := s.cstore.AllClusters(ctx)
	if err != nil {
		return nil, fmt.Errorf("export the topics: %w", err)
	}
	return all, nil
}

// keepMembers keeps, of each cluster, the members in keep (an export: the
// facts it holds; an import: the memories it brings); a cluster left
// empty goes, and so does an owner left with none. An export of one
// person or agent so carries only their topics, whatever the keys say,
// and an import never marks as called a fact it did not bring.
func keepMembers(all []OwnerTopics, keep map[string]bool) []OwnerTopics {
	var out []OwnerTopics
	for _, o := range all {
		kept := o.State.Clusters[:0:0]
		for _, c := range o.State.Clusters {
			c.Members = slices.DeleteFunc(slices.Clone(c.Members), func(id string) bool { return !keep[id] })
			c.LastErr = clipText(c.LastErr, maxReasonLen)
			if len(c.Members) > 0 {
				kept = append(kept, c)
			}
		}
		if len(kept) == 0 {
			continue
		}
		o.State.Clusters = kept
		out = append(out, o)
	}
	return out
}

// checkImportedTopics validates one topics record.
func checkImportedTopics(l exportLine) (OwnerTopics, error) {
	if l.Topics == nil {
		return OwnerTopics{}, fmt.Errorf("a topics record without its topics")
	}
	t := *l.Topics
	switch {
	case t.Owner == "" || len(t.Owner) > maxTopicsOwnerLen || !utf8.ValidString(t.Owner):
		return t, fmt.Errorf("topics: an owner of 1 to %d bytes of UTF-8 is required", maxTopicsOwnerLen)
	case len(t.State.Clusters) > maxTopicsClusters:
		return t, fmt.Errorf("topics of %s: more than %d clusters", t.Owner, maxTopicsClusters)
	case t.State.NextSeq < 0 || t.State.NextSeq > maxTopicsSeq:
		return t, fmt.Errorf("topics of %s: next_seq must be between 0 and %d", t.Owner, maxTopicsSeq)
	case !ValidTime(t.State.ClusteredAt) || !ValidTime(t.State.CrossAt):
		return t, fmt.Errorf("topics of %s: its times must fall within the years 1 to 9999", t.Owner)
	}
	ids, members := map[string]bool{}, map[string]bool{}
	for i := range t.State.Clusters {
		c := &t.State.Clusters[i]
		c.LastErr = clipText(c.LastErr, maxReasonLen) // a note for the person: kept short, never refused
		switch {
		case c.ID == "" || checkLabel("cluster id", c.ID) != nil:
			return t, fmt.Errorf("topics of %s: a cluster needs an id (at most %d bytes of plain text)", t.Owner, maxIDLen)
		case ids[c.ID]:
			return t, fmt.Errorf("topics of %s: cluster %s is listed twice", t.Owner, c.ID)
		case clusterSeq(c.ID) > maxTopicsSeq:
			return t, fmt.Errorf("topics of %s: cluster %s is numbered past %d", t.Owner, c.ID, maxTopicsSeq)
		case len(c.Members) == 0 || len(c.Members) > maxTopicsMembers:
			return t, fmt.Errorf("topics of %s: cluster %s needs 1 to %d members", t.Owner, c.ID, maxTopicsMembers)
		case c.Fails < 0:
			return t, fmt.Errorf("topics of %s: cluster %s: fails must not be negative", t.Owner, c.ID)
		case !ValidTime(c.OKAt) || !ValidTime(c.FailedAt):
			return t, fmt.Errorf("topics of %s: cluster %s: its times must fall within the years 1 to 9999", t.Owner, c.ID)
		}
		ids[c.ID] = true
		for _, id := range c.Members {
			if id == "" || checkLabel("member", id) != nil {
				return t, fmt.Errorf("topics of %s: cluster %s has a member that is not a memory id", t.Owner, c.ID)
			}
			if members[id] {
				return t, fmt.Errorf("topics of %s: memory %s is in two clusters", t.Owner, id)
			}
			members[id] = true
		}
	}
	return t, nil
}

// clipText keeps at most n bytes of s, cut at a character, as valid UTF-8.
func clipText(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// MergeTopics merges imported topics into the owner's held ones (the zero
// state when it has none) and says whether anything was added. With none
// held, the import's are taken whole. Else each imported cluster adds its
// members that no held cluster has (a fact already in a held topic stays
// where it is); one with none left adds nothing. A cluster keeps its id
// (the topic its schemas and relation rows name) unless a held one has
// it, and NextSeq moves past every id, so the next new cluster's id is
// new. The held state's times are kept. A member that is not one of the
// owner's live facts is dropped by the next pass (see clusterFacts).
func MergeTopics(held, imported OwnerClusters) (OwnerClusters, bool) {
	out := held
	if len(held.Clusters) == 0 {
		out = imported
		out.Clusters = nil
	}
	out.NextSeq = max(held.NextSeq, imported.NextSeq)
	have, taken := map[string]bool{}, map[string]bool{}
	for _, c := range out.Clusters {
		taken[c.ID] = true
		for _, id := range c.Members {
			have[id] = true
		}
	}
	for _, c := range imported.Clusters {
		out.NextSeq = max(out.NextSeq, clusterSeq(c.ID))
	}
	added := false
	for _, c := range imported.Clusters {
		c.Members = slices.DeleteFunc(slices.Clone(c.Members), func(id string) bool { return have[id] })
		if len(c.Members) == 0 {
			continue
		}
		if taken[c.ID] {
			out.NextSeq++
			c.ID = "c" + strconv.Itoa(out.NextSeq)
		}
		taken[c.ID] = true
		for _, id := range c.Members {
			have[id] = true
		}
		out.Clusters = append(out.Clusters, c)
		added = true
	}
	return out, added
}

// clusterSeq is the number in a cluster id "c<N>" (0 for another id).
func clusterSeq(id string) int {
	if len(id) < 2 || id[0] != 'c' {
		return 0
	}
	n, err := strconv.Atoi(id[1:])
	if err != nil || n < 0 {
		return 0
	}
	return n
}
