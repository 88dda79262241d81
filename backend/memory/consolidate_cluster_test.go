package memory

import (
	"slices"
	"testing"
	"time"
)

// near is a fixed neighbour table.
func near(m map[string][]string) nearestFunc { return func(id string) []string { return m[id] } }

func members(st OwnerClusters) [][]string {
	var out [][]string
	for _, c := range st.Clusters {
		out = append(out, c.Members)
	}
	return out
}

func TestClusterFacts(t *testing.T) {
	cases := []struct {
		name    string
		start   []Cluster
		live    []string
		near    map[string][]string
		batch   int
		want    [][]string
		dirty   []bool
		joinedN int
	}{
		{name: "first facts fill the newest cluster", live: []string{"a", "b", "c"}, batch: 50,
			want: [][]string{{"a", "b", "c"}}, dirty: []bool{true}, joinedN: 3},
		{name: "a full cluster starts another", live: []string{"a", "b", "c"}, batch: 2,
			want: [][]string{{"a", "b"}, {"c"}}, dirty: []bool{true, true}, joinedN: 3},
		{name: "a fact joins its nearest neighbour's cluster",
			start: []Cluster{{ID: "c1", Members: []string{"a", "b"}}, {ID: "c2", Members: []string{"x"}}},
			live:  []string{"a", "b", "x", "n"}, near: map[string][]string{"n": {"b"}}, batch: 3,
			want: [][]string{{"a", "b", "n"}, {"x"}}, dirty: []bool{true, false}, joinedN: 1},
		{name: "a neighbour's full cluster sends it to the newest",
			start: []Cluster{{ID: "c1", Members: []string{"a", "b"}}, {ID: "c2", Members: []string{"x"}}},
			live:  []string{"a", "b", "x", "n"}, near: map[string][]string{"n": {"a"}}, batch: 2,
			want: [][]string{{"a", "b"}, {"x", "n"}}, dirty: []bool{false, true}, joinedN: 1},
		{name: "retired members leave without making the cluster due",
			start: []Cluster{{ID: "c1", Members: []string{"a", "b", "gone"}}, {ID: "c2", Members: []string{"old"}}},
			live:  []string{"a", "b"}, batch: 50,
			want: [][]string{{"a", "b"}}, dirty: []bool{false}, joinedN: 0},
		{name: "a joining fact lifts a rest",
			start: []Cluster{{ID: "c1", Members: []string{"a", "b"}, Fails: 3, FailedAt: time.Now()}},
			live:  []string{"a", "b", "c"}, batch: 50,
			want: [][]string{{"a", "b", "c"}}, dirty: []bool{true}, joinedN: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := OwnerClusters{Clusters: slices.Clone(tc.start), NextSeq: len(tc.start)}
			n := clusterFacts(&st, tc.live, near(tc.near), tc.batch)
			if got := members(st); !slices.EqualFunc(got, tc.want, slices.Equal[[]string]) || n != tc.joinedN {
				t.Fatalf("members = %v (joined %d), want %v (%d)", got, n, tc.want, tc.joinedN)
			}
			for i, c := range st.Clusters {
				if c.Dirty != tc.dirty[i] {
					t.Errorf("cluster %s dirty = %v", c.ID, c.Dirty)
				}
				if c.Dirty && c.Fails != 0 {
					t.Errorf("cluster %s keeps %d failures after a join", c.ID, c.Fails)
				}
			}
			ids := map[string]bool{}
			for _, c := range st.Clusters {
				if ids[c.ID] {
					t.Fatalf("cluster id %s twice", c.ID)
				}
				ids[c.ID] = true
			}
		})
	}
}

func TestReclusterKeepsProgressOfUnchangedClusters(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	st := OwnerClusters{NextSeq: 2, Clusters: []Cluster{
		{ID: "c1", Members: []string{"b", "a"}, OKAt: now.Add(-time.Hour)},
		{ID: "c2", Members: []string{"x", "y"}, OKAt: now.Add(-time.Hour)},
	}}
	// Rebuilt: a and b together again; x now goes with z.
	recluster(&st, []string{"a", "b", "x", "z", "y"}, near(map[string][]string{"z": {"x"}, "y": {"q"}}), 2, now)
	got := members(st)
	want := [][]string{{"a", "b"}, {"x", "z"}, {"y"}}
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Fatalf("members = %v, want %v", got, want)
	}
	if c := st.Clusters[0]; c.ID != "c1" || c.Dirty || !c.OKAt.Equal(now.Add(-time.Hour)) {
		t.Errorf("unchanged cluster lost its progress: %+v", c)
	}
	if c := st.Clusters[1]; c.ID == "c1" || c.ID == "c2" || !c.Dirty {
		t.Errorf("changed cluster: %+v", c)
	}
	if !st.ClusteredAt.Equal(now) {
		t.Errorf("clustered at %v", st.ClusteredAt)
	}
}

func TestClusterDue(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name         string
		c            Cluster
		due, resting bool
	}{
		{"changed", Cluster{Dirty: true, Members: []string{"a", "b"}}, true, false},
		{"unchanged", Cluster{Members: []string{"a", "b"}}, false, false},
		{"one fact", Cluster{Dirty: true, Members: []string{"a"}}, false, false},
		{"two failures", Cluster{Dirty: true, Members: []string{"a", "b"}, Fails: 2, FailedAt: now}, true, false},
		{"three failures", Cluster{Dirty: true, Members: []string{"a", "b"}, Fails: 3, FailedAt: now.Add(-time.Hour)}, false, true},
		{"three failures a day ago", Cluster{Dirty: true, Members: []string{"a", "b"}, Fails: 3, FailedAt: now.Add(-ClusterSkipFor)}, true, false},
	}
	for _, tc := range cases {
		if due, resting := clusterDue(tc.c, now); due != tc.due || resting != tc.resting {
			t.Errorf("%s: due %v resting %v, want %v %v", tc.name, due, resting, tc.due, tc.resting)
		}
	}
}

// Each owner key names one owner: an agent's key is never a user's, nor
// another agent's.
func TestOwnerKeyKeepsAgentsAndUsersApart(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range []string{
		ownerKey([]string{"amy"}, ""),
		ownerKey([]string{"amy"}, "hermes"),
		ownerKey([]string{"amy/hermes"}, ""),
		ownerKey([]string{"amy"}, "hermes/x"),
		ownerKey([]string{"amy/hermes"}, "x"),
		ownerKey([]string{"amy", "bea"}, ""),
		ownerKey([]string{"amy,bea"}, ""),
	} {
		if keys[k] {
			t.Errorf("owner key %q names two owners", k)
		}
		keys[k] = true
	}
}

// A pass queues one due cluster of each owner in turn, so a budget that
// runs out leaves no owner's topics waiting behind every cluster of
// another's.
func TestTakeTurns(t *testing.T) {
	job := func(owner, id string) *clusterJob { return &clusterJob{owner: owner, cluster: Cluster{ID: id}} }
	for _, tc := range []struct {
		name     string
		perOwner [][]*clusterJob
		want     []string
	}{
		{"none", nil, nil},
		{"owners without due clusters", [][]*clusterJob{nil, {}}, nil},
		{"one owner", [][]*clusterJob{{job("a", "1"), job("a", "2")}}, []string{"a1", "a2"}},
		{"turns", [][]*clusterJob{{job("a", "1"), job("a", "2"), job("a", "3")}, nil, {job("b", "1")}, {job("c", "1"), job("c", "2")}},
			[]string{"a1", "b1", "c1", "a2", "c2", "a3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, j := range takeTurns(tc.perOwner) {
				got = append(got, j.owner+j.cluster.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("takeTurns = %v, want %v", got, tc.want)
			}
		})
	}
}
