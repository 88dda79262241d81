package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/config"
	"hyatlas/backend/memory"
)

// clusterFact matches a fact line of a consolidation prompt: its id and text.
var clusterFact = regexp.MustCompile(`(?m)^- \[(m\d{14}[0-9a-f]{8})\] \([^)]*\) (.*)$`)

// ultraReply scripts the fake model for a whole ultra run: extraction of
// each write, summaries, one consolidation of the cluster and an empty
// cross-topic answer.
func ultraReply(q llmRequest) (int, string) {
	switch {
	case q.extraction():
		return 200, extractionFor(q.User)
	case q.consolidation():
		return 200, consolidationFor(q.User)
	case strings.Contains(q.System, "patterns"):
		return 200, `{"patterns":[]}`
	default: // episode and Now summaries
		return 200, "Alice settled in at Globex and keeps a morning tea habit."
	}
}

// extractionFor answers one write, by what the write says.
func extractionFor(user string) string {
	text := user[strings.LastIndex(user, "<text>"):]
	reply := map[string]any{"facts": []any{}, "intentions": []any{}, "intentions_done": []any{}, "entities": []any{}, "experiences": []any{}}
	switch {
	case strings.Contains(text, "billing"):
		reply["facts"] = []any{fact("Alice's team at Globex ships the billing service", "project_state")}
	case strings.Contains(text, "Globex"):
		reply["facts"] = []any{fact("Alice started as an engineer at Globex in March 2025", "project_state", "event_at", "2025-03-01")}
		reply["entities"] = []any{map[string]any{"name": "Globex", "kind": "organization",
			"state": []any{map[string]any{"key": "relation", "value": "Alice's employer"}}, "summary": "Alice's employer."}}
	case strings.Contains(text, "tea"):
		reply["facts"] = []any{fact("Alice drinks green tea every morning", "user_preferences")}
	case strings.Contains(text, "passport"):
		reply["intentions"] = []any{map[string]any{"goal": "Renew Alice's passport", "due_at": "2026-12-30"}}
	case strings.Contains(text, "thanks"):
		reply["facts"] = []any{fact("Alice thanked the assistant for the help", "project_state")}
	}
	b, _ := json.Marshal(reply)
	return string(b)
}

// consolidationFor answers a cluster: Alice works at Globex (from the two
// Globex facts), a schema on them, a drop of the thanks, and an arc.
func consolidationFor(user string) string {
	var globex []string
	var thanks string
	for _, m := range clusterFact.FindAllStringSubmatch(user, -1) {
		switch {
		case strings.Contains(m[2], "Globex"):
			globex = append(globex, m[1])
		case strings.Contains(m[2], "thanked"):
			thanks = m[1]
		}
	}
	reply := map[string]any{
		"merges": []any{},
		"drops":  []any{map[string]any{"id": thanks, "reason": "small talk, nothing to remember"}},
		"schemas": []any{map[string]any{"text": "Alice's working life centres on Globex's billing work",
			"evidence": globex}},
		"edges": []any{map[string]any{"from": "Alice", "from_type": "person", "relation": "works at", "to": "Globex",
			"to_type": "organization", "exclusive": true, "valid_from": nil, "evidence": globex}},
		"arc": "Alice joined Globex in March 2025 and works on its billing service.",
	}
	b, _ := json.Marshal(reply)
	return string(b)
}

func ultraConfig(c *config.Config) {
	c.Mode = memory.ModeUltra
	sync := true
	c.SyncExtract = &sync
	c.Consolidate = config.ConsolidateConfig{Every: 6 * time.Hour, Catchup: 20 * time.Minute, Batch: 50, Parallel: 2,
		Graph: true, CrossEvery: 24 * time.Hour}
}

// TestUltra_FillsAllEightLayers: in ultra mode, writes extracted by the
// fake model and one consolidation pass run through POST /api/v1/digest
// fill all eight layers; the relation answers both as-of questions; the
// dropped fact can be restored.
func TestUltra_FillsAllEightLayers(t *testing.T) {
	r := newLLMRig(t, ultraConfig)
	if err := r.eng.x.keys.Hand("sk-test-key-1"); err != nil {
		t.Fatal(err)
	}
	r.fake.setReply(ultraReply)
	ctx := context.Background()
	for _, text := range []string{
		"I started working at Globex as an engineer in March 2025.",
		"I drink green tea every morning.",
		"My team at Globex ships the billing service.",
		"Remind me to renew my passport by the end of December.",
		"thanks, that was helpful",
	} {
		if res := r.add(t, text); res.ExtractionStatus != memory.StatusDone {
			t.Fatalf("write %q: %+v", text, res)
		}
	}
	if st, err := r.c.Status(ctx); err != nil || st.Consolidations != 0 || st.LastConsolidated != nil {
		t.Fatalf("status before a pass: %+v, %v", st, err)
	}

	var digest api.DigestResponse
	if err := r.do(t, http.MethodPost, "/api/v1/digest", nil, &digest); err != nil {
		t.Fatal(err)
	}
	rep := digest.Report
	if !digest.DigestOK || rep == nil || rep.ClustersRun != 1 || rep.Edges != 1 || rep.Schemas != 1 || rep.Dropped != 1 ||
		rep.Arc != 1 || len(rep.Errors) != 0 || digest.GraphEdges != 1 {
		t.Fatalf("digest: %+v, report %+v", digest, rep)
	}

	st, err := r.c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range memory.Layers {
		if st.Layers[l] == 0 {
			t.Errorf("layer %s is empty after a pass: %v", l, st.Layers)
		}
	}
	if st.Consolidations != 1 || st.LastConsolidated == nil || st.GraphNodes != 2 || st.GraphEdges != 1 {
		t.Errorf("status: consolidations %d, last %v, graph %d/%d", st.Consolidations, st.LastConsolidated, st.GraphNodes, st.GraphEdges)
	}

	// What was true when, as known now, and what the app believed when.
	asOf := func(axis string, at time.Time) int {
		var v api.GraphAsOfResponse
		if err := r.do(t, http.MethodGet, fmt.Sprintf("/api/v1/graph-as-of?axis=%s&ts=%d&user_id=u1", axis, at.Unix()), nil, &v); err != nil {
			t.Fatal(err)
		}
		return len(v.Relations)
	}
	if asOf("valid", time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)) != 1 || asOf("valid", time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)) != 0 {
		t.Error("valid axis: the relation is not true from March 2025 on")
	}
	if asOf("recorded", today.Add(-time.Hour)) != 0 || asOf("recorded", today.Add(time.Hour)) != 1 {
		t.Error("recorded axis: the relation is not believed from the pass on")
	}

	// The drop is reversible.
	var dropped memory.Memory
	rows, err := r.eng.Memory.List(ctx, memory.ListInput{Layer: string(memory.LayerFact), IncludeRetired: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rows.Memories {
		if m.RetiredHow == memory.RetiredDropped {
			dropped = m
		}
	}
	if dropped.RetireReason != "small talk, nothing to remember" {
		t.Fatalf("dropped fact: %+v", dropped)
	}
	if m, err := r.c.Restore(ctx, dropped.ID); err != nil || m.RetiredAt != nil {
		t.Fatalf("restore: %+v, %v", m, err)
	}

	// Every call is in the ledger, the consolidation too.
	calls, err := r.c.Egress(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	purposes := map[string]int{}
	for _, c := range calls {
		purposes[c.Purpose]++
	}
	if purposes["consolidate"] != 1 || purposes["extract"] != 5 {
		t.Errorf("ledger purposes: %v", purposes)
	}

	// A second pass has nothing due and calls nothing.
	before := len(r.fake.requests())
	if err := r.do(t, http.MethodPost, "/api/v1/digest", nil, &digest); err != nil {
		t.Fatal(err)
	}
	if digest.Report.ClustersRun != 0 || len(r.fake.requests()) != before {
		t.Errorf("second pass: %+v, %d new calls", digest.Report, len(r.fake.requests())-before)
	}
	var runs api.DigestResponse
	if err := r.do(t, http.MethodGet, "/api/v1/digest", nil, &runs); err != nil || runs.Runs == nil || *runs.Runs != 2 {
		t.Errorf("GET digest: %+v, %v", runs, err)
	}
}

// TestDigest_WithoutSlowPath: pro mode answers that no pass can run.
func TestDigest_WithoutSlowPath(t *testing.T) {
	r := newLLMRig(t, nil)
	var out api.DigestResponse
	if err := r.do(t, http.MethodPost, "/api/v1/digest", nil, &out); err != nil {
		t.Fatal(err)
	}
	if out.DigestOK || out.Reason == "" || out.Mode != memory.ModePro {
		t.Fatalf("digest in pro: %+v", out)
	}
	if st, err := r.c.Status(context.Background()); err != nil || st.Consolidations != -1 {
		t.Fatalf("status: %+v, %v", st, err)
	}
}

// TestUltra_StartWithWorkDueBeginsWithAPass: an instance that stops with
// facts never consolidated runs a pass soon after its next start, without
// waiting for the six-hour tick.
func TestUltra_StartWithWorkDueBeginsWithAPass(t *testing.T) {
	kr := &memKeyring{}
	r := newLLMRigWith(t, kr, ultraConfig)
	if err := r.eng.x.keys.Save("sk-test-key-1"); err != nil {
		t.Fatal(err)
	}
	r.fake.setReply(ultraReply)
	r.add(t, "I started working at Globex as an engineer in March 2025.")
	r.add(t, "My team at Globex ships the billing service.")
	if err := r.eng.Close(); err != nil {
		t.Fatal(err)
	}
	consolidateStartDelay = 10 * time.Millisecond
	t.Cleanup(func() { consolidateStartDelay = 30 * time.Second })
	r2 := openLLMRig(t, r.cfg, r.fake, kr, &testClock{now: today})
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := r2.c.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Consolidations == 1 {
			if st.Layers[memory.LayerKnowledge] != 1 || st.Layers[memory.LayerSchema] != 1 {
				t.Fatalf("after the start pass: %v", st.Layers)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pass within 30s of a start with work due: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestUltra_ScriptedReplies runs passes against the fake OpenAI-compatible
// server with replies a real model might give: unreadable prose, invented
// ids, a merge of one fact, a drop without a reason, and an endpoint that
// fails. Nothing is retired by a reply that fails a guard; a reply that
// cannot be read leaves the cluster due; a failing endpoint charges
// nothing.
func TestUltra_ScriptedReplies(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		content string
		check   func(t *testing.T, rep *memory.ConsolidationReport)
	}{
		{"prose instead of JSON", 200, "I looked at the facts and they seem fine to me.", func(t *testing.T, rep *memory.ConsolidationReport) {
			if rep.ClustersRun != 0 || rep.ClustersPending != 1 || len(rep.Errors) != 1 || rep.ProviderDown {
				t.Errorf("report %+v", rep)
			}
		}},
		{"invented ids, a merge of one fact, a drop without a reason", 200,
			`{"merges":[{"ids":["m20990101000000deadbeef","FACT"],"text":"x"},{"ids":["FACT"],"text":"y"}],
			  "drops":[{"id":"FACT","reason":""},{"id":"m20990101000000deadbeef","reason":"gone"}],
			  "schemas":[],"edges":[{"from":"Alice","to":"Globex","relation":"works at","exclusive":true,"evidence":["FACT"]}],"arc":null}`,
			func(t *testing.T, rep *memory.ConsolidationReport) {
				if rep.ClustersRun != 1 || rep.Merged+rep.Dropped+rep.Edges != 0 || len(rep.Errors) != 0 {
					t.Errorf("report %+v", rep)
				}
			}},
		{"the endpoint fails", http.StatusInternalServerError, "upstream error", func(t *testing.T, rep *memory.ConsolidationReport) {
			if rep.ClustersRun != 0 || rep.ClustersPending != 1 || len(rep.Errors) != 1 {
				t.Errorf("report %+v", rep)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newLLMRig(t, ultraConfig)
			if err := r.eng.x.keys.Hand("sk-test-key-1"); err != nil {
				t.Fatal(err)
			}
			r.fake.setReply(ultraReply)
			for _, text := range []string{"I started working at Globex as an engineer in March 2025.", "I drink green tea every morning."} {
				r.add(t, text)
			}
			facts := r.live(t, memory.LayerFact)
			r.fake.setReply(func(q llmRequest) (int, string) {
				if q.consolidation() {
					return tc.status, strings.ReplaceAll(tc.content, "FACT", facts[0].ID)
				}
				return ultraReply(q)
			})
			var digest api.DigestResponse
			if err := r.do(t, http.MethodPost, "/api/v1/digest", nil, &digest); err != nil {
				t.Fatal(err)
			}
			tc.check(t, digest.Report)
			if got := r.live(t, memory.LayerFact); len(got) != len(facts) {
				t.Errorf("%d live facts after the pass, want %d", len(got), len(facts))
			}
			if n := r.live(t, memory.LayerKnowledge); len(n) != 0 {
				t.Errorf("L5 rows: %+v", n)
			}
		})
	}
}
