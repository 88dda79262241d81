package memory_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// chessPlayers gives each user two facts: one due topic each.
func (r *rig) chessPlayers(t *testing.T, users ...string) {
	t.Helper()
	for _, u := range users {
		r.fact(t, u+" likes chess", u, r.turn(t, "chess", u), time.Time{})
		r.fact(t, u+" plays chess on Sundays", u, r.turn(t, "sunday chess", u), time.Time{})
	}
}

// A pass stops calling once the endpoint is seen to be down: a call
// refused as any would be (a revoked key), or two calls unanswered (a
// timeout) with none through. The topics not called stay due, uncharged,
// and the next pass with the endpoint back calls every one.
func TestConsolidate_StopsCallingADownEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		calls int
	}{
		{"the key was revoked", fmt.Errorf("401 invalid api key: %w", memory.ErrEndpointDown), 1},
		{"every call times out", fmt.Errorf("timeout: %w", memory.ErrProvider), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := consolidateCfg()
			cfg.Consolidate.Parallel = 1
			r, c := newConsolidateRig(t, cfg)
			r.chessPlayers(t, "alice", "bob", "carol", "dave")
			c.set(func(memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
				return memory.ConsolidatePlan{}, tc.err
			})
			for pass := range memory.ClusterMaxFails + 1 {
				before := c.calls()
				rep := r.consolidate(t)
				if c.calls()-before != tc.calls || rep.ClustersRun != 0 || rep.ClustersPending != 4 {
					t.Fatalf("pass %d: %d calls, report %+v; want %d calls and every topic pending", pass, c.calls()-before, rep, tc.calls)
				}
			}
			c.set(reply(memory.ConsolidatePlan{}))
			if rep := r.consolidate(t); rep.ClustersRun != 4 {
				t.Fatalf("the endpoint back: %+v; want every topic called (none charged)", rep)
			}
		})
	}
}

// Two topics whose own replies cannot be read, first in the queue, do not
// keep the others from being called: the pass goes on to them, and the
// two bad ones are charged (they rest after ClusterMaxFails passes).
func TestConsolidate_TwoBadTopicsFirstDoNotStallTheRest(t *testing.T) {
	cfg := consolidateCfg()
	cfg.Consolidate.Parallel = 1
	r, c := newConsolidateRig(t, cfg)
	r.chessPlayers(t, "alice", "bob", "carol", "dave")
	c.set(func(req memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
		for _, f := range req.Facts {
			if strings.Contains(strings.ToLower(f.Text), "alice") || strings.Contains(strings.ToLower(f.Text), "bob") {
				return memory.ConsolidatePlan{}, fmt.Errorf("no JSON in the reply: %w", memory.ErrUnparseable)
			}
		}
		return memory.ConsolidatePlan{}, nil
	})
	rep := r.consolidate(t)
	if rep.ClustersRun < 2 || c.calls() != 4 {
		t.Fatalf("first pass: %d calls, report %+v; want all four topics called and two run", c.calls(), rep)
	}
}
