package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"hyatlas/backend/memory"
)

// consolidatedExport is an export of a store whose owners alice and bob
// have been consolidated once (two topics: one each).
func consolidatedExport(t *testing.T, in memory.ExportInput) (*rig, []byte, memory.ExportReport) {
	t.Helper()
	src, c := newConsolidateRig(t, consolidateCfg())
	src.aliceFacts(t)
	r1, r2 := src.turn(t, "I run on Sundays", "bob"), src.turn(t, "Sunday runs again", "bob")
	src.fact(t, "Bob runs every Sunday", "bob", r1, date("2025-05-04"))
	src.fact(t, "Bob goes running on Sundays", "bob", r2, date("2025-05-11"))
	if rep := src.consolidate(t); rep.ClustersRun != 2 || c.calls() != 2 {
		t.Fatalf("the source's pass: %+v (%d calls)", rep, c.calls())
	}
	var buf bytes.Buffer
	rep, err := src.svc.Export(context.Background(), &buf, in)
	if err != nil {
		t.Fatal(err)
	}
	return src, buf.Bytes(), rep
}

// topicOwners lists the owners of an export's topics records.
func topicOwners(t *testing.T, export []byte) []string {
	t.Helper()
	var owners []string
	for _, line := range strings.Split(strings.TrimSpace(string(export)), "\n") {
		var l struct {
			Type   string             `json:"type"`
			Topics memory.OwnerTopics `json:"topics"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Type == "topics" {
			owners = append(owners, l.Topics.Owner)
		}
	}
	return owners
}

func TestImportedTopicsAreNotSentAgain(t *testing.T) {
	ctx := context.Background()
	_, export, rep := consolidatedExport(t, memory.ExportInput{})
	if rep.Topics != 2 || !reflect.DeepEqual(topicOwners(t, export), []string{"alice", "bob"}) {
		t.Fatalf("export: %+v, topics of %v", rep, topicOwners(t, export))
	}
	dst, c := newConsolidateRig(t, consolidateCfg())
	in, err := dst.svc.Import(ctx, bytes.NewReader(export))
	if err != nil || in.Topics != 2 {
		t.Fatalf("import: %+v, %v", in, err)
	}
	if rep := dst.consolidate(t); rep.ClustersRun != 0 || c.calls() != 0 || rep.OwnersUnchanged != 2 {
		t.Fatalf("the copy's first pass sent topics the original had sent: %+v (%d calls)", rep, c.calls())
	}
	// What is new after the import is sent, as the original would have.
	dst.fact(t, "Alice moved to Lisbon", "alice", dst.turn(t, "we moved", "alice"), date("2025-06-01"))
	if rep := dst.consolidate(t); rep.ClustersRun != 1 || c.calls() != 1 {
		t.Fatalf("a new fact after the import: %+v (%d calls)", rep, c.calls())
	}
	// Imported again: the topics are held already, nothing is added.
	if again, err := dst.svc.Import(ctx, bytes.NewReader(export)); err != nil || again.Topics != 0 {
		t.Fatalf("second import: %+v, %v", again, err)
	}
}

func TestExportOfOnePersonCarriesOnlyTheirTopics(t *testing.T) {
	_, export, rep := consolidatedExport(t, memory.ExportInput{UserID: "bob"})
	if rep.Topics != 1 || !reflect.DeepEqual(topicOwners(t, export), []string{"bob"}) {
		t.Fatalf("export of bob: %+v, topics of %v", rep, topicOwners(t, export))
	}
	dst, c := newConsolidateRig(t, consolidateCfg())
	if in, err := dst.svc.Import(context.Background(), bytes.NewReader(export)); err != nil || in.Topics != 1 || in.Imported != 4 {
		t.Fatalf("import: %+v, %v", in, err)
	}
	if rep := dst.consolidate(t); c.calls() != 0 {
		t.Fatalf("bob's topic was sent again: %+v", rep)
	}
}

func TestImportJoinsTheTopicsHeldHere(t *testing.T) {
	_, export, _ := consolidatedExport(t, memory.ExportInput{UserID: "alice"})
	dst, c := newConsolidateRig(t, consolidateCfg())
	dst.fact(t, "Alice plays chess on Fridays", "alice", dst.turn(t, "chess night", "alice"), date("2025-02-07"))
	dst.fact(t, "Alice plays chess every Friday", "alice", dst.turn(t, "chess again", "alice"), date("2025-02-14"))
	dst.consolidate(t)
	sent := c.calls()
	if in, err := dst.svc.Import(context.Background(), bytes.NewReader(export)); err != nil || in.Topics != 1 {
		t.Fatalf("import: %+v, %v", in, err)
	}
	if rep := dst.consolidate(t); c.calls() != sent {
		t.Fatalf("after the import, a pass sent %d topics: %+v", c.calls()-sent, rep)
	}
}

func TestMergeTopics(t *testing.T) {
	cl := func(id string, members ...string) memory.Cluster { return memory.Cluster{ID: id, Members: members} }
	cases := []struct {
		name       string
		held, in   memory.OwnerClusters
		want       memory.OwnerClusters
		wantChange bool
	}{
		{"none held: taken whole",
			memory.OwnerClusters{}, memory.OwnerClusters{NextSeq: 2, Clusters: []memory.Cluster{cl("c1", "a", "b"), cl("c2", "c")}},
			memory.OwnerClusters{NextSeq: 2, Clusters: []memory.Cluster{cl("c1", "a", "b"), cl("c2", "c")}}, true},
		{"a next_seq behind its ids moves past them",
			memory.OwnerClusters{}, memory.OwnerClusters{Clusters: []memory.Cluster{cl("c7", "a")}},
			memory.OwnerClusters{NextSeq: 7, Clusters: []memory.Cluster{cl("c7", "a")}}, true},
		{"a fact held in a topic stays there",
			memory.OwnerClusters{NextSeq: 1, Clusters: []memory.Cluster{cl("c1", "a")}},
			memory.OwnerClusters{NextSeq: 1, Clusters: []memory.Cluster{cl("c1", "a", "b")}},
			memory.OwnerClusters{NextSeq: 2, Clusters: []memory.Cluster{cl("c1", "a"), cl("c2", "b")}}, true},
		{"an id held here is renumbered, another is kept",
			memory.OwnerClusters{NextSeq: 1, Clusters: []memory.Cluster{cl("c1", "x")}},
			memory.OwnerClusters{NextSeq: 3, Clusters: []memory.Cluster{cl("c1", "a"), cl("c3", "b")}},
			memory.OwnerClusters{NextSeq: 4, Clusters: []memory.Cluster{cl("c1", "x"), cl("c4", "a"), cl("c3", "b")}}, true},
		{"all held already: nothing added",
			memory.OwnerClusters{NextSeq: 1, Clusters: []memory.Cluster{cl("c1", "a", "b")}},
			memory.OwnerClusters{NextSeq: 5, Clusters: []memory.Cluster{cl("c5", "b", "a")}},
			memory.OwnerClusters{NextSeq: 5, Clusters: []memory.Cluster{cl("c1", "a", "b")}}, false},
	}
	for _, c := range cases {
		got, changed := memory.MergeTopics(c.held, c.in)
		if changed != c.wantChange || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v (%v), want %+v (%v)", c.name, got, changed, c.want, c.wantChange)
		}
	}
}

func TestImportRefusesBadTopics(t *testing.T) {
	ctx := context.Background()
	_, export, _ := consolidatedExport(t, memory.ExportInput{})
	lines := strings.Split(strings.TrimSpace(string(export)), "\n")
	var topics []int
	for i, l := range lines {
		if strings.HasPrefix(l, `{"type":"topics"`) {
			topics = append(topics, i)
		}
	}
	if len(topics) != 2 {
		t.Fatalf("%d topics records", len(topics))
	}
	first := lines[topics[0]]
	with := func(i int, line string) string {
		out := append([]string{}, lines...)
		out[i] = line
		return strings.Join(out, "\n")
	}
	cases := []struct{ name, text, want string }{
		{"no owner", with(topics[0], strings.Replace(first, `"owner":"alice"`, `"owner":""`, 1)), "an owner of 1 to"},
		{"no topics", with(topics[0], `{"type":"topics"}`), "a topics record without its topics"},
		{"the same owner twice", with(topics[1], first), "the topics of alice are also on line"},
		{"a negative next_seq", with(topics[0], strings.Replace(first, `"next_seq":1`, `"next_seq":-1`, 1)), "next_seq must be between 0 and"},
		// The next topic's number overflowed, and the copy's own export was refused.
		{"a next_seq at the largest integer", with(topics[0], strings.Replace(first, `"next_seq":1`, `"next_seq":9223372036854775807`, 1)), "next_seq must be between 0 and"},
		{"a cluster numbered at the largest integer", with(topics[0], strings.Replace(first, `"id":"c1"`, `"id":"c9223372036854775807"`, 1)), "is numbered past"},
		{"a cluster with no members", with(topics[0], regexp.MustCompile(`"members":\[[^\]]*\]`).ReplaceAllString(first, `"members":[]`)), "cluster c1 needs 1 to"},
		{"a field it does not have", with(topics[0], strings.Replace(first, `"next_seq"`, `"seq":1,"next_seq"`, 1)), "a field an export does not have"},
		{"a member that is no id", with(topics[0], strings.Replace(first, `"members":["`, `"members":["\u0001","`, 1)), "a member that is not a memory id"},
		{"an end count that is off", with(len(lines)-1, strings.Replace(lines[len(lines)-1], `"topic_owners":2`, `"topic_owners":3`, 1)), "the end record does not match"},
	}
	for _, c := range cases {
		dst, _ := newConsolidateRig(t, consolidateCfg())
		_, err := dst.svc.Import(ctx, strings.NewReader(c.text))
		if err == nil || !strings.Contains(memory.ErrorMessage(err), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
			continue
		}
		if rows, _, _ := dst.store.List(ctx, memory.ListFilter{IncludeRetired: true}); len(rows) != 0 {
			t.Errorf("%s: a refused import wrote %d rows", c.name, len(rows))
		}
	}
}

func TestAVersion2ExportStillImports(t *testing.T) {
	_, export, _ := consolidatedExport(t, memory.ExportInput{})
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(string(export)), "\n") {
		if strings.HasPrefix(l, `{"type":"topics"`) {
			continue
		}
		l = strings.Replace(l, `"version":3`, `"version":2`, 1)
		l = strings.Replace(l, `,"topic_owners":2`, ``, 1)
		kept = append(kept, l)
	}
	dst, c := newConsolidateRig(t, consolidateCfg())
	in, err := dst.svc.Import(context.Background(), strings.NewReader(strings.Join(kept, "\n")))
	if err != nil || in.Topics != 0 || in.Imported == 0 {
		t.Fatalf("import of version 2: %+v, %v", in, err)
	}
	// Without the topics, the copy's first pass sends each topic once more.
	if rep := dst.consolidate(t); c.calls() != 2 {
		t.Fatalf("pass after a version 2 import: %+v (%d calls)", rep, c.calls())
	}
}

// An imported topic keeps only the memories the import brings (a member
// it does not bring is never marked as called), and a long last error,
// which an older export may carry, is cut short rather than refused.
func TestImportKeepsTopicsToWhatItBrings(t *testing.T) {
	_, export, _ := consolidatedExport(t, memory.ExportInput{UserID: "alice"})
	long := strings.Repeat("語", 700) // 2,100 bytes
	text := strings.Replace(string(export), `"members":["`, `"last_error":"`+long+`","members":["m-not-in-the-file","`, 1)
	dst, _ := newConsolidateRig(t, consolidateCfg())
	if in, err := dst.svc.Import(context.Background(), strings.NewReader(text)); err != nil || in.Topics != 1 {
		t.Fatalf("import: %+v, %v", in, err)
	}
	all, err := dst.store.AllClusters(context.Background())
	if err != nil || len(all) != 1 {
		t.Fatalf("topics here: %+v, %v", all, err)
	}
	for _, c := range all[0].State.Clusters {
		if slices.Contains(c.Members, "m-not-in-the-file") {
			t.Errorf("cluster %s took a member the import did not bring: %v", c.ID, c.Members)
		}
		if len(c.LastErr) > 1000 || !utf8.ValidString(c.LastErr) {
			t.Errorf("cluster %s: last error of %d bytes (valid UTF-8: %v)", c.ID, len(c.LastErr), utf8.ValidString(c.LastErr))
		}
	}
}
