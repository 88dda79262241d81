package memory_test

import (
	"context"
	"testing"

	"hyatlas/backend/memory"
)

// TestTools_DeleteReachesWhatTheAgentsSearchReaches: an agent's
// memory_delete reaches the agent's own memories and what the person
// wrote, never the person's consolidation rows, which that agent's search
// does not show either.
func TestTools_DeleteReachesWhatTheAgentsSearchReaches(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	alice := memory.Owner{UserID: "alice"}
	pattern := r.put(t, memory.Memory{Layer: memory.LayerSchema, Content: "Alice keeps a morning tea ritual", Owner: alice,
		Source: memory.SourceConsolidation})
	written := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice keeps bees on the roof", Owner: alice})
	agent := memory.ToolCaller{UserID: "alice", AgentID: "hermes"}
	for _, c := range []struct {
		name string
		id   string
		code memory.Code
		live bool
	}{
		{"the person's consolidation row", pattern.ID, memory.ENOTFOUND, true},
		{"what the person wrote", written.ID, "", false},
	} {
		_, err := r.svc.CallTool(ctx, "memory_delete", []byte(`{"id":"`+c.id+`"}`), agent)
		if memory.ErrorCode(err) != c.code || r.get(t, c.id).Live() != c.live {
			t.Errorf("%s: %v, live %v; want code %q, live %v", c.name, err, r.get(t, c.id).Live(), c.code, c.live)
		}
	}
}
