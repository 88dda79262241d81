package memory

import (
	"context"
	"fmt"
	"time"
)

// Day is one day of activity: memories written per layer, and calls to
// the LLM endpoint, by what they were for.
type Day struct {
	Date     string         `json:"date"` // YYYY-MM-DD in the owners' time zone
	Added    map[Layer]int  `json:"added"`
	LLMCalls map[string]int `json:"llm_calls"`
}

// maxTimelineDays bounds a timeline.
const maxTimelineDays = 366

// Timeline returns the last days of activity (30 by default), oldest
// first, every day present (empty days too), in the owners' time zone.
func (s *Service) Timeline(ctx context.Context, days int) ([]Day, error) {
	n, err := pageLimit("days", days, 30, maxTimelineDays)
	if err != nil {
		return nil, err
	}
	loc := s.cfg.Extraction.Location
	now := s.now().In(loc)
	start := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc).AddDate(0, 0, -(n - 1))
	_, offset := now.Zone()
	added, calls, err := s.store.Activity(ctx, start, offset)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	out := make([]Day, n)
	for i := range out {
		d := start.AddDate(0, 0, i).Format("2006-01-02")
		out[i] = Day{Date: d, Added: map[Layer]int{}, LLMCalls: map[string]int{}}
		for l, c := range added[d] {
			out[i].Added[l] = c
		}
		for p, c := range calls[d] {
			out[i].LLMCalls[p] = c
		}
	}
	return out, nil
}
