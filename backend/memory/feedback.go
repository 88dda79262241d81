package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"time"
)

// maxFeedbackIDs bounds one feedback call.
const maxFeedbackIDs = 100

// maxReplacedHops is how many versions feedback follows from a retired
// memory to the live one that replaced it (see liveVersions).
const maxReplacedHops = 16

// FeedbackRequestKeep is how long a feedback call's request id is
// remembered: sent again within it (its answer was lost), the call counts
// nothing; later, it counts again.
const FeedbackRequestKeep = 30 * 24 * time.Hour

// FeedbackInput says which recalled memories a reply used.
type FeedbackInput struct {
	Used []string
	// RequestID names the call (at most 256 bytes): sent again with the
	// same ids, it counts once. "" counts every call.
	RequestID string
}

// UseRequest is a feedback call's request id for the store: Digest tells a
// resend (the same ids) from another call under the same id, and records
// older than Forget are dropped.
type UseRequest struct {
	ID, Digest string
	Forget     time.Time
	// LookOnly asks only whether the request was recorded: nothing is
	// counted or recorded (some of its memories are gone since).
	LookOnly bool
}

// UseResult is what MarkUsed did: the ids it counted, or, for a request it
// had recorded, Repeat and that request's count.
type UseResult struct {
	Found   []string
	Repeat  bool
	Counted int
}

// idsDigest is the digest of a set of ids, the same in any order.
func idsDigest(ids []string) string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sum := sha256.Sum256([]byte(strings.Join(sorted, "\x00")))
	return hex.EncodeToString(sum[:])
}

// Feedback counts a use of each memory a reply used: with usage learning
// on (HYATLAS_USAGE_LEARNING), memories that replies keep using rank a
// little higher, and a curated memory's strength rises by the bump. Unknown ids are an ENOTFOUND error and nothing is
// counted; repeated ids count once. A memory retired since it was recalled
// counts for the live row that replaced it, and for nothing when none did
// (see liveVersions): a hidden old version is never bumped. A call sent
// again under its request id (see FeedbackInput) answers as the first did
// and counts nothing.
func (s *Service) Feedback(ctx context.Context, in FeedbackInput) (int, error) {
	if err := checkLabel("request_id", in.RequestID); err != nil {
		return 0, err
	}
	if len(in.Used) == 0 {
		return 0, Errorf(EBADREQUEST, "used: give the ids of the memories the reply used")
	}
	if len(in.Used) > maxFeedbackIDs {
		return 0, Errorf(EINVALID, "at most %d ids at a time", maxFeedbackIDs)
	}
	seen := map[string]bool{}
	var ids []string
	for _, id := range in.Used {
		id = strings.TrimSpace(id)
		if id == "" || seen[id] {
			continue
		}
		if err := checkLabel("id", id); err != nil {
			return 0, err
		}
		seen[id] = true
		ids = append(ids, id)
	}
	rows, err := s.store.GetMany(ctx, ids)
	if err != nil {
		return 0, err
	}
	now := s.now().UTC()
	use := UseRequest{ID: in.RequestID, Digest: idsDigest(ids), Forget: now.Add(-FeedbackRequestKeep)}
	for _, id := range ids {
		if _, ok := rows[id]; !ok {
			// A call sent again after one of its memories was deleted
			// still gets its first answer.
			return s.repeatedFeedback(ctx, use, Errorf(ENOTFOUND, "memory %q not found", id))
		}
	}
	live, err := s.liveVersions(ctx, rows, ids)
	if err != nil {
		return 0, err
	}
	res, err := s.store.MarkUsed(ctx, live, now, s.cfg.Strength.Bump, use)
	if err != nil {
		return 0, err
	}
	if res.Repeat {
		return res.Counted, nil
	}
	return len(res.Found), nil
}

// liveVersions gives the live rows a reply's ids stand for, each once, in
// the order first named: a live row is itself; a retired one is the live
// row that replaced it, following retired_by over at most maxReplacedHops
// versions; one retired with nothing live replacing it (forgotten,
// dropped, done, or replaced by a row since deleted) stands for nothing.
// rows holds the named ids' rows.
func (s *Service) liveVersions(ctx context.Context, rows map[string]Memory, ids []string) ([]string, error) {
	known := maps.Clone(rows)
	at := slices.Clone(ids) // where each id has led so far; "" for nowhere
	for hop := 0; ; hop++ {
		moved := false
		var read []string
		for i, id := range at {
			m, ok := known[id]
			switch {
			case id == "" || ok && m.Live():
				continue
			case !ok || m.RetiredBy == "" || hop == maxReplacedHops:
				at[i] = ""
				continue
			}
			at[i], moved = m.RetiredBy, true
			if _, ok := known[m.RetiredBy]; !ok && !slices.Contains(read, m.RetiredBy) {
				read = append(read, m.RetiredBy)
			}
		}
		if !moved {
			break
		}
		if len(read) > 0 {
			more, err := s.store.GetMany(ctx, read)
			if err != nil {
				return nil, err
			}
			maps.Copy(known, more)
		}
	}
	var live []string
	for _, id := range at {
		if id != "" && !slices.Contains(live, id) {
			live = append(live, id)
		}
	}
	return live, nil
}

// repeatedFeedback answers a feedback call naming a memory that is gone:
// a call recorded under its request id gets its first answer; any other
// gets notFound, and nothing is counted either way.
func (s *Service) repeatedFeedback(ctx context.Context, use UseRequest, notFound error) (int, error) {
	if use.ID == "" {
		return 0, notFound
	}
	use.LookOnly = true
	res, err := s.store.MarkUsed(ctx, nil, s.now().UTC(), 0, use)
	switch {
	case err != nil:
		return 0, err
	case res.Repeat:
		return res.Counted, nil
	}
	return 0, notFound
}
