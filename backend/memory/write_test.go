package memory_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"hyatlas/backend/memory"
)

func TestAdd_StoresRawRow(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	res, err := r.svc.Add(ctx, memory.AddInput{
		Text: "USER: my project Foxtrot uses Postgres 16", Owner: memory.Owner{AgentID: "hermes"},
		Metadata: map[string]string{"session_id": "s-9", "write_origin": "memory_tool"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.store.Get(ctx, res.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Layer != memory.LayerRaw || got.Owner.UserID != memory.DefaultUserID || got.Owner.AgentID != "hermes" {
		t.Errorf("row = %+v", got)
	}
	if got.SessionID != "s-9" || got.Source != "conversation:s-9" || got.Metadata["write_origin"] != "memory_tool" {
		t.Errorf("session/source/metadata = %q %q %v", got.SessionID, got.Source, got.Metadata)
	}
	if got.EventAt.IsZero() || !got.EventAt.Equal(got.CreatedAt) {
		t.Errorf("a raw row's event time is its write time: %v vs %v", got.EventAt, got.CreatedAt)
	}
	if _, ok := r.index.Vector(got.ID); !ok {
		t.Error("the row is not in the vector index")
	}
}

func TestAdd_ExtractionStatusFollowsMode(t *testing.T) {
	tests := []struct {
		mode  memory.Mode
		llm   memory.LLMState
		want  memory.ExtractionStatus
		state memory.ExtractState
	}{
		{memory.ModeLite, memory.LLMUnused, memory.StatusSkipped, memory.ExtractSkipped},
		{memory.ModePro, memory.LLMUnconfigured, memory.StatusUnconfigured, memory.ExtractPending},
		{memory.ModeUltra, memory.LLMUnconfigured, memory.StatusUnconfigured, memory.ExtractPending},
		{memory.ModeUltra, memory.LLMAwaitingKey, memory.StatusAwaitingKey, memory.ExtractPending},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode)+"/"+string(tt.llm), func(t *testing.T) {
			r := newRig(t, memory.Config{Mode: tt.mode}, func(d *memory.Deps) {
				d.LLMState = func() memory.LLMState { return tt.llm }
			})
			res, err := r.svc.Add(context.Background(), memory.AddInput{Text: "hello world"})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExtractionStatus != tt.want || res.Memory.Extraction != tt.state {
				t.Errorf("status %s state %s, want %s %s", res.ExtractionStatus, res.Memory.Extraction, tt.want, tt.state)
			}
			st, _ := r.svc.Stats(context.Background())
			if want := map[bool]int{true: 1, false: 0}[tt.state == memory.ExtractPending]; st.Unextracted != want {
				t.Errorf("unextracted = %d, want %d (queued for a later extractor)", st.Unextracted, want)
			}
		})
	}
}

func TestAdd_BadInputChangesNothing(t *testing.T) {
	many := map[string]string{}
	for i := range 65 {
		many[strings.Repeat("k", i+1)] = "v"
	}
	most := map[string]string{}
	for i := range 64 {
		most[strings.Repeat("k", i+1)] = "v"
	}
	tests := []struct {
		name string
		in   memory.AddInput
		code memory.Code
	}{
		{"empty text", memory.AddInput{Text: ""}, memory.EBADREQUEST},
		{"blank text", memory.AddInput{Text: " \n\t "}, memory.EBADREQUEST},
		{"invalid utf-8", memory.AddInput{Text: "bad \xff byte"}, memory.EINVALID},
		{"long user id", memory.AddInput{Text: "x", Owner: memory.Owner{UserID: strings.Repeat("u", 300)}}, memory.EINVALID},
		{"control char in agent", memory.AddInput{Text: "x", Owner: memory.Owner{AgentID: "a\x00b"}}, memory.EINVALID},
		{"too many metadata keys", memory.AddInput{Text: "x", Metadata: many}, memory.EINVALID},
		{"empty metadata key", memory.AddInput{Text: "x", Metadata: map[string]string{"": "v"}}, memory.EINVALID},
		{"huge metadata value", memory.AddInput{Text: "x", Metadata: map[string]string{"k": strings.Repeat("v", 9000)}}, memory.EINVALID},
		{"long request id", memory.AddInput{Text: "x", RequestID: strings.Repeat("r", 300)}, memory.EINVALID},
		{"control char in request id", memory.AddInput{Text: "x", RequestID: "r\n1"}, memory.EINVALID},
		{"request id in metadata", memory.AddInput{Text: "x", Metadata: map[string]string{memory.MetaRequestID: "r1"}}, memory.EINVALID},
		{"request id with 64 metadata keys", memory.AddInput{Text: "x", Metadata: most, RequestID: "r1"}, memory.EINVALID},
	}
	r := newRig(t, memory.Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.svc.Add(context.Background(), tt.in)
			if memory.ErrorCode(err) != tt.code {
				t.Fatalf("err = %v, want code %s", err, tt.code)
			}
			st, _ := r.svc.Stats(context.Background())
			if st.Live[memory.LayerRaw] != 0 || st.Writes != 0 || r.index.Len() != 0 {
				t.Errorf("a refused write changed something: %+v index %d", st, r.index.Len())
			}
		})
	}
}

// A write sent again with its request id (its answer was lost when
// HyAtlas stopped) answers the row the first one stored and stores
// nothing; another owner's request id is another write. Sent many times
// at once, one of them writes.
func TestAdd_ARequestSentAgainIsStoredOnce(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	add := func(agent, req string) memory.AddResult {
		t.Helper()
		res, err := r.svc.Add(ctx, memory.AddInput{Text: "USER: my bike is green", Owner: memory.Owner{UserID: "u1", AgentID: agent}, RequestID: req})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := add("hermes", "r1")
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Go(func() { ids[i] = add("hermes", "r1").Memory.ID })
	}
	wg.Wait()
	for _, id := range ids {
		if id != first.Memory.ID {
			t.Errorf("the request sent again answered %s, want the first write's %s", id, first.Memory.ID)
		}
	}
	if other := add("work", "r1"); other.Memory.ID == first.Memory.ID {
		t.Error("another agent's write with the same request id was taken for a repeat")
	}
	_, err := r.svc.Add(ctx, memory.AddInput{Text: "USER: my bike is blue", Owner: memory.Owner{UserID: "u1", AgentID: "hermes"}, RequestID: "r1"})
	if memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("another text with a request id sent before: %v, want a conflict", err)
	}
	if plain := add("hermes", ""); plain.Memory.ID == first.Memory.ID {
		t.Error("a write without a request id was taken for a repeat")
	}
	st, err := r.svc.Stats(ctx)
	if err != nil || st.Live[memory.LayerRaw] != 3 {
		t.Errorf("raw rows: %v %v, want 3 (the first, another agent's, one without an id)", st.Live[memory.LayerRaw], err)
	}
	if got := r.get(t, first.Memory.ID); got.Metadata[memory.MetaRequestID] != "r1" {
		t.Errorf("the row keeps its request id: %v", got.Metadata)
	}
	// Edited in the Atlas since (twice): the request sent again is still a
	// repeat of what was stored, and answers the row as it is now.
	for _, text := range []string{"USER: my bike is dark green", "USER: my bike is dark green, with a basket"} {
		if _, err := r.svc.Edit(ctx, first.Memory.ID, memory.EditInput{Content: &text}); err != nil {
			t.Fatal(err)
		}
	}
	if again := add("hermes", "r1"); again.Memory.ID != first.Memory.ID || again.Memory.Content != "USER: my bike is dark green, with a basket" {
		t.Errorf("the request sent again after an edit: %s %q, want the first write as edited", again.Memory.ID, again.Memory.Content)
	}
	for _, edited := range []string{"USER: my bike is dark green", "USER: my bike is dark green, with a basket"} {
		if _, err := r.svc.Add(ctx, memory.AddInput{Text: edited, Owner: memory.Owner{UserID: "u1", AgentID: "hermes"}, RequestID: "r1"}); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Errorf("an edited text %q under the request id: %v, want a conflict (it is not what the request sent)", edited, err)
		}
	}
	if st, _ := r.svc.Stats(ctx); st.Live[memory.LayerRaw] != 3 {
		t.Errorf("raw rows after the repeats: %d, want 3", st.Live[memory.LayerRaw])
	}
}

// A write sent again answers how its extraction stands now, like the
// first: without a key, awaiting_key, not a pending that never moves.
func TestAdd_ARepeatSaysWhyItsExtractionWaits(t *testing.T) {
	r := newRig(t, extractCfg(), func(d *memory.Deps) {
		d.Extractor = &scriptedExtractor{}
		d.LLMState = func() memory.LLMState { return memory.LLMAwaitingKey }
	})
	in := memory.AddInput{Text: "USER: my bike is green", Owner: memory.Owner{UserID: "u1"}, RequestID: "r1"}
	for i := range 2 {
		res, err := r.svc.Add(context.Background(), in)
		if err != nil || res.ExtractionStatus != memory.StatusAwaitingKey {
			t.Errorf("write %d: %s %v, want awaiting_key", i+1, res.ExtractionStatus, err)
		}
	}
}
