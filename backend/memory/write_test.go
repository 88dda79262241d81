package memory_test

import (
	"context"
	"strings"
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
