package memory_test

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
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

// TestConcurrentChangesToOneRow races retire, restore and edit on the
// same rows: whatever order they commit in, the index must end up holding
// exactly the live rows.
func TestConcurrentChangesToOneRow(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	var ids []string
	for i := range 4 {
		ids = append(ids, r.add(t, fmt.Sprintf("contested row %d", i), "u1").ID)
	}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := range 60 {
				id := ids[(w+i)%len(ids)]
				var err error
				switch (w + i) % 3 {
				case 0:
					_, err = r.svc.Retire(ctx, id, memory.RetireInput{})
				case 1:
					_, err = r.svc.Restore(ctx, id)
				case 2:
					_, err = r.svc.Edit(ctx, id, memory.EditInput{Content: str(fmt.Sprintf("contested row edited %d %d", w, i))})
				}
				if err != nil && memory.ErrorCode(err) != memory.ECONFLICT {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if err := r.svc.Ready(ctx); err != nil {
		t.Fatalf("index disagrees with the store: %v", err)
	}
}

// slowRestore is a store whose Restore returns late, as a busy scheduler
// may make it: the restoring call then reaches the index after a retire
// that committed later, unless changes to a row are serialised.
type slowRestore struct {
	*store.Store
	started chan struct{}
}

func (s slowRestore) Restore(ctx context.Context, id string, at time.Time) (memory.Memory, memory.Cascade, error) {
	m, cas, err := s.Store.Restore(ctx, id, at)
	close(s.started)
	time.Sleep(50 * time.Millisecond)
	return m, cas, err
}

func TestRetireDuringRestore_IndexFollowsCommitOrder(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	emb, _ := embed.NewHash(64)
	ix := vector.New(64)
	slow := slowRestore{Store: st, started: make(chan struct{})}
	svc, err := memory.NewService(memory.Config{Mode: memory.ModeLite, MinScore: -1},
		memory.Deps{Store: slow, Index: ix, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Add(ctx, memory.AddInput{Text: "restored then retired"})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Memory.ID
	if _, err := svc.Retire(ctx, id, memory.RetireInput{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := svc.Restore(ctx, id)
		done <- err
	}()
	<-slow.started // the restore has committed
	if _, err := svc.Retire(ctx, id, memory.RetireInput{Reason: "second thoughts"}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.Vector(id); ok {
		t.Error("a retired row is in the vector index")
	}
	if err := svc.Ready(ctx); err != nil {
		t.Errorf("index disagrees with the store: %v", err)
	}
}
