package memory_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// TestExport_WhatWritesMakeImports: an export imports whatever the
// writes that made it could make: a turn of a session with the longest id
// (its source is "conversation:" and the id), and a relation restated more
// often than one learning may cite memories.
func TestExport_WhatWritesMakeImports(t *testing.T) {
	ctx := context.Background()
	alice := memory.Owner{UserID: "alice"}
	cases := []struct {
		name string
		fill func(t *testing.T, r *rig)
	}{
		{"a turn of a session with a 256-byte id", func(t *testing.T, r *rig) {
			if _, err := r.svc.Add(ctx, memory.AddInput{Text: "hello there", Owner: alice, SessionID: strings.Repeat("s", 256)}); err != nil {
				t.Fatal(err)
			}
		}},
		{"a relation restated 201 times", func(t *testing.T, r *rig) {
			for i := range 201 {
				turn := r.put(t, memory.Memory{Layer: memory.LayerRaw, Content: "Alice works at Globex, " + strings.Repeat("again ", i%3), Owner: alice})
				if _, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: alice, From: "Alice", To: "Globex",
					Relation: "works at", Turns: []string{turn.ID}}); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := graphRig(t)
			c.fill(t, src)
			var buf bytes.Buffer
			out, err := src.svc.Export(ctx, &buf, memory.ExportInput{})
			if err != nil {
				t.Fatal(err)
			}
			dst := graphRig(t)
			in, err := dst.svc.Import(ctx, &buf)
			if err != nil || in.Imported != out.Memories {
				t.Fatalf("import: %+v, %v; want %d memories", in, err, out.Memories)
			}
		})
	}
}
