package memory

import (
	"context"
	"fmt"
	"sync"
)

// embedding is the embedder in use and the index of its vectors; they are
// replaced together (SwitchEmbedder). A vector is only ever compared with
// vectors of the embedder that made it.
//
// Every call that runs the embedder holds it with use/done, so that a
// replaced embedder is closed only once no call uses it any more.
type embedding struct {
	embedder Embedder
	index    VectorIndex
	// calls are the calls using embedder. Every embedding of one embedder
	// shares them (a snapshot restore makes a new embedding with a new
	// index and the same embedder), so retiring the embedder waits for a
	// call that took an embedding before the restore too.
	calls *embedderCalls
}

// embedderCalls counts the calls using an embedder.
type embedderCalls struct {
	mu     sync.RWMutex // read-held by each call using the embedder
	closed bool         // set once retired and drained
}

// use marks the embedding in use; false if its embedder has been retired.
func (e *embedding) use() bool {
	e.calls.mu.RLock()
	if e.calls.closed {
		e.calls.mu.RUnlock()
		return false
	}
	return true
}

func (e *embedding) done() { e.calls.mu.RUnlock() }

// retire waits for the calls using the embedder to end and refuses any
// later one.
func (e *embedding) retire() {
	e.calls.mu.Lock()
	e.calls.closed = true
	e.calls.mu.Unlock()
}

func (s *Service) current() *embedding { return s.emb.Load() }

// acquire returns the embedding in use, held; release it with done.
func (s *Service) acquire() *embedding {
	for {
		if cur := s.current(); cur.use() {
			return cur
		}
	}
}

// SwitchEmbedder replaces the embedder and its index. build makes the new
// index from the vectors already saved for e (Reembed fills in the rest);
// it runs under the write lock, so no change to a row can slip between
// its scan and the switch. Search keeps working throughout: the keyword
// leg at once, the vector leg as vectors arrive.
//
// The returned retire func waits until no call uses the old embedder any
// more and marks it retired; after it returns, the old embedder may be
// closed. Call it without holding any lock of the Service.
func (s *Service) SwitchEmbedder(ctx context.Context, e Embedder, build func(context.Context) (VectorIndex, error)) (retire func(), err error) {
	s.indexSync.Lock()
	index, err := build(ctx)
	if err != nil {
		s.indexSync.Unlock()
		return nil, fmt.Errorf("index for %s: %w", e.Info().ID, err)
	}
	old := s.current()
	s.emb.Store(&embedding{embedder: e, index: index, calls: &embedderCalls{}})
	s.indexSync.Unlock()
	return old.retire, nil
}

// embedOne embeds a text with the embedder in use; a document also gets
// its sentence vectors (embedDocument).
func (s *Service) embedOne(ctx context.Context, text string, p EmbedPurpose) (Vector, error) {
	cur := s.acquire()
	defer cur.done()
	if p == PurposeDocument {
		return embedDocument(ctx, cur.embedder, text)
	}
	return embedWith(ctx, cur.embedder, text, p)
}

func embedWith(ctx context.Context, e Embedder, text string, p EmbedPurpose) (Vector, error) {
	vecs, err := e.Embed(ctx, []string{text}, p)
	if err != nil {
		return Vector{}, fmt.Errorf("embed: %w", err)
	}
	info := e.Info()
	if len(vecs) != 1 || len(vecs[0]) != info.Dims || !usable(vecs[0]) {
		return Vector{}, fmt.Errorf("embed: %s returned a malformed vector", info.ID)
	}
	return Vector{Embedder: info.ID, Values: vecs[0]}, nil
}

// currentVector returns v if the embedder in use made it, else embeds
// text again with the one in use. Writers call it under indexSync, where
// the embedder cannot change: a write that raced a switch then stores a
// vector of the new embedder, not one nothing will ever replace.
func (s *Service) currentVector(ctx context.Context, v Vector, text string) (Vector, error) {
	if v.Embedder == s.current().embedder.Info().ID {
		return v, nil
	}
	return s.embedOne(ctx, text, PurposeDocument)
}

// ReplaceStore runs replace, which swaps the store's whole contents (a
// snapshot restore), and puts index in place: an index of the new contents
// built beforehand by embedder embedderID (rebuild makes one from the store
// if the embedder in use is another by then), and drops the graph copy.
// It holds the index lock throughout: writes wait and then go into the
// new contents, and no write's index update can land in the old index.
func (s *Service) ReplaceStore(ctx context.Context, replace func(context.Context) error, index VectorIndex, embedderID string,
	rebuild func(context.Context) (VectorIndex, error)) error {
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	if err := replace(ctx); err != nil {
		return err
	}
	s.storeGen.Add(1)
	cur := s.current()
	if embedderID != cur.embedder.Info().ID {
		var err error
		if index, err = rebuild(ctx); err != nil {
			return fmt.Errorf("rebuild the index: %w", err)
		}
	}
	s.emb.Store(&embedding{embedder: cur.embedder, index: index, calls: cur.calls})
	s.graphCopy.reset()
	return nil
}
