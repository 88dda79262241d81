package memory_test

import (
	"bytes"
	"context"
	"testing"

	"hyatlas/backend/memory"
)

// An import whose graph ends a job it brings (an older one, ended where
// the job held here began) retires that job's row as it comes in: the row
// is not in the vector index either, so it takes no place among the
// nearest rows a search reads.
func TestImport_ARowTheGraphRetiresIsNotIndexed(t *testing.T) {
	ctx := context.Background()
	job := func(to, from string) (*rig, string) {
		r, c := newConsolidateRig(t, consolidateCfg())
		f1 := r.fact(t, "Alice is employed by "+to, "alice", r.turn(t, to, "alice"), date(from))
		f2 := r.fact(t, "Alice is an engineer at "+to, "alice", r.turn(t, to+" again", "alice"), date(from))
		c.set(reply(memory.ConsolidatePlan{Edges: []memory.PlannedEdge{worksAt(to, from, f1.ID, f2.ID)}}))
		if rep := r.consolidate(t); rep.Edges != 1 || len(rep.Errors) > 0 {
			t.Fatalf("pass: %+v", rep)
		}
		rows := r.live(t, memory.LayerKnowledge, "alice")
		for _, m := range rows {
			if m.Category == "relation" {
				return r, m.ID
			}
		}
		t.Fatalf("no relation row for %s among %d", to, len(rows))
		return nil, ""
	}
	older, row := job("Initech", "2023-01-01")
	held, _ := job("Acme", "2024-01-01")
	var file bytes.Buffer
	if _, err := older.svc.Export(ctx, &file, memory.ExportInput{Vectors: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := held.svc.Import(ctx, &file); err != nil {
		t.Fatal(err)
	}
	m, err := held.store.Get(ctx, row)
	if err != nil || m.Live() {
		t.Fatalf("the imported older job's row: %+v %v, want it retired", m, err)
	}
	if _, ok := held.index.Vector(row); ok {
		t.Error("the retired row is in the vector index")
	}
}
