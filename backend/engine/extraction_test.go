package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/config"
	"hyatlas/backend/memory"
)

// add writes text through the HTTP API and returns the reply.
func (r *llmRig) add(t *testing.T, text string) api.AddResponse {
	t.Helper()
	res, err := r.c.Add(context.Background(), api.AddRequest{Text: &text, UserID: "u1"})
	if err != nil {
		t.Fatalf("add %q: %v", text, err)
	}
	return res
}

func TestExtraction_PreferenceChangeRetiresTheOldFact(t *testing.T) {
	r := newLLMRig(t, nil)
	if err := r.eng.x.keys.Hand("sk-test-key-1"); err != nil {
		t.Fatal(err)
	}
	r.fake.setReply(func(q llmRequest) (int, string) {
		if ids := listedIDs(q.User); len(ids) > 0 {
			return 200, planJSON([]map[string]any{fact("The user's project Foxtrot runs on Postgres 16", "user_preferences",
				"replaces", ids[:1])}, nil)
		}
		return 200, planJSON([]map[string]any{fact("The user's project Foxtrot runs on Postgres 15", "user_preferences")}, nil)
	})
	first := r.add(t, "My project Foxtrot runs on Postgres 15.")
	if first.ExtractionStatus != memory.StatusDone {
		t.Fatalf("first write: %+v", first)
	}
	old := r.live(t, memory.LayerFact)
	if len(old) != 1 {
		t.Fatalf("facts after the first write: %+v", old)
	}
	second := r.add(t, "I moved my project Foxtrot from Postgres 15 to Postgres 16.")
	if second.ExtractionStatus != memory.StatusDone {
		t.Fatalf("second write: %+v", second)
	}
	reqs := r.fake.requests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.User, old[0].ID) || !strings.Contains(last.User, "Postgres 15") {
		t.Fatalf("the stored fact was not offered to the model:\n%s", last.User)
	}
	if last.Model != "test-model" || last.Auth != "Bearer sk-test-key-1" || last.Format != "json_schema" ||
		!strings.HasPrefix(last.UserAgent, "HyAtlas/") {
		t.Errorf("request model %q auth %q format %q UA %q", last.Model, last.Auth, last.Format, last.UserAgent)
	}
	facts := r.live(t, memory.LayerFact)
	if len(facts) != 1 || !strings.Contains(facts[0].Content, "Postgres 16") {
		t.Fatalf("live facts: %+v", facts)
	}
	d, err := r.c.Get(context.Background(), old[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.RetiredHow != memory.RetiredReplaced || d.ReplacedBy == nil || d.ReplacedBy.ID != facts[0].ID {
		t.Errorf("old fact: how %q replaced by %+v", d.RetiredHow, d.ReplacedBy)
	}
	if p := r.live(t, memory.LayerProfile); len(p) != 1 || !strings.Contains(p[0].Content, "Postgres 16") {
		t.Errorf("profile: %+v", p)
	}
}

func TestExtraction_RelativeDateBecomesAbsoluteDueAt(t *testing.T) {
	r := newLLMRig(t, nil)
	_ = r.eng.x.keys.Hand("sk-test-key-1")
	r.fake.setReply(func(q llmRequest) (int, string) {
		if !strings.Contains(q.User, "Today is 2026-11-30 (Monday)") {
			return 200, planJSON(nil, nil) // no date given: the test fails below
		}
		return 200, planJSON(nil, []map[string]any{{"goal": "Send the Foxtrot invoice to Dana", "due_at": "2026-12-01"}})
	})
	r.add(t, "Remind me to send the Foxtrot invoice to Dana tomorrow.")
	in := r.live(t, memory.LayerIntention)
	want := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if len(in) != 1 || !in[0].DueAt.Equal(want) {
		t.Fatalf("intentions: %+v, want one due %v", in, want)
	}
}

func TestExtraction_RepeatedEventIsOneFactWithACount(t *testing.T) {
	r := newLLMRig(t, nil)
	_ = r.eng.x.keys.Hand("sk-test-key-1")
	r.fake.setReply(func(q llmRequest) (int, string) {
		if ids := listedIDs(q.User); len(ids) > 0 {
			return 200, planJSON([]map[string]any{fact("The user went bouldering at the Foxtrot gym", "project_state",
				"updates", ids[0])}, nil)
		}
		return 200, planJSON([]map[string]any{fact("The user went bouldering at the Foxtrot gym", "project_state")}, nil)
	})
	for range 3 {
		r.add(t, "Went bouldering at the Foxtrot gym tonight.")
	}
	facts := r.live(t, memory.LayerFact)
	if len(facts) != 1 || facts[0].Metadata[memory.MetaCount] != "3" {
		t.Fatalf("facts: %+v, want one with count 3", facts)
	}
}

func TestExtraction_NoKeyThenKeySetCatchesUp(t *testing.T) {
	r := newLLMRig(t, nil)
	r.fake.setReply(func(llmRequest) (int, string) {
		return 200, planJSON([]map[string]any{fact("The user likes green tea", "user_preferences")}, nil)
	})
	res := r.add(t, "I like green tea.")
	if res.ExtractionStatus != memory.StatusAwaitingKey {
		t.Fatalf("status without a key: %s", res.ExtractionStatus)
	}
	st, _ := r.c.Status(context.Background())
	if st.LLM != memory.LLMAwaitingKey || st.Unextracted != 1 {
		t.Fatalf("status llm %s unextracted %d", st.LLM, st.Unextracted)
	}
	if n := len(r.fake.requests()); n != 0 {
		t.Fatalf("%d LLM calls without a key", n)
	}
	var ks api.KeyStatus
	if err := r.do(t, "PUT", "/api/v1/settings/llm-key", map[string]string{"key": "sk-from-the-settings"}, &ks); err != nil {
		t.Fatal(err)
	}
	if !ks.IsSet || ks.Origin != "keyring" {
		t.Fatalf("key status %+v", ks)
	}
	if v, _ := r.kr.Get("hyatlas", "llm-key"); v != "sk-from-the-settings" {
		t.Fatalf("keyring holds %q", v)
	}
	r.waitIdle(t)
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, _ = r.c.Status(context.Background())
		if st.Unextracted == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st.LLM != memory.LLMOK || st.Unextracted != 0 || len(r.live(t, memory.LayerFact)) != 1 {
		t.Fatalf("after the key: llm %s unextracted %d facts %d", st.LLM, st.Unextracted, len(r.live(t, memory.LayerFact)))
	}
}

// TestExtraction_QueuedWritesSurviveAnOutage is the target: 200 writes
// queued while the provider is down for 5 minutes are all extracted within
// two catch-up runs of it coming back (time compressed by the clock).
func TestExtraction_QueuedWritesSurviveAnOutage(t *testing.T) {
	r := newLLMRig(t, func(c *config.Config) {
		sync := false
		c.SyncExtract = &sync
	})
	_ = r.eng.x.keys.Hand("sk-test-key-1")
	var down = make(chan bool, 1)
	down <- true
	isDown := func() bool { d := <-down; down <- d; return d }
	r.fake.setReply(func(q llmRequest) (int, string) {
		if isDown() {
			return http.StatusServiceUnavailable, "upstream overloaded"
		}
		text := q.User[strings.Index(q.User, "<text>"):]
		return 200, planJSON([]map[string]any{fact("Noted: "+strings.TrimSpace(strings.Trim(text, "<text>/\n")), "project_state")}, nil)
	})
	for i := range 200 {
		res := r.add(t, fmt.Sprintf("Queued note number %d about the Foxtrot rollout.", i))
		if res.ExtractionStatus != memory.StatusPending {
			t.Fatalf("write %d: %s", i, res.ExtractionStatus)
		}
	}
	r.waitIdle(t)
	r.clock.Add(5 * time.Minute) // the outage lasts five minutes
	ctx := context.Background()
	run, err := r.eng.CatchUpNow(ctx)
	if err != nil || run.Done != 0 || run.Stopped == nil {
		t.Fatalf("run during the outage: %+v %v", run, err)
	}
	if st, _ := r.c.Status(ctx); st.Unextracted != 200 || !strings.HasPrefix(st.WritePipeline, "degraded: ") ||
		!strings.Contains(st.WritePipeline, "503") || strings.Contains(st.WritePipeline, "sk-test-key-1") {
		t.Fatalf("during the outage: unextracted %d (want 200), write_pipeline %q (want degraded with the 503, no key)",
			st.Unextracted, st.WritePipeline)
	}
	<-down
	down <- false
	for runs := 1; ; runs++ {
		if _, err := r.eng.CatchUpNow(ctx); err != nil {
			t.Fatal(err)
		}
		r.waitIdle(t)
		st, _ := r.c.Status(ctx)
		if st.Unextracted == 0 {
			if st.WritePipeline != "ok" {
				t.Errorf("write_pipeline once every row is extracted = %q, want ok", st.WritePipeline)
			}
			break
		}
		if runs == 2 {
			t.Fatalf("%d rows still unextracted after two catch-up runs", st.Unextracted)
		}
	}
	st, err := r.eng.Memory.Stats(ctx)
	if err != nil || st.Live[memory.LayerFact] != 200 {
		t.Errorf("%d facts, want one per write: %v", st.Live[memory.LayerFact], err)
	}
}

func TestExtraction_EgressLedgerShowsEveryCall(t *testing.T) {
	r := newLLMRig(t, nil)
	_ = r.eng.x.keys.Hand("sk-test-key-1")
	failures := 1
	r.fake.setReply(func(llmRequest) (int, string) {
		if failures > 0 {
			failures--
			return http.StatusInternalServerError, "boom"
		}
		return 200, planJSON([]map[string]any{fact("The ledger test fact", "decision")}, nil)
	})
	r.add(t, "A write for the ledger.")
	var out struct {
		Calls []memory.EgressCall `json:"calls"`
	}
	if err := r.do(t, "GET", "/api/v1/egress", nil, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Calls) != len(r.fake.requests()) || len(out.Calls) != 2 {
		t.Fatalf("ledger has %d calls, the endpoint saw %d, want 2", len(out.Calls), len(r.fake.requests()))
	}
	newest, oldest := out.Calls[0], out.Calls[1]
	host := "llm.test"
	if oldest.Status != 500 || newest.Status != 200 || newest.Outcome != "ok" || newest.Host != host ||
		newest.Purpose != "extract" || newest.Model != "test-model" || newest.BytesOut == 0 || newest.BytesIn == 0 {
		t.Errorf("ledger rows: %+v", out.Calls)
	}
}

func TestExtraction_ReprocessQueuesAndReturns(t *testing.T) {
	r := newLLMRig(t, func(c *config.Config) { c.Mode = memory.ModeUltra })
	res := r.add(t, "written before any key")
	if res.ExtractionStatus != memory.StatusAwaitingKey {
		t.Fatalf("status %s", res.ExtractionStatus)
	}
	var out map[string]any
	// An unknown id refuses the whole request; an empty list queues nothing
	// (it never means "everything").
	if err := r.do(t, "POST", "/api/v1/reprocess", map[string]any{"ids": []string{res.MemoryID, "m-unknown"}}, &out); err == nil ||
		!strings.Contains(err.Error(), `no memory "m-unknown"`) {
		t.Errorf("reprocess with an unknown id: %v %v", out, err)
	}
	if err := r.do(t, "POST", "/api/v1/reprocess", map[string]any{"ids": []string{}}, &out); err != nil || out["queued"] != float64(0) {
		t.Errorf("reprocess of an empty list: %v %v", out, err)
	}
	// The same id twice is one row.
	if err := r.do(t, "POST", "/api/v1/reprocess", map[string]any{"ids": []string{res.MemoryID, res.MemoryID}}, &out); err != nil {
		t.Fatal(err)
	}
	if out["queued"] != float64(1) {
		t.Errorf("reprocess: %v", out)
	}
	// Queued without a key it waits; the key arriving extracts it.
	r.fake.setReply(func(llmRequest) (int, string) {
		return 200, planJSON([]map[string]any{fact("A fact from a reprocessed write", "decision")}, nil)
	})
	if err := r.do(t, "POST", "/api/v1/llm/key", map[string]string{"key": "sk-late"}, nil); err != nil {
		t.Fatal(err)
	}
	r.waitExtracted(t, res.MemoryID, "the reprocessed write")
	if facts := r.live(t, memory.LayerFact); len(facts) != 1 {
		t.Errorf("facts: %+v", facts)
	}
	for _, bad := range []any{map[string]any{"max": -1}, map[string]any{"ids": "one"}} {
		if err := r.do(t, "POST", "/api/v1/reprocess", bad, nil); err == nil {
			t.Errorf("reprocess accepted %v", bad)
		}
	}
}

// TestExtraction_PauseHoldsBackgroundWork: while paused, writes are kept
// and queued and nothing is sent, a write that would wait for its
// extraction (sync) included; resuming extracts them.
func TestExtraction_PauseHoldsBackgroundWork(t *testing.T) {
	for _, sync := range []bool{false, true} {
		t.Run(fmt.Sprintf("sync=%v", sync), func(t *testing.T) {
			r := newLLMRig(t, func(c *config.Config) { c.SyncExtract = &sync })
			_ = r.eng.x.keys.Hand("sk-test-key-1")
			r.fake.setReply(func(llmRequest) (int, string) {
				return 200, planJSON([]map[string]any{fact("The user paused and resumed", "project_state")}, nil)
			})
			r.eng.PauseExtraction(true)
			if !r.eng.ExtractionPaused() {
				t.Fatal("not paused")
			}
			if res := r.add(t, "a note written while extraction is paused"); res.ExtractionStatus != memory.StatusPending {
				t.Fatalf("write while paused: %+v", res)
			}
			if n := len(r.fake.requests()); n != 0 {
				t.Fatalf("%d calls while paused", n)
			}
			r.eng.PauseExtraction(false)
			r.waitIdle(t)
			if n := len(r.fake.requests()); n != 1 {
				t.Fatalf("%d calls after resuming, want 1", n)
			}
			if facts := r.live(t, memory.LayerFact); len(facts) != 1 {
				t.Fatalf("facts after resuming: %+v", facts)
			}
		})
	}
}
