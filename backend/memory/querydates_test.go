package memory

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// qdTestClock is Wednesday 2026-11-25 15:00 in Paris (or CET when the
// system has no tzdata).
func qdTestClock(t *testing.T) (time.Time, *time.Location) {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		loc = time.FixedZone("CET", 3600)
	}
	return time.Date(2026, 11, 25, 15, 0, 0, 0, loc), loc
}

type qdCase struct {
	q        string
	ok       bool
	from, to string // local days, 2006-01-02
	rest     string
}

// qdNo is a query that names no date; rest is the query itself.
func qdNo(q string) qdCase { return qdCase{q: q, rest: q} }

var qdCases = []qdCase{
	// named days
	{"today", true, "2026-11-25", "2026-11-26", ""},
	{"what did I do yesterday?", true, "2026-11-24", "2026-11-25", "what did I do?"},
	{"Tomorrow's plan", true, "2026-11-26", "2026-11-27", "plan"},
	{"notes from the day before yesterday", true, "2026-11-23", "2026-11-24", "notes"},
	{"TODAY", true, "2026-11-25", "2026-11-26", ""},
	// N units ago
	{"3 days ago", true, "2026-11-22", "2026-11-23", ""},
	{"a couple of days ago", true, "2026-11-23", "2026-11-24", ""},
	{"two weeks ago", true, "2026-11-09", "2026-11-16", ""},
	{"a week ago", true, "2026-11-16", "2026-11-23", ""},
	{"a month ago", true, "2026-10-01", "2026-11-01", ""},
	{"3 months ago", true, "2026-08-01", "2026-09-01", ""},
	{"twelve months ago", true, "2025-11-01", "2025-12-01", ""},
	{"5 years ago", true, "2021-01-01", "2022-01-01", ""},
	// calendar periods
	{"last week", true, "2026-11-16", "2026-11-23", ""},
	{"this week", true, "2026-11-23", "2026-11-30", ""},
	{"next week", true, "2026-11-30", "2026-12-07", ""},
	{"last month", true, "2026-10-01", "2026-11-01", ""},
	{"next month", true, "2026-12-01", "2027-01-01", ""},
	{"this year", true, "2026-01-01", "2027-01-01", ""},
	{"last year's budget", true, "2025-01-01", "2026-01-01", "budget"},
	{"earlier this week", true, "2026-11-23", "2026-11-26", ""},
	{"earlier this month", true, "2026-11-01", "2026-11-26", ""},
	{"later this week", true, "2026-11-25", "2026-11-30", ""},
	{"last weekend", true, "2026-11-21", "2026-11-23", ""},
	{"over the weekend", true, "2026-11-21", "2026-11-23", ""},
	// rolling windows ending with today
	{"past week", true, "2026-11-18", "2026-11-26", ""},
	{"the past 3 days", true, "2026-11-22", "2026-11-26", ""},
	{"in the last 10 days", true, "2026-11-15", "2026-11-26", ""},
	{"the last 2 weeks", true, "2026-11-11", "2026-11-26", ""},
	{"over the past month", true, "2026-10-25", "2026-11-26", ""},
	{"the past few days", true, "2026-11-22", "2026-11-26", ""},
	// weekdays
	{"on Monday", true, "2026-11-23", "2026-11-24", ""},
	{"Friday", true, "2026-11-20", "2026-11-21", ""},
	{"Wednesday", true, "2026-11-18", "2026-11-19", ""},
	{"last Monday", true, "2026-11-23", "2026-11-24", ""},
	{"this Friday", true, "2026-11-27", "2026-11-28", ""},
	{"next Monday", true, "2026-11-30", "2026-12-01", ""},
	{"sunday-school notes", true, "2026-11-22", "2026-11-23", "school notes"},
	// since
	{"since Monday", true, "2026-11-23", "2026-11-26", ""},
	{"since March", true, "2026-03-01", "2026-11-26", ""},
	{"since 2023-05-01", true, "2023-05-01", "2026-11-26", ""},
	{"since last week", true, "2026-11-16", "2026-11-26", ""},
	// months
	{"in March", true, "2026-03-01", "2026-04-01", ""},
	{"in December", true, "2025-12-01", "2026-01-01", ""},
	{"October", true, "2026-10-01", "2026-11-01", ""},
	{"March 2023", true, "2023-03-01", "2023-04-01", ""},
	{"in March of 2023", true, "2023-03-01", "2023-04-01", ""},
	{"last March", true, "2026-03-01", "2026-04-01", ""},
	{"last November", true, "2025-11-01", "2025-12-01", ""},
	{"next March", true, "2027-03-01", "2027-04-01", ""},
	{"what shipped in may", true, "2026-05-01", "2026-06-01", "what shipped"},
	// years
	{"in 2023", true, "2023-01-01", "2024-01-01", ""},
	// a bare year names its year but stays a keyword (a code, a version)
	{"the 2023 roadmap", true, "2023-01-01", "2024-01-01", "the 2023 roadmap"},
	{"notes (2023)", true, "2023-01-01", "2024-01-01", "notes (2023)"},
	{"MySQL error 2003", true, "2003-01-01", "2004-01-01", "MySQL error 2003"},
	// before, until: every day before X, or to its end
	{"what happened before 2024?", true, "0001-01-01", "2024-01-01", "what happened?"},
	{"prior to March 2023", true, "0001-01-01", "2023-03-01", ""},
	{"earlier than May 7, 2023", true, "0001-01-01", "2023-05-07", ""},
	{"until May 2023", true, "0001-01-01", "2023-06-01", ""},
	// a unit before or after a date counts from that date
	{"What did John do the week before August 3, 2023?", true, "2023-07-27", "2023-08-03", "What did John do?"},
	{"last weekend before April 10, 2023", true, "2023-04-08", "2023-04-10", ""},
	{"shown on the Sunday before October 25, 2022", true, "2022-10-23", "2022-10-24", "shown"},
	{"the puppy she got two weeks before August 11, 2023", true, "2023-07-28", "2023-08-04", "the puppy she got"},
	{"on the Saturday after October 28, 2023", true, "2023-11-04", "2023-11-05", ""},
	{"the day after May 7, 2023", true, "2023-05-08", "2023-05-09", ""},
	{"the month before March 2023", true, "2023-02-01", "2023-03-01", ""},
	{"over the weekend before 4th October, 2023", true, "2023-09-30", "2023-10-02", ""},
	// months that are also names or words need context
	{"in June", true, "2026-06-01", "2026-07-01", ""},
	{"June 5", true, "2026-06-05", "2026-06-06", ""},
	// an abbreviation may carry its period
	{"on Jan. 5, 2024", true, "2024-01-05", "2024-01-06", ""},
	{"Sept. 12", true, "2026-09-12", "2026-09-13", ""},
	{"in Aug. 2025", true, "2025-08-01", "2025-09-01", ""},
	// a weekday before a full date is that date
	{"what happened on Monday, May 4, 2026", true, "2026-05-04", "2026-05-05", "what happened"},
	{"notes of Tuesday 5 May 2026", true, "2026-05-05", "2026-05-06", "notes of"},
	// ISO timestamps: the day written
	{"what failed at 2023-05-07T10:00:00Z", true, "2023-05-07", "2023-05-08", "what failed at"},
	{"deploy log 2023-05-07T23:30:00+02:00", true, "2023-05-07", "2023-05-08", "deploy log"},
	{"2023-05-07T10:00:00.250-05:00 crash", true, "2023-05-07", "2023-05-08", "crash"},
	// specific days
	{"2023-05", true, "2023-05-01", "2023-06-01", ""},
	{"2023-05-07", true, "2023-05-07", "2023-05-08", ""},
	{"May 7", true, "2026-05-07", "2026-05-08", ""},
	{"7 May", true, "2026-05-07", "2026-05-08", ""},
	{"May 7th", true, "2026-05-07", "2026-05-08", ""},
	{"May 7, 2023", true, "2023-05-07", "2023-05-08", ""},
	{"7 May 2023", true, "2023-05-07", "2023-05-08", ""},
	{"5/7/2023", true, "2023-05-07", "2023-05-08", ""},
	{"25/12/2023", true, "2023-12-25", "2023-12-26", ""},
	{"Dec 25", true, "2025-12-25", "2025-12-26", ""},
	{"Nov 25", true, "2026-11-25", "2026-11-26", ""},
	{"Feb 29", true, "2024-02-29", "2024-03-01", ""},
	{"the 7th of May", true, "2026-05-07", "2026-05-08", ""},
	// ranges
	{"between May 1 and May 10", true, "2026-05-01", "2026-05-11", ""},
	{"from 2020 to 2022", true, "2020-01-01", "2023-01-01", ""},
	{"between 2022 and 2020", true, "2020-01-01", "2023-01-01", ""},
	// DST: Paris leaves summer time on 2026-10-25
	{"2026-10-25", true, "2026-10-25", "2026-10-26", ""},
	{"from October 20 to October 30", true, "2026-10-20", "2026-10-31", ""},
	// rest tidying and reading order
	{"yesterday, what happened?", true, "2026-11-24", "2026-11-25", "what happened?"},
	{"what happened (yesterday) with Bob", true, "2026-11-24", "2026-11-25", "what happened with Bob"},
	{"deploy   notes  from   last week  please", true, "2026-11-16", "2026-11-23", "deploy notes please"},
	{"What did Alice say on Monday about the API?", true, "2026-11-23", "2026-11-24", "What did Alice say about the API?"},
	{"In March, we shipped", true, "2026-03-01", "2026-04-01", "we shipped"},
	{"yesterday and last week", true, "2026-11-24", "2026-11-25", "and last week"},
	{"meeting on 2023/05/07, notes", true, "2023-05-07", "2023-05-08", "meeting, notes"},
	// not dates
	qdNo("I may come"),
	qdNo("march on"),
	qdNo("the march of time"),
	qdNo("version 2023.1"),
	qdNo("PR #2023"),
	qdNo("PR 2023x"),
	qdNo("v2023"),
	qdNo("10,2023"),
	qdNo("call me at 10"),
	qdNo("the 90s"),
	qdNo("mayday parade"),
	qdNo("marching band"),
	qdNo("monday2 build"),
	qdNo("2023-13-01"),
	qdNo("0 days ago"),
	qdNo("May I ask"),
	qdNo("What did June say?"),
	qdNo("what did Jean go through before meeting Maria?"),
	qdNo("how did she feel after the accident?"),
	qdNo("did we talk after June left"),
	qdNo("what did I tell June before April came"),
	qdNo("the deploy at 2023-05-07T25:99"),
	qdNo("April's idea"),
	qdNo("August asked for the keys"),
	qdNo("2023-05-07T10:00x"),
	qdNo(""),
}

func TestParseQueryDates(t *testing.T) {
	now, loc := qdTestClock(t)
	day := func(s string) time.Time {
		d, err := time.ParseInLocation("2006-01-02", s, loc)
		if err != nil {
			t.Fatalf("bad case day %q: %v", s, err)
		}
		return d.UTC()
	}
	if len(qdCases) < 60 {
		t.Fatalf("only %d cases", len(qdCases))
	}
	for _, c := range qdCases {
		w, rest, ok := ParseQueryDates(c.q, now, loc)
		if ok != c.ok || rest != c.rest {
			t.Errorf("%q: ok=%v rest=%q, want ok=%v rest=%q (phrase %q)", c.q, ok, rest, c.ok, c.rest, w.Phrase)
			continue
		}
		if !ok {
			continue
		}
		if !w.From.Equal(day(c.from)) || !w.To.Equal(day(c.to)) {
			t.Errorf("%q: [%s, %s), want [%s, %s)", c.q, w.From.In(loc), w.To.In(loc), c.from, c.to)
		}
		if w.From.Location() != time.UTC || w.To.Location() != time.UTC {
			t.Errorf("%q: window not in UTC", c.q)
		}
		if !strings.Contains(c.q, w.Phrase) || w.Phrase == "" {
			t.Errorf("%q: phrase %q is not part of the query", c.q, w.Phrase)
		}
	}
}

func TestParseQueryDates_Phrase(t *testing.T) {
	now, loc := qdTestClock(t)
	for q, want := range map[string]string{
		"What did we decide in March of 2023?": "in March of 2023",
		"Yesterday's standup":                  "Yesterday's",
		"since 2023-05-01 only":                "since 2023-05-01",
		"the day before yesterday":             "the day before yesterday",
		"yesterday and last week":              "yesterday",
	} {
		if w, _, ok := ParseQueryDates(q, now, loc); !ok || w.Phrase != want {
			t.Errorf("%q: phrase %q ok=%v, want %q", q, w.Phrase, ok, want)
		}
	}
}

// TestParseQueryDates_DST checks windows across the late-October change:
// both edges are local midnights and October lasts 31 days plus the hour
// the clocks went back.
func TestParseQueryDates_DST(t *testing.T) {
	now, loc := qdTestClock(t)
	for q, days := range map[string]int{"last month": 31, "2026-10-25": 1, "from October 20 to October 30": 11} {
		w, _, ok := ParseQueryDates(q, now, loc)
		if !ok {
			t.Fatalf("%q: no window", q)
		}
		from, to := w.From.In(loc), w.To.In(loc)
		if from.Hour() != 0 || from.Minute() != 0 || to.Hour() != 0 || to.Minute() != 0 {
			t.Errorf("%q: edges %s, %s are not local midnights", q, from, to)
		}
		_, offFrom := from.Zone()
		_, offTo := to.Zone()
		want := time.Duration(days)*24*time.Hour + time.Duration(offFrom-offTo)*time.Second
		if got := w.To.Sub(w.From); got != want {
			t.Errorf("%q: lasts %s, want %s", q, got, want)
		}
	}
	if loc.String() == "Europe/Paris" {
		w, _, _ := ParseQueryDates("last month", now, loc)
		if w.From != time.Date(2026, 9, 30, 22, 0, 0, 0, time.UTC) || w.To != time.Date(2026, 10, 31, 23, 0, 0, 0, time.UTC) {
			t.Errorf("last month in Paris: [%s, %s)", w.From, w.To)
		}
	}
}

// TestParseQueryDates_WindowsAreOrdered checks From < To for every case, at
// several clocks (each weekday, month ends, a leap day) and zones.
func TestParseQueryDates_WindowsAreOrdered(t *testing.T) {
	_, paris := qdTestClock(t)
	zones := []*time.Location{paris, time.UTC, time.FixedZone("X", -11*3600), nil}
	clocks := []time.Time{time.Date(2024, 2, 29, 23, 59, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for d := 0; d < 7; d++ {
		clocks = append(clocks, time.Date(2026, 3, 28+d, 12, 0, 0, 0, time.UTC))
	}
	for _, loc := range zones {
		for _, now := range clocks {
			for _, c := range qdCases {
				if w, _, ok := ParseQueryDates(c.q, now, loc); ok && !w.From.Before(w.To) {
					t.Errorf("%q at %s: From %s not before To %s", c.q, now, w.From, w.To)
				}
			}
		}
	}
}

// qdVocabulary feeds the random queries of TestParseQueryDates_NoPanic.
var qdVocabulary = strings.Fields(`today yesterday tomorrow the day before after ago a an couple of few
	one two twelve 0 1 7 31 32 99 2023 1899 2101 99999999999 days day week weeks month months year years
	last past this next previous earlier later in on since between and from to until through weekend
	monday Sunday may March sept dec february 7th 2nd 31st , . - / # ( ) ' 's ? : 2023-05-07 2023-02-30
	5/7/2023 13/13/2023 2023-05 v2023 2023x mayday x _ é 𝟚 ` + "\xff")

func TestParseQueryDates_NoPanic(t *testing.T) {
	now, loc := qdTestClock(t)
	rng := rand.New(rand.NewPCG(2026, 11))
	for n := 0; n < 500; n++ {
		var b strings.Builder
		for k := rng.IntN(9); k >= 0; k-- {
			if rng.IntN(4) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(qdVocabulary[rng.IntN(len(qdVocabulary))])
		}
		q := b.String()
		w, rest, ok := ParseQueryDates(q, now, loc)
		if ok && !w.From.Before(w.To) {
			t.Errorf("%q: From %s not before To %s", q, w.From, w.To)
		}
		if !ok && rest != q {
			t.Errorf("%q: no date but rest %q", q, rest)
		}
		ParseQueryDates(q, time.Time{}, nil)
	}
}

// "after X" is every day after X, to the last day a date may have.
func TestParseQueryDates_AfterRunsToTheLastDay(t *testing.T) {
	now, loc := qdTestClock(t)
	for q, first := range map[string]time.Time{
		"what changed after 2024":      time.Date(2025, 1, 1, 0, 0, 0, 0, loc),
		"later than March 2023":        time.Date(2023, 4, 1, 0, 0, 0, 0, loc),
		"after Monday, what happened?": time.Date(2026, 11, 24, 0, 0, 0, 0, loc),
	} {
		w, _, ok := ParseQueryDates(q, now, loc)
		if !ok || !w.From.Equal(first) || w.To.Year() < 9999 {
			t.Errorf("%q: ok=%v [%s, %s), want from %s to the year 9999", q, ok, w.From.In(loc), w.To, first)
		}
	}
}

// A range's end without its year (or week) that would fall before its
// start is its next one, so a range runs forward over New Year or a
// weekend.
func TestParseQueryDates_RangesRunForward(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 12, 0, 0, 0, time.UTC) }
	cases := []struct {
		q             string
		now           time.Time
		inside, outer []time.Time
	}{
		{"what did I do from December 20 to January 5", day(2027, 1, 3),
			[]time.Time{day(2026, 12, 25), day(2027, 1, 2)}, []time.Time{day(2026, 7, 1)}},
		{"between Dec 20 and Jan 5", day(2027, 1, 3),
			[]time.Time{day(2026, 12, 25), day(2027, 1, 2)}, []time.Time{day(2026, 7, 1)}},
		{"what happened from November to February", day(2027, 1, 15),
			[]time.Time{day(2026, 12, 15)}, []time.Time{day(2026, 7, 1)}},
		// Sunday 3 January 2027: Friday is 1 January, a bare Sunday 27 December.
		{"what did I do from Friday to Sunday", day(2027, 1, 3),
			[]time.Time{day(2027, 1, 2)}, []time.Time{day(2026, 12, 29)}},
		// explicit years are taken as written, in either order
		{"between 2022 and 2020", day(2027, 1, 3), []time.Time{day(2021, 6, 1)}, []time.Time{day(2023, 1, 2)}},
	}
	for _, c := range cases {
		w, _, ok := ParseQueryDates(c.q, c.now, time.UTC)
		if !ok {
			t.Errorf("%q: no window", c.q)
			continue
		}
		for _, d := range c.inside {
			if !inWindow(d, w) {
				t.Errorf("%q asked %s: [%s, %s) misses %s", c.q, c.now.Format("2006-01-02"), w.From.Format("2006-01-02"),
					w.To.Format("2006-01-02"), d.Format("2006-01-02"))
			}
		}
		for _, d := range c.outer {
			if inWindow(d, w) {
				t.Errorf("%q asked %s: [%s, %s) holds %s", c.q, c.now.Format("2006-01-02"), w.From.Format("2006-01-02"),
					w.To.Format("2006-01-02"), d.Format("2006-01-02"))
			}
		}
	}
}

// A row can tell of an open-ended window ("before May 2, 2026" runs from
// the year 1, longer than a time.Duration holds) as of a bounded one.
func TestTellsOf_OpenEndedWindows(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	written := time.Date(2026, 5, 2, 11, 0, 0, 0, time.UTC)
	for _, query := range []string{"before May 2, 2026", "until May 1, 2026", "between May 2025 and May 1, 2026"} {
		q, _, ok := ParseQueryDates(query, now, time.UTC)
		if !ok {
			t.Fatalf("%q names no date", query)
		}
		w, _, ok := ParseQueryDates("Joanna watched a film last night", written, time.UTC)
		if !ok {
			t.Fatal("last night names no date")
		}
		if !tellsOf(w, q) {
			t.Errorf("%q: a row written %s telling of last night (%s to %s) does not tell of [%s, %s)",
				query, written.Format(time.DateOnly), w.From, w.To, q.From, q.To)
		}
	}
}
