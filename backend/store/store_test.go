package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// holdWriter occupies the write loop until the returned release is called,
// so that writes started meanwhile queue up and commit as one batch.
func holdWriter(t *testing.T, s *Store) (release func()) {
	t.Helper()
	started, unblock, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- s.write(context.Background(), func(context.Context, *sql.Tx) error {
			close(started)
			<-unblock
			return nil
		})
	}()
	<-started
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(unblock)
			if err := <-done; err != nil {
				t.Errorf("held write: %v", err)
			}
		})
	}
	t.Cleanup(release) // before the store's Close, should the test stop early
	return release
}

// waitQueued waits until n writes wait in the queue.
func waitQueued(t *testing.T, s *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(s.ops) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d writes queued", len(s.ops), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFailedWriteDoesNotSpoilItsBatch(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s, row("taken", "already stored"))
	release := holdWriter(t, s)

	const n = 40
	errs := make([]error, n+2)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = s.Insert(ctx, row(fmt.Sprintf("ok%02d", i), fmt.Sprintf("batch row %d", i)))
		})
	}
	wg.Go(func() { // a multi-row insert with one bad row
		errs[n] = s.Insert(ctx, row("bad-a", "batch row bad"), row("taken", "batch row dup"))
	})
	wg.Go(func() { // a failing update in the same batch
		c := "batch row edited"
		_, errs[n+1] = s.Update(ctx, "taken", memory.Update{Content: &c, At: t0})
	})
	waitQueued(t, s, n+2) // all in the queue: the next commit takes them together
	release()
	wg.Wait()

	for i := range n {
		if errs[i] != nil {
			t.Errorf("insert %d failed with its batch: %v", i, errs[i])
		}
	}
	if errs[n] == nil || errs[n+1] == nil {
		t.Fatalf("bad writes succeeded: insert %v, update %v", errs[n], errs[n+1])
	}
	got, err := s.GetMany(ctx, append([]string{"bad-a", "taken"}, func() (ids []string) {
		for i := range n {
			ids = append(ids, fmt.Sprintf("ok%02d", i))
		}
		return ids
	}()...))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["bad-a"]; ok {
		t.Error("row of the failed insert exists")
	}
	if len(got) != n+1 || got["taken"].Content != "already stored" {
		t.Errorf("%d rows, taken = %q", len(got), got["taken"].Content)
	}
	if c := ftsCount(t, s, "batch"); c != n {
		t.Errorf("%d FTS entries for the batch, want %d", c, n)
	}
	if st, _ := s.Stats(ctx); st.Writes != n+1 {
		t.Errorf("writes counter = %d, want %d", st.Writes, n+1)
	}
}

func TestConcurrentInsertsAreDurable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, _ := openStoreDir(t, dir)
	const workers, each = 16, 100
	word := func(g, i int) string { return fmt.Sprintf("w%dq%d", g, i) }
	id := func(g, i int) string { return fmt.Sprintf("g%02d-%03d", g, i) }
	layer := func(g, i int) memory.Layer { // every 7th row is not raw
		if (g*each+i)%7 == 0 {
			return memory.LayerFact
		}
		return memory.LayerRaw
	}
	raw := 0
	errs := make(chan error, workers*each)
	var wg sync.WaitGroup
	for g := range workers {
		for i := range each {
			if layer(g, i) == memory.LayerRaw {
				raw++
			}
		}
		wg.Go(func() {
			for i := range each {
				errs <- s.Insert(ctx, row(id(g, i), "note "+word(g, i), inLayer(layer(g, i))))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Insert: %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s, _ = openStoreDir(t, dir)
	if s.MigratedFrom != s.MigratedTo {
		t.Errorf("reopen migrated %d -> %d", s.MigratedFrom, s.MigratedTo)
	}
	vectors := map[string][]float32{}
	if err := s.ScanVectors(ctx, testEmbedder, func(e memory.IndexEntry) error {
		vectors[e.ID] = slices.Clone(e.Values) // Values is reused after fn returns
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for g := range workers {
		var ids, words []string
		for i := range each {
			ids, words = append(ids, id(g, i)), append(words, word(g, i))
		}
		rows, err := s.GetMany(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			m, ok := rows[id]
			if !ok || m.Layer != layer(g, i) || m.Content != "note "+words[i] {
				t.Fatalf("row %s after reopen: %+v (present %v)", id, m, ok)
			}
			if !slices.Equal(vectors[id], vec(id)) {
				t.Fatalf("vector of %s after reopen = %v", id, vectors[id])
			}
		}
		// Each row is found by its own word; the words of one worker find
		// exactly that worker's rows.
		hits, err := s.Keyword(ctx, memory.KeywordQuery{Terms: words, Limit: 2 * each})
		if err != nil || !slices.Equal(sorted(hitIDs(hits)), ids) {
			t.Fatalf("Keyword(worker %d words) = %d hits, %v", g, len(hits), err)
		}
		for i := 0; i < each; i += 10 {
			hits, err := s.Keyword(ctx, memory.KeywordQuery{Terms: []string{words[i]}, Limit: 5})
			if err != nil || !slices.Equal(hitIDs(hits), []string{ids[i]}) {
				t.Fatalf("Keyword(%s) = %v, %v", words[i], hits, err)
			}
		}
	}
	if v, err := s.Vector(ctx, id(3, 7)); err != nil || !slices.Equal(v.Values, vec(id(3, 7))) {
		t.Errorf("Vector(%s) = %v, %v", id(3, 7), v, err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Writes != int64(raw) || st.Live[memory.LayerRaw] != raw || st.Live[memory.LayerFact] != workers*each-raw {
		t.Errorf("writes %d, live raw %d, live fact %d; want %d raw of %d", st.Writes,
			st.Live[memory.LayerRaw], st.Live[memory.LayerFact], raw, workers*each)
	}
}

func TestCloseCommitsQueuedWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const rounds, n = 8, 10
	// The write loop sees the queue and the close signal at once and picks
	// either at random; several rounds exercise both paths.
	for round := range rounds {
		s, _ := openStoreDir(t, dir)
		release := holdWriter(t, s)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { errs[i] = s.Insert(ctx, row(fmt.Sprintf("q%d-%02d", round, i), "queued")) })
		}
		waitQueued(t, s, n)
		closed := make(chan error, 1)
		go func() { closed <- s.Close() }()
		// Close must not finish while the held write blocks the loop.
		select {
		case err := <-closed:
			t.Fatalf("Close returned %v before queued writes committed", err)
		case <-time.After(20 * time.Millisecond):
		}
		release()
		wg.Wait()
		if err := <-closed; err != nil {
			t.Fatalf("Close: %v", err)
		}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: queued insert %d: %v", round, i, err)
			}
		}
	}
	s, _ := openStoreDir(t, dir)
	if _, total, _ := s.List(ctx, memory.ListFilter{Limit: 1}); total != rounds*n {
		t.Errorf("%d rows after reopen, want %d", total, rounds*n)
	}
}

func TestWritesAfterCloseAreUnavailable(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s, row("m", "content"))
	if err := s.Probe(ctx); err != nil {
		t.Fatalf("Probe: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	cat := "x"
	for name, write := range map[string]func() error{
		"Insert":     func() error { return s.Insert(ctx, row("n", "new")) },
		"Update":     func() error { _, err := s.Update(ctx, "m", memory.Update{Category: &cat}); return err },
		"Retire":     func() error { _, _, err := s.Retire(ctx, "m", memory.Retirement{At: t0}); return err },
		"Restore":    func() error { _, _, err := s.Restore(ctx, "m", t0); return err },
		"Delete":     func() error { _, _, err := s.Delete(ctx, memory.DeleteFilter{Whole: true}); return err },
		"AddCounter": func() error { return s.AddCounter(ctx, "searches", 1) },
		"Probe":      func() error { return s.Probe(ctx) },
	} {
		err := write()
		if !errors.Is(err, ErrClosed) || memory.ErrorCode(err) != memory.EUNAVAILABLE {
			t.Errorf("%s after Close: %v, want ErrClosed (unavailable)", name, err)
		}
	}
}

// TestOpen_LocksTheDataDirectory: a second open of the same directory (a
// second HyAtlas on another port) is refused until the first closes.
func TestOpen_LocksTheDataDirectory(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	_ = again.Close()
}
