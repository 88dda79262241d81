package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// nearestFunc ranks an owner's other facts by similarity to a fact, best
// first, keeping only those at least ClusterJoin similar.
type nearestFunc func(id string) []string

// clusterFacts brings an owner's clusters in line with their live facts
// (oldest first). Members no longer live leave their cluster without
// making it due (a merge or drop the cluster's own call made must not
// call it again); a live fact in no cluster joins the cluster of its
// nearest clustered neighbour when that has room, else the newest cluster
// when that has room, else a new one, and makes it due. Empty clusters
// are removed. It returns how many facts joined.
func clusterFacts(st *OwnerClusters, live []string, nearest nearestFunc, batch int) int {
	if batch < 2 {
		batch = 2
	}
	isLive := make(map[string]bool, len(live))
	for _, id := range live {
		isLive[id] = true
	}
	where := map[string]int{} // fact -> index in st.Clusters
	kept := st.Clusters[:0]
	for _, c := range st.Clusters {
		c.Members = slices.DeleteFunc(c.Members, func(id string) bool { return !isLive[id] })
		if len(c.Members) > 0 {
			kept = append(kept, c)
		}
	}
	st.Clusters = kept
	for i, c := range st.Clusters {
		for _, id := range c.Members {
			where[id] = i
		}
	}
	joined := 0
	for _, id := range live {
		if _, ok := where[id]; ok {
			continue
		}
		i := pickCluster(st, where, nearest(id), batch)
		if i < 0 {
			st.NextSeq++
			st.Clusters = append(st.Clusters, Cluster{ID: "c" + strconv.Itoa(st.NextSeq)})
			i = len(st.Clusters) - 1
		}
		c := &st.Clusters[i]
		c.Members = append(c.Members, id)
		c.Dirty, c.Fails, c.LastErr = true, 0, "" // a change lifts a skip
		where[id] = i
		joined++
	}
	return joined
}

// pickCluster is the cluster a new fact joins: its nearest clustered
// neighbour's when it has room, else the newest when it has room; -1 for
// a new one.
func pickCluster(st *OwnerClusters, where map[string]int, near []string, batch int) int {
	for _, n := range near {
		if i, ok := where[n]; ok && len(st.Clusters[i].Members) < batch {
			return i
		}
	}
	if n := len(st.Clusters); n > 0 && len(st.Clusters[n-1].Members) < batch {
		return n - 1
	}
	return -1
}

// recluster rebuilds an owner's clusters from scratch; a rebuilt cluster
// with exactly the members of an old one keeps its id and progress.
func recluster(st *OwnerClusters, live []string, nearest nearestFunc, batch int, now time.Time) {
	old := st.Clusters
	st.Clusters = nil
	clusterFacts(st, live, nearest, batch)
	for i := range st.Clusters {
		c := &st.Clusters[i]
		for _, o := range old {
			if sameMembers(o.Members, c.Members) {
				members := c.Members
				*c = o
				c.Members = members
				break
			}
		}
	}
	st.ClusteredAt = now
}

func sameMembers(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// clusterDue says whether a cluster is called this pass; skipped is true
// for a cluster resting after ClusterMaxFails failures.
func clusterDue(c Cluster, now time.Time) (due, skipped bool) {
	if !c.Dirty || len(c.Members) < 2 {
		return false, false
	}
	if c.Fails >= ClusterMaxFails && now.Sub(c.FailedAt) < ClusterSkipFor {
		return false, true
	}
	return true, false
}

// ConsolidationDue reports whether a pass now would call the model: an
// owner with two or more facts has one in no cluster, or a due cluster.
func (s *Service) ConsolidationDue(ctx context.Context) (bool, error) {
	if !s.HasSlowPath() {
		return false, nil
	}
	owners, err := s.factsByOwner(ctx, true)
	if err != nil {
		return false, err
	}
	now := s.now()
	for _, o := range owners {
		if len(o.facts) < 2 {
			continue
		}
		st, err := s.cstore.LoadClusters(ctx, o.key)
		if err != nil {
			return false, fmt.Errorf("load clusters of %s: %w", o.key, err)
		}
		clustered := map[string]bool{}
		for _, c := range st.Clusters {
			if due, _ := clusterDue(c, now); due {
				return true, nil
			}
			for _, id := range c.Members {
				clustered[id] = true
			}
		}
		for _, f := range o.facts {
			if !clustered[f.ID] {
				return true, nil
			}
		}
	}
	return false, nil
}
