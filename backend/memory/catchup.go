package memory

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Catch-up bounds.
const (
	// CatchUpBatch is how many rows one catch-up run extracts itself.
	CatchUpBatch = 20
	// CatchUpMinAge leaves rows this young to the write's own extraction.
	CatchUpMinAge = 2 * time.Minute
	backlogMax    = 100000
)

// CatchUpResult says what one catch-up run did.
type CatchUpResult struct {
	Tried, Done, Failed int
	// Backlog lists the eligible rows still waiting after the run, oldest
	// first, when every row of the run went through; the caller hands
	// them to the extraction workers. It is empty after a provider error.
	Backlog []string
	// Stopped is the provider error the run stopped at, if any.
	Stopped error
}

// CatchUp extracts rows that extraction never reached: written while no
// key was set, or whose call failed. It takes up to CatchUpBatch pending
// rows, oldest first, created between maxAge ago (0: no limit) and
// CatchUpMinAge ago, one at a time, and stops at the first provider
// error. A reply that cannot be read counts a try on its row and the run
// goes on.
func (s *Service) CatchUp(ctx context.Context, maxAge time.Duration) (CatchUpResult, error) {
	var res CatchUpResult
	if s.extractor == nil || !s.cfg.Mode.UsesLLM() || s.llmState() != LLMOK {
		return res, nil
	}
	from, to := s.catchUpWindow(maxAge)
	ids, err := s.xstore.PendingExtraction(ctx, from, to, MaxExtractTries, CatchUpBatch)
	if err != nil {
		return res, err
	}
	for _, id := range ids {
		res.Tried++
		st, err := s.ExtractOne(ctx, id)
		if errors.Is(err, ErrProvider) || ctx.Err() != nil {
			res.Stopped = err
			if err == nil {
				res.Stopped = ctx.Err()
			}
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("catch up %s: %w", id, err)
		}
		switch st {
		case StatusDone:
			res.Done++
		case StatusFailed, StatusPending:
			res.Failed++
		}
	}
	if len(ids) == CatchUpBatch {
		res.Backlog, err = s.xstore.PendingExtraction(ctx, from, to, MaxExtractTries, backlogMax)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

func (s *Service) catchUpWindow(maxAge time.Duration) (from, to time.Time) {
	now := s.now().UTC()
	if maxAge > 0 {
		from = now.Add(-maxAge)
	}
	return from, now.Add(-CatchUpMinAge)
}

// ReprocessInput picks rows to extract again: the given raw rows (even if
// extracted before: dedupe folds what they restate), or, with IDs nil, the
// live raw rows not extracted, oldest first, at most Max (0: all). An
// empty, non-nil IDs picks nothing: a client whose list came out empty
// never re-extracts everything by mistake.
type ReprocessInput struct {
	IDs []string
	Max int
}

const maxReprocessIDs = 1000

// Reprocess sets the chosen rows pending again, with their tries reset,
// whatever their age, and hands them to the extraction workers. It returns
// at once with how many rows were queued; lite mode queues nothing.
func (s *Service) Reprocess(ctx context.Context, in ReprocessInput) (int, error) {
	if len(in.IDs) > maxReprocessIDs {
		return 0, Errorf(EINVALID, "at most %d ids at a time", maxReprocessIDs)
	}
	if in.Max < 0 {
		return 0, Errorf(EINVALID, "max must not be negative")
	}
	if in.IDs != nil {
		if err := s.checkReprocessIDs(ctx, in.IDs); err != nil {
			return 0, err
		}
		if len(in.IDs) == 0 {
			return 0, nil
		}
	}
	if !s.cfg.Mode.UsesLLM() || s.xstore == nil {
		return 0, nil
	}
	ids, err := s.xstore.RequeueExtraction(ctx, in.IDs, in.Max)
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		s.enqueue(id)
	}
	return len(ids), nil
}

// checkReprocessIDs refuses the whole request when an id is not a live raw
// row (only conversation turns are extracted), so nothing is queued.
func (s *Service) checkReprocessIDs(ctx context.Context, ids []string) error {
	rows, err := s.store.GetMany(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		m, ok := rows[id]
		switch {
		case !ok:
			return Errorf(ENOTFOUND, "no memory %q", id)
		case m.Layer != LayerRaw || !m.Live():
			return Errorf(EINVALID, "memory %q is not a live conversation turn (l2_raw): only those are extracted", id)
		}
	}
	return nil
}

// Egress lists the newest calls to LLM endpoints (limit 0: 100; at most
// 1000).
func (s *Service) Egress(ctx context.Context, limit int) ([]EgressCall, error) {
	limit, err := pageLimit("limit", limit, 100, 1000)
	if err != nil {
		return nil, err
	}
	if s.xstore == nil {
		return nil, nil
	}
	return s.xstore.ListEgress(ctx, limit)
}

// Unfinished lists the pending rows created within maxAge (0: any age),
// oldest first, whatever their age otherwise: after a restart nothing is in
// flight, so these are the rows to extract at once.
func (s *Service) Unfinished(ctx context.Context, maxAge time.Duration) ([]string, error) {
	if s.xstore == nil || !s.cfg.Mode.UsesLLM() {
		return nil, nil
	}
	var from time.Time
	if maxAge > 0 {
		from = s.now().UTC().Add(-maxAge)
	}
	return s.xstore.PendingExtraction(ctx, from, time.Time{}, MaxExtractTries, backlogMax)
}
