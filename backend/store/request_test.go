package store

import (
	"context"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// withRequest gives a row the request id req.
func withRequest(req string) func(*memory.NewRow) {
	return func(r *memory.NewRow) { r.Memory.Metadata = map[string]string{memory.MetaRequestID: req} }
}

// RawByRequest finds an owner's raw row by its request id: only that
// owner's (user and agent), only a raw row.
func TestRawByRequest(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s,
		row("a", "a turn", withRequest("r1")),
		row("b", "another agent's turn", withRequest("r1"), ownedBy("u1", "bot")),
		row("f", "a fact", withRequest("r2"), inLayer(memory.LayerFact)),
	)
	for _, tc := range []struct {
		name  string
		owner memory.Owner
		req   string
		want  string
	}{
		{"the owner's", memory.Owner{UserID: "u1"}, "r1", "a"},
		{"the agent's own", memory.Owner{UserID: "u1", AgentID: "bot"}, "r1", "b"},
		{"another user's", memory.Owner{UserID: "u2"}, "r1", ""},
		{"not a raw row", memory.Owner{UserID: "u1"}, "r2", ""},
		{"unknown", memory.Owner{UserID: "u1"}, "r9", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ok, err := s.RawByRequest(ctx, tc.owner, tc.req)
			if err != nil || ok != (tc.want != "") || m.ID != tc.want {
				t.Errorf("RawByRequest = %q %v %v, want %q", m.ID, ok, err, tc.want)
			}
		})
	}
}

// The lookup reads the request index, not every raw row (it runs before
// each write that names its request).
func TestRawByRequestUsesItsIndex(t *testing.T) {
	if plan := queryPlan(t, openStore(t), rawByRequestSQL, "r1", "u1", ""); !strings.Contains(plan, "memories_request_id") {
		t.Errorf("the lookup does not use memories_request_id:\n%s", plan)
	}
}
