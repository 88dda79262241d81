package memory_test

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"hyatlas/backend/memory"
)

func TestReady_DetectsIndexDisagreement(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	m := r.add(t, "ready check row", "u1")
	if err := r.svc.Ready(ctx); err != nil {
		t.Fatalf("fresh service not ready: %v", err)
	}
	r.index.Remove(m.ID) // simulate a crash between commit and index update
	err := r.svc.Ready(ctx)
	if memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("ready with a stale index: %v, want unavailable", err)
	}
}

func TestMinScoreDefault(t *testing.T) {
	r := newRig(t, memory.Config{MinScore: -1})
	if got := r.svc.MinScore(); got != r.svc.EmbedderInfo().MinScore {
		t.Errorf("MinScore = %v, want the embedder's %v", got, r.svc.EmbedderInfo().MinScore)
	}
	r = newRig(t, memory.Config{MinScore: 0.42})
	if got := r.svc.MinScore(); got != 0.42 {
		t.Errorf("MinScore = %v, want 0.42", got)
	}
}

// TestConcurrentUse runs adds, searches, retires and restores at once (run
// it with -race). At the end the index must agree with the store.
func TestConcurrentUse(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	var (
		mu  sync.Mutex
		ids []string
		wg  sync.WaitGroup
	)
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
	for w := range 8 {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for i := range 40 {
				switch rng.Intn(4) {
				case 0, 1:
					res, err := r.svc.Add(ctx, memory.AddInput{Text: fmt.Sprintf("%s %s note %d-%d",
						words[rng.Intn(8)], words[rng.Intn(8)], w, i), Owner: memory.Owner{UserID: fmt.Sprint("u", w%3)}})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					ids = append(ids, res.Memory.ID)
					mu.Unlock()
				case 2:
					if _, err := r.svc.Search(ctx, memory.SearchInput{Query: words[rng.Intn(8)], Limit: 10}); err != nil {
						t.Error(err)
						return
					}
				case 3:
					mu.Lock()
					if len(ids) == 0 {
						mu.Unlock()
						continue
					}
					id := ids[rng.Intn(len(ids))]
					mu.Unlock()
					_, err := r.svc.Retire(ctx, id, memory.RetireInput{Reason: "test"})
					if err != nil && memory.ErrorCode(err) != memory.ECONFLICT {
						t.Error(err)
						return
					}
					if rng.Intn(2) == 0 {
						if _, err := r.svc.Restore(ctx, id); err != nil && memory.ErrorCode(err) != memory.ECONFLICT {
							t.Error(err)
							return
						}
					}
				}
			}
		}(w)
	}
	wg.Wait()
	if err := r.svc.Ready(ctx); err != nil {
		t.Fatalf("after concurrent use: %v", err)
	}
	st, _ := r.svc.Stats(ctx)
	if st.Live[memory.LayerRaw]+st.Retired != len(ids) || int(st.Writes) != len(ids) {
		t.Errorf("store has %d live + %d retired, writes %d; %d adds acknowledged",
			st.Live[memory.LayerRaw], st.Retired, st.Writes, len(ids))
	}
}
