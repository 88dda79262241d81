package memory

import (
	"context"
	"strings"
)

// maxFeedbackIDs bounds one feedback call.
const maxFeedbackIDs = 100

// FeedbackInput says which recalled memories a reply used.
type FeedbackInput struct {
	Used []string
}

// Feedback counts a use of each memory a reply used: with usage learning
// on (HYATLAS_USAGE_LEARNING), memories that replies keep using rank a
// little higher, and a curated memory's strength rises by the bump. Unknown ids are an ENOTFOUND error and nothing is
// counted; repeated ids count once.
func (s *Service) Feedback(ctx context.Context, in FeedbackInput) (int, error) {
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
	for _, id := range ids {
		if _, ok := rows[id]; !ok {
			return 0, Errorf(ENOTFOUND, "memory %q not found", id)
		}
	}
	found, err := s.store.MarkUsed(ctx, ids, s.now().UTC(), s.cfg.Strength.Bump)
	if err != nil {
		return 0, err
	}
	return len(found), nil
}
