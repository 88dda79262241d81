package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// Stopped is the provider error the run stopped at, if any, or
	// ErrPaused when a pause stopped it.
	Stopped error
}

// ErrPaused says a background run stopped because the person paused
// extraction; what it did not reach waits for the resume.
var ErrPaused = errors.New("extraction is paused")

// catchUpOutage is how many rows in a row a catch-up run must find the
// endpoint unavailable for before it takes the endpoint to be down.
const catchUpOutage = 3

// CatchUp extracts rows that extraction never reached: written while no
// key was set, or whose call failed. It takes up to CatchUpBatch pending
// rows, oldest first, created between maxAge ago (0: no limit) and
// CatchUpMinAge ago, one at a time. A reply that cannot be read counts a
// try on its row and the run goes on.
//
// A pause (the tray's) stops the run before its next row: the rows left
// stay pending, and no row the endpoint failed meanwhile is charged.
//
// A provider error alone does not stop the run: the endpoint may fail one
// row only (a model runner that crashes on it, a long text that times out
// on a slow local model), and stopping there every run would hold up every
// row behind it. The run stops once catchUpOutage rows in a row find the
// endpoint unavailable. When a later row gets an answer, the endpoint was
// up: each row it failed meanwhile is charged a try, so such a row ends as
// failed (for hyatlas reprocess) after MaxExtractTries runs instead of
// stalling the queue.
func (s *Service) CatchUp(ctx context.Context, maxAge time.Duration) (CatchUpResult, error) {
	var res CatchUpResult
	if s.extractor == nil || !s.cfg.Mode.UsesLLM() || s.llmState() != LLMOK || s.cannotStore(ctx) {
		return res, nil
	}
	ids, err := s.catchUpRows(ctx, maxAge, CatchUpBatch)
	if err != nil {
		return res, err
	}
	var unanswered []unansweredRow // since the last row the endpoint answered
	for _, id := range ids {
		if s.pausedNow() {
			res.Stopped = ErrPaused
			return res, nil
		}
		res.Tried++
		st, err := s.ExtractOne(ctx, id)
		if ctx.Err() != nil {
			res.Stopped = ctx.Err()
			return res, nil
		}
		if errors.Is(err, ErrProvider) {
			unanswered = append(unanswered, unansweredRow{id, err})
			if len(unanswered) >= catchUpOutage {
				res.Stopped = err
				return res, nil
			}
			continue
		}
		if err != nil {
			return res, fmt.Errorf("catch up %s: %w", id, err)
		}
		for _, u := range unanswered {
			if s.chargeUnanswered(ctx, u) == StatusFailed {
				res.Failed++
			}
		}
		unanswered = nil
		switch st {
		case StatusDone:
			res.Done++
		case StatusFailed, StatusPending:
			res.Failed++
		}
	}
	if len(ids) == CatchUpBatch && len(unanswered) == 0 {
		res.Backlog, err = s.catchUpRows(ctx, maxAge, backlogMax)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// catchUpRows lists up to limit pending rows for a catch-up run, oldest
// first: those created between maxAge ago (0: no limit) and CatchUpMinAge
// ago, then those dated more than a minute after now. A row dated in the
// future was written before the clock was set back, and would otherwise
// wait until the clock passed its date.
func (s *Service) catchUpRows(ctx context.Context, maxAge time.Duration, limit int) ([]string, error) {
	from, to := s.catchUpWindow(maxAge)
	ids, err := s.xstore.PendingExtraction(ctx, from, to, MaxExtractTries, limit)
	if err != nil || len(ids) == limit {
		return ids, err
	}
	later, err := s.xstore.PendingExtraction(ctx, s.now().UTC().Add(time.Minute), time.Time{}, MaxExtractTries, limit-len(ids))
	return append(ids, later...), err
}

// unansweredRow is a row a catch-up run found the endpoint unavailable for.
type unansweredRow struct {
	id  string
	err error
}

// chargeUnanswered counts a try on a row the endpoint failed while it
// answered others, and returns the row's status afterwards (failed after
// MaxExtractTries). A row no longer pending is left as it is.
func (s *Service) chargeUnanswered(ctx context.Context, u unansweredRow) ExtractionStatus {
	if errors.Is(u.err, ErrNotReady) || errors.Is(u.err, ErrEndpointDown) {
		return StatusPending // no call was made, or its failure was not about this row
	}
	raw, err := s.store.Get(ctx, u.id)
	if err != nil || raw.Extraction != ExtractPending || !raw.Live() {
		return StatusSkipped
	}
	// Not wrapped: this counts as the row's own failure, not an outage.
	st, _ := s.extractFailed(ctx, raw, fmt.Errorf("%v (the endpoint answered other writes meanwhile)", u.err))
	return st
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
		in.IDs = slices.Compact(slices.Sorted(slices.Values(in.IDs))) // an id given twice is one row
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
	ids, err := s.xstore.RequeueExtraction(ctx, in.IDs, in.Max, s.now().UTC())
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

// queueImportedTurns hands the extraction workers the live turns an
// import wrote that came in waiting for extraction (the store dated their
// request to the import, so the catch-up loop would find them too, but
// only on its next run). Lite mode extracts nothing.
func (s *Service) queueImportedTurns(written []string, rows []ExportRow) {
	if !s.cfg.Mode.UsesLLM() || s.xstore == nil || len(written) == 0 {
		return
	}
	wrote := make(map[string]bool, len(written))
	for _, id := range written {
		wrote[id] = true
	}
	for _, r := range rows {
		m := r.Memory
		if wrote[m.ID] && m.Layer == LayerRaw && m.Live() && m.Extraction == ExtractPending {
			s.enqueue(m.ID)
		}
	}
}
