package memory_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// putAt stores a fact created at exactly at, with strength s.
func (r *rig) putAt(t *testing.T, text string, at time.Time, s float64) memory.Memory {
	t.Helper()
	m := memory.Memory{ID: memory.NewID(at) + fmt.Sprint(len(text)), Layer: memory.LayerFact, Content: text,
		Owner: memory.Owner{UserID: "u1"}, Strength: s, CreatedAt: at, UpdatedAt: at, EventAt: at,
		Extraction: memory.ExtractSkipped}
	if err := r.store.Insert(context.Background(), memory.NewRow{Memory: m}); err != nil {
		t.Fatal(err)
	}
	return m
}

func listIDs(ms []memory.Memory) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

// TestList_AfterCursorNeitherSkipsNorRepeats pages through a list with
// rows created in the same millisecond while rows above the page's end
// (and the page's last row itself) are retired, deleted or added between
// pages: every row present throughout is listed once, in order. Paging
// by offset skipped such rows.
func TestList_AfterCursorNeitherSkipsNorRepeats(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	type change func(t *testing.T, r *rig, listed []memory.Memory)
	retireAbove := func(t *testing.T, r *rig, listed []memory.Memory) {
		for _, m := range listed[len(listed)-2:] {
			if _, err := r.svc.Retire(ctx, m.ID, memory.RetireInput{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	deleteAbove := func(t *testing.T, r *rig, listed []memory.Memory) {
		for _, m := range listed[len(listed)-3:] {
			if err := r.svc.Delete(ctx, m.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	deleteLast := func(t *testing.T, r *rig, listed []memory.Memory) {
		if err := r.svc.Delete(ctx, listed[len(listed)-1].ID); err != nil {
			t.Fatal(err)
		}
	}
	addNewer := func(t *testing.T, r *rig, listed []memory.Memory) {
		r.putAt(t, fmt.Sprintf("newer %d", len(listed)), base.Add(time.Hour+time.Duration(len(listed))*time.Millisecond), 0.9)
	}
	for _, sort := range []string{"date", "oldest", "strength"} {
		for name, between := range map[string]change{"retire above": retireAbove, "delete above": deleteAbove,
			"delete the page's last row": deleteLast, "add a newer row": addNewer} {
			t.Run(sort+"/"+name, func(t *testing.T) {
				r := newRig(t, memory.Config{})
				strengths := []float64{0.2, 0.5, 0.8}
				for i := range 12 {
					// four milliseconds of three rows each; strengths tie across them
					r.putAt(t, fmt.Sprintf("fact %02d", i), base.Add(time.Duration(i/3)*time.Millisecond), strengths[i%3])
				}
				var listed []memory.Memory
				removed := map[string]bool{}
				after := ""
				for pages := 0; ; pages++ {
					if pages > 20 {
						t.Fatal("paging does not end")
					}
					res, err := r.svc.List(ctx, memory.ListInput{UserID: "u1", Sort: sort, Limit: 3, After: after})
					if err != nil {
						t.Fatal(err)
					}
					listed = append(listed, res.Memories...)
					if res.Next.IsZero() {
						break
					}
					if res.Total != 12-len(removed) && name != "add a newer row" {
						t.Errorf("total %d, want %d (the count is of every row, not those after the cursor)", res.Total, 12-len(removed))
					}
					after = res.Next.String()
					before, _ := r.svc.List(ctx, memory.ListInput{UserID: "u1", Sort: sort, Limit: 100})
					between(t, r, listed)
					now, _ := r.svc.List(ctx, memory.ListInput{UserID: "u1", Sort: sort, Limit: 100})
					for _, id := range listIDs(before.Memories) {
						if !slices.Contains(listIDs(now.Memories), id) {
							removed[id] = true
						}
					}
				}
				final, _ := r.svc.List(ctx, memory.ListInput{UserID: "u1", Sort: sort, Limit: 100})
				seen := map[string]int{}
				for _, m := range listed {
					seen[m.ID]++
					if seen[m.ID] > 1 && name != "delete the page's last row" {
						t.Errorf("%s listed twice", m.Content)
					}
				}
				// Every row present throughout was listed, in the list's order.
				var want, got []string
				for _, m := range final.Memories {
					if m.Content[:5] == "fact " {
						want = append(want, m.ID)
					}
				}
				for _, id := range listIDs(listed) {
					if slices.Contains(want, id) && !slices.Contains(got, id) {
						got = append(got, id)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("listed %d of the %d rows present throughout, or out of order:\n got %v\nwant %v", len(got), len(want), got, want)
				}
			})
		}
	}
}

func TestList_NextAndBadCursors(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, memory.Config{})
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := range 4 {
		r.putAt(t, fmt.Sprintf("fact %d", i), at.Add(time.Duration(i)*time.Second), 0.5)
	}
	page, err := r.svc.List(ctx, memory.ListInput{UserID: "u1", Limit: 2})
	if err != nil || page.Next.IsZero() || len(page.Memories) != 2 {
		t.Fatalf("first page: %d rows, next %q, %v", len(page.Memories), page.Next, err)
	}
	last, err := r.svc.List(ctx, memory.ListInput{UserID: "u1", Limit: 2, After: page.Next.String()})
	if err != nil || len(last.Memories) != 2 || !last.Next.IsZero() || last.Total != 4 {
		t.Fatalf("last page: %d rows, next %q, total %d, %v", len(last.Memories), last.Next, last.Total, err)
	}
	// The same through the full-text narrowing of a text filter.
	var texts []string
	for in := (memory.ListInput{UserID: "u1", Limit: 3, Text: "fact"}); ; {
		res, err := r.svc.List(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, listIDs(res.Memories)...)
		if res.Next.IsZero() {
			break
		}
		in.After = res.Next.String()
	}
	if len(texts) != 4 || texts[0] == texts[3] {
		t.Errorf("text filter paged %v", texts)
	}
	token := page.Next.String()
	for _, tc := range []struct {
		name string
		in   memory.ListInput
	}{
		{"not a token", memory.ListInput{After: "nonsense"}},
		{"another sort's", memory.ListInput{After: token, Sort: "strength"}},
		{"with an offset", memory.ListInput{After: token, Offset: 2}},
		{"a strength out of range", memory.ListInput{After: "date.1.7ff8000000000001.x"}},
		{"no id", memory.ListInput{After: "date.1.0."}},
		{"too long", memory.ListInput{After: "date.1.0." + string(make([]byte, 400))}},
	} {
		if _, err := r.svc.List(ctx, tc.in); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%s: %v, want EINVALID", tc.name, err)
		}
	}
	c, err := memory.ParseListCursor(token, "date")
	if err != nil || c.String() != token || c.ID != page.Memories[1].ID {
		t.Errorf("round trip: %+v, %v", c, err)
	}
}
