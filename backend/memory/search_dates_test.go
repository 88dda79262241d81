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

// hitWhy is the why of id among a search's hits, and whether it is one;
// floor is the request's min_score (nil: the default relevance gate).
func hitWhy(t *testing.T, r *rig, q, id string, floor *float64) (memory.Why, bool) {
	t.Helper()
	res := searchRes(t, r, memory.SearchInput{Query: q, Limit: 10, MinScore: floor})
	for _, h := range res.Hits {
		if h.Memory.ID == id {
			return h.Why, true
		}
	}
	return memory.Why{}, false
}

// How a date in the query meets the memories' dates, each rule in the
// case that once broke it.
func TestSearch_DatesInTheQuery(t *testing.T) {
	utc := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	west := time.FixedZone("UTC-4", -4*3600)
	cases := []struct {
		name  string
		loc   *time.Location
		rows  []memory.Memory // the first is the one asked about
		query string
		dated bool // the first row must be a hit with a date part (else: a hit, or absent when absent)
		// absent: the first row must not be a hit
		absent bool
		// gate: search with the default relevance gate (else min_score 0)
		gate bool
	}{
		{"before X is every day before X, not X", time.UTC, []memory.Memory{
			{Layer: memory.LayerFact, Content: "We moved the office to Berlin", EventAt: utc(2023, 6, 10, 12)},
			{Layer: memory.LayerFact, Content: "We hired two designers", EventAt: utc(2024, 3, 10, 12)},
		}, "what happened before 2024?", true, false, false},
		{"before X leaves X out", time.UTC, []memory.Memory{
			{Layer: memory.LayerFact, Content: "We hired two designers", EventAt: utc(2024, 3, 10, 12)},
			{Layer: memory.LayerFact, Content: "We moved the office to Berlin", EventAt: utc(2023, 6, 10, 12)},
		}, "what happened before 2024?", false, true, false},
		{"a person named June is not a month", time.UTC, []memory.Memory{
			{Layer: memory.LayerFact, Content: "June said she will move to Lisbon in the spring", EventAt: utc(2026, 11, 20, 10)},
			{Layer: memory.LayerFact, Content: "The team shipped the billing export", EventAt: utc(2026, 6, 12, 10)},
		}, "What did June say?", false, false, false},
		{"an intention due in the window is dated in it", time.UTC, []memory.Memory{
			{Layer: memory.LayerIntention, Category: memory.CategoryGoal, Content: "Dentist appointment at 3 pm", DueAt: utc(2026, 12, 1, 15)},
			{Layer: memory.LayerFact, Content: "Joanna likes green tea"},
		}, "What do I have tomorrow?", true, false, false},
		{"a day without a time is that day west of UTC", west, []memory.Memory{
			{Layer: memory.LayerFact, Content: "Joanna ran her first half marathon", EventAt: utc(2026, 5, 1, 0)},
			{Layer: memory.LayerFact, Content: "Joanna bought a plant", EventAt: time.Date(2026, 5, 1, 12, 0, 0, 0, west)},
		}, "what happened on 1 May 2026", true, false, false},
		{"a day without a time is not the day before west of UTC", west, []memory.Memory{
			{Layer: memory.LayerFact, Content: "Joanna ran her first half marathon", EventAt: utc(2026, 5, 1, 0)},
			{Layer: memory.LayerFact, Content: "Joanna bought a plant", EventAt: time.Date(2026, 4, 30, 12, 0, 0, 0, west)},
		}, "what happened on 30 April 2026", false, true, false},
		{"a date among other words is no reason alone", time.UTC, []memory.Memory{
			{Layer: memory.LayerFact, Content: "Joanna bought a plant", EventAt: utc(2026, 11, 30, 8)},
		}, "write me a short poem about the sea today", false, true, true},
		{"a date alone asks for what is dated then", time.UTC, []memory.Memory{
			{Layer: memory.LayerFact, Content: "Joanna bought a plant", EventAt: utc(2026, 11, 30, 8)},
		}, "what happened today?", true, false, false},
		{"a date and a name find the named one's day", time.UTC, []memory.Memory{
			{Layer: memory.LayerFact, Content: "Joanna bought a plant", EventAt: utc(2026, 11, 30, 8)},
		}, "what did Joanna do today?", true, false, false},
		{"a row saying this year tells of no day", time.UTC, []memory.Memory{
			{Layer: memory.LayerFact, Content: "Joanna's goal this year is to run a marathon", EventAt: utc(2026, 5, 5, 9)},
			{Layer: memory.LayerFact, Content: "Joanna baked bread with her sister", EventAt: utc(2026, 5, 1, 15)},
		}, "what happened on 1 May 2026", false, true, false},
		{"a row saying since March tells of no day", time.UTC, []memory.Memory{
			{Layer: memory.LayerFact, Content: "Joanna has been learning Spanish since March", EventAt: utc(2026, 5, 6, 9)},
			{Layer: memory.LayerFact, Content: "Joanna baked bread with her sister", EventAt: utc(2026, 5, 1, 15)},
		}, "what happened on 1 May 2026", false, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: c.loc}})
			var first string
			for i, m := range c.rows {
				if id := r.put(t, m).ID; i == 0 {
					first = id
				}
			}
			floor := f64(0)
			if c.gate {
				floor = nil
			}
			w, ok := hitWhy(t, r, c.query, first, floor)
			switch {
			case c.absent && ok:
				t.Errorf("%q: %q is a hit (why %+v)", c.query, c.rows[0].Content, w)
			case !c.absent && !ok:
				t.Errorf("%q: %q is not a hit", c.query, c.rows[0].Content)
			case c.dated && w.Date <= 0:
				t.Errorf("%q: %q has no date part: %+v", c.query, c.rows[0].Content, w)
			}
		})
	}
}

// A number that reads as a year ("error 2003") stays a keyword: the row
// about that code ranks above a shorter one about another code.
func TestSearch_AYearLikeNumberStaysAKeyword(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	want := r.put(t, memory.Memory{Layer: memory.LayerFact, EventAt: at,
		Content: "MySQL error 2003 means the client cannot reach the server: check that mysqld runs and that the firewall lets port 3306 through"})
	r.put(t, memory.Memory{Layer: memory.LayerFact, EventAt: at, Content: "MySQL error 1045 means access denied"})
	res := searchRes(t, r, memory.SearchInput{Query: "MySQL error 2003", Limit: 5, MinScore: f64(0)})
	if len(res.Hits) == 0 || res.Hits[0].Memory.ID != want.ID {
		t.Errorf("the row about error 2003 should rank first: %v", ids(res))
	}
}

// The Now page is the answer's own field (SearchResult.Now), never a hit:
// not even when a query asks only a date and the page is dated then, or
// tells of that date in its own words ("yesterday").
func TestSearch_TheNowPageIsNeverAHit(t *testing.T) {
	r := newRig(t, memory.Config{Extraction: memory.ExtractionConfig{Location: time.UTC}})
	now := r.put(t, memory.Memory{Layer: memory.LayerSummary, Category: memory.CategoryNow,
		Content: "Current focus: shipping Foxtrot; yesterday the release was cut; open loop: renew passport"})
	today := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice met Bob for lunch"})
	yest := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice reviewed the release notes",
		EventAt: time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)})
	for q, want := range map[string]string{"what happened today": today.ID, "what happened yesterday": yest.ID} {
		res := searchRes(t, r, memory.SearchInput{Query: q, Limit: 10})
		if got := ids(res); !contains(got, want) || contains(got, now.ID) {
			t.Errorf("%q: hits %v; want %s and never the Now page %s", q, got, want, now.ID)
		}
	}
}
