package memory_test

import (
	"fmt"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// A row written in the days after the day a query names, whose own words
// date what it tells inside that day ("last night", read against the
// row's date), counts as dated then; a row of the same later day that
// names no such date does not.
func TestSearch_RowsThatTellOfTheDay(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	at := func(day, hour int) time.Time { return time.Date(2026, 5, day, hour, 0, 0, 0, time.UTC) }
	watched := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Joanna watched The Lord of the Rings trilogy last night",
		EventAt: at(2, 11)})
	shoes := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Joanna bought new running shoes", EventAt: at(2, 12)})
	later := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Joanna watched a film yesterday", EventAt: at(20, 9)})
	before := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Joanna watched a documentary", EventAt: at(1, 10)})

	cases := []struct {
		name, query    string
		dated, undated []string // ids that must be hits with and without the date part
		absent         []string
	}{
		{"a day and words", "What did Joanna watch on 1 May 2026?",
			[]string{watched.ID, before.ID}, []string{shoes.ID}, nil},
		{"only a day", "what happened on 1 May 2026",
			[]string{watched.ID, before.ID}, nil, []string{shoes.ID, later.ID}},
		{"the later day's own date", "what happened on 19 May 2026",
			[]string{later.ID}, nil, []string{watched.ID, shoes.ID, before.ID}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := searchRes(t, r, memory.SearchInput{Query: tc.query, Limit: 10, MinScore: f64(0)})
			why := map[string]memory.Why{}
			for _, h := range res.Hits {
				why[h.Memory.ID] = h.Why
			}
			for _, id := range tc.dated {
				if w, ok := why[id]; !ok || w.Date <= 0 {
					t.Errorf("%s: want a hit with a date part, got %+v (present %v)", id, w, ok)
				}
			}
			for _, id := range tc.undated {
				if w, ok := why[id]; ok && w.Date != 0 {
					t.Errorf("%s: dated outside the day and names no date in it, got date part %v", id, w.Date)
				}
			}
			for _, id := range tc.absent {
				if _, ok := why[id]; ok {
					t.Errorf("%s: should not be a hit of a date-only query: %v", id, ids(res))
				}
			}
		})
	}
	res := searchRes(t, r, memory.SearchInput{Query: "What did Joanna watch on 1 May 2026?", Limit: 10, MinScore: f64(0)})
	if len(res.Hits) < 2 || res.Hits[0].Memory.ID != watched.ID && res.Hits[0].Memory.ID != before.ID {
		t.Errorf("the two rows of 1 May should lead: %v", ids(res))
	}
}

// A row the date window brings gets its keyword score even when the word
// it shares with the query is so common that the keyword leg's top rows
// are all other, shorter texts: among the rows of the window, the one
// holding the query's words ranks first.
func TestSearch_WindowRowsKeepTheirKeywordScore(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	for i := range 200 {
		text := fmt.Sprintf("the bus to town was late again on day %d", i)
		if i%4 == 0 {
			text = fmt.Sprintf("Joanna said hi %d", i)
		}
		r.put(t, memory.Memory{Layer: memory.LayerFact, Content: text, EventAt: time.Date(2026, 3, 1+i%28, 9, 0, 0, 0, time.UTC)})
	}
	july := time.Date(2026, 7, 10, 14, 0, 0, 0, time.UTC)
	trip := r.put(t, memory.Memory{Layer: memory.LayerFact, EventAt: july,
		Content: "Joanna went to Woodhaven, a small town in the Midwest with lovely scenery, historic buildings and an old library"})
	other := r.put(t, memory.Memory{Layer: memory.LayerFact, EventAt: july.Add(time.Hour),
		Content: "the garden grew fast in the warm weather all week long"})
	res := searchRes(t, r, memory.SearchInput{Query: "Where was Joanna in July 2026?", Limit: 10, MinScore: f64(0)})
	pos := map[string]int{}
	for i, h := range res.Hits {
		pos[h.Memory.ID] = i + 1
		if h.Memory.ID == trip.ID && h.Why.Keyword <= 0 {
			t.Errorf("the July row holds %q but has no keyword part: %+v", "Joanna", h.Why)
		}
	}
	if pos[trip.ID] == 0 || pos[other.ID] != 0 && pos[other.ID] < pos[trip.ID] {
		t.Errorf("the July row naming Joanna should rank above the one that does not: ranks %d and %d in %v",
			pos[trip.ID], pos[other.ID], ids(res))
	}
}
