package memory

import (
	"context"
	"fmt"
	"sync"
)

// ReembedProgress is where re-embedding stands.
type ReembedProgress struct {
	Running  bool   `json:"running"`
	Embedder string `json:"embedder,omitempty"`
	Done     int    `json:"done"`
	Total    int    `json:"total"`
	Error    string `json:"error,omitempty"`
}

type reembedState struct {
	mu sync.Mutex
	p  ReembedProgress
}

func (r *reembedState) progress() ReembedProgress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.p
}

func (r *reembedState) set(f func(*ReembedProgress)) ReembedProgress {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.p)
	return r.p
}

// ReembedBatch is how many rows one step embeds.
const ReembedBatch = 64

// Reembed gives every row, live ones first, a vector made by the embedder
// in use, ReembedBatch rows at a time, and returns when none is left, when
// ctx ends, or when the embedder is switched again (the new switch starts
// its own pass). It is resumable by construction: the store knows which
// rows still lack a vector of this embedder, so a pass cut short (a
// restart) continues where it stopped. Each step publishes
// reembed.progress; search keeps working, the vector leg finding rows as
// their vectors arrive.
func (s *Service) Reembed(ctx context.Context) error {
	cur := s.current()
	id := cur.embedder.Info().ID
	total, err := s.store.VectorBacklog(ctx, id)
	if err != nil || total == 0 {
		return err
	}
	if s.cannotStore(ctx) {
		// The vectors could not be saved: nothing is embedded, and the
		// error has the caller try again later.
		return fmt.Errorf("re-embedding waits: %w", s.store.WriteFault())
	}
	s.publishReembed(func(p *ReembedProgress) { *p = ReembedProgress{Running: true, Embedder: id, Total: total} })
	err = s.reembed(ctx, cur)
	s.publishReembed(func(p *ReembedProgress) {
		p.Running = false
		if err != nil {
			p.Error = err.Error()
		}
	})
	return err
}

func (s *Service) reembed(ctx context.Context, cur *embedding) error {
	id := cur.embedder.Info().ID
	failed := map[string]string{} // rows the embedder refuses, with why
	// A row edited or switched while a pass runs keeps its old vector and
	// is taken by the next pass; three passes end any ordinary race.
	for pass := 0; pass < 3; pass++ {
		cursor := ""
		for {
			if err := ctx.Err(); err != nil || s.current() != cur {
				return err
			}
			jobs, next, err := s.store.VectorJobs(ctx, id, cursor, ReembedBatch)
			if err != nil {
				return fmt.Errorf("list rows to re-embed: %w", err)
			}
			if len(jobs) == 0 {
				break
			}
			if !cur.use() {
				return nil // switched and retired meanwhile
			}
			err = s.reembedStep(ctx, cur, jobs, failed)
			cur.done()
			if err != nil {
				return err
			}
			s.publishReembed(func(p *ReembedProgress) { p.Done = min(p.Total, p.Done+len(jobs)) })
			cursor = next
		}
		left, err := s.store.VectorBacklog(ctx, id)
		if err != nil || left == 0 {
			return err
		}
		if left <= len(failed) {
			// Only rows the embedder refuses are left: stop here (a restart
			// or the next switch tries them again) and say so.
			s.publishReembed(func(p *ReembedProgress) {
				what := fmt.Sprintf("%d memories", left)
				if left == 1 {
					what = "1 memory"
				}
				p.Error = fmt.Sprintf("%s could not be embedded with %s (e.g. %s)", what, id, anyValue(failed))
			})
			return nil
		}
	}
	return fmt.Errorf("re-embedding makes no progress: rows keep changing under it")
}

func anyValue(m map[string]string) string {
	for _, v := range m {
		return v
	}
	return ""
}

// reembedStep embeds one batch (outside any lock) and stores it. When the
// embedder refuses the batch, it tries the rows one by one, so that one
// row it cannot embed (too long for an endpoint, say) does not stop the
// rest; such rows are noted in failed and skipped.
func (s *Service) reembedStep(ctx context.Context, cur *embedding, jobs []VectorJob, failed map[string]string) error {
	info := cur.embedder.Info()
	texts := make([]string, len(jobs))
	for i, j := range jobs {
		texts[i] = j.Content
	}
	vecs, err := embedDocuments(ctx, cur.embedder, texts)
	if err != nil && ctx.Err() == nil && len(jobs) > 1 {
		vecs, err = make([]Vector, len(jobs)), nil
		for i, j := range jobs {
			v, one := embedDocument(ctx, cur.embedder, j.Content)
			if one != nil {
				failed[j.ID] = one.Error()
				continue
			}
			vecs[i] = v
		}
	}
	if err != nil {
		if len(jobs) == 1 && ctx.Err() == nil {
			failed[jobs[0].ID] = err.Error()
			return nil
		}
		return fmt.Errorf("re-embed with %s: %w", info.ID, err)
	}
	var kept []VectorJob
	var updates []VectorUpdate
	for i, j := range jobs {
		if vecs[i].Values == nil {
			continue
		}
		kept = append(kept, j)
		updates = append(updates, VectorUpdate{ID: j.ID, Content: j.Content, Vector: vecs[i]})
	}
	if len(updates) == 0 {
		return nil
	}
	return s.storeVectors(ctx, cur, kept, updates)
}

// storeVectors saves a step's vectors and indexes the live rows, as one
// change to existing rows (under the write lock, so a retire or delete
// cannot slip between the commit and the index).
func (s *Service) storeVectors(ctx context.Context, cur *embedding, jobs []VectorJob, updates []VectorUpdate) error {
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	if s.current() != cur {
		return nil
	}
	live, err := s.store.SetVectors(ctx, updates)
	if err != nil {
		return fmt.Errorf("save re-embedded vectors: %w", err)
	}
	byID := make(map[string]int, len(jobs))
	for i, j := range jobs {
		byID[j.ID] = i
	}
	for _, rid := range live {
		i := byID[rid]
		j := jobs[i]
		if err := cur.index.Upsert(indexEntry(j.ID, j.Layer, j.Owner, updates[i].Vector)); err != nil {
			s.indexFaults.Add(1)
		}
	}
	return nil
}

func (s *Service) publishReembed(f func(*ReembedProgress)) {
	p := s.reembedStatus.set(f)
	s.events.Publish(Event{Type: "reembed.progress", At: s.now().UTC(), Data: p})
}
