package memory

import "time"

// The date forms ParseQueryDates reads, with T the owner's calendar day of
// now. Days are whole local days; weeks run Monday to Sunday.
//
//   - named days: today, tonight, this morning/afternoon/evening, earlier or
//     later today (T); yesterday (T-1); tomorrow (T+1); [the] day before
//     yesterday (T-2); [the] day after tomorrow (T+2); last night (T-1 and T).
//   - "N days|weeks|months|years ago": the one day, week, month or year that
//     holds T less N units. N is 1 to 9999 in digits, one to twelve in words,
//     "a"/"an", or "[a] couple [of]" (2).
//   - rolling windows that end with today: "past week", "the past|last
//     [N] days|weeks|months|years", "last N days"; N may also be "[a] few"
//     (3). They reach back N whole units from the start of today, so they
//     hold the full N×24 hours before now.
//   - calendar periods: last|previous|this|next week|month|year; "earlier
//     this week|month|year" (its start to the end of today); "later this
//     week|month|year" (today to its end).
//   - weekends: last|previous|this|next weekend (Saturday and Sunday of that
//     week); "the weekend" is this one on a weekend day, else last week's.
//   - weekdays: "Monday" and "last Monday" are the most recent Monday before
//     today; "this Monday" is the Monday of this week, "next Monday" that of
//     next week.
//   - months: "March" is the most recent March that has started; "last
//     March" the most recent one before this month; "this March" this year's;
//     "next March" the first one after this month; "March 2023", "March of
//     2023", "March, 2023" that month.
//   - days: "May 7", "May 7th", "7 May", "7th of May", "the 7th of May", each
//     with an optional year (", 2023" or " 2023"); without a year, the most
//     recent such day that is not in the future.
//   - numbers: 2023-05-07 and 2023/05/07 (a day), 2023-05 (a month),
//     5/7/2023 (US month/day/year; 25/12/2023 reads day first as a month
//     cannot be 25), and a free-standing year 1900 to 2100.
//   - a leading in, on, during, from, over, within or for joins the phrase.
//   - "since X" runs from the start of X to the end of today; "between X and
//     Y" and "from X to|until|till|through Y" from the start of the earlier
//     of X and Y to the end of the later.
//
// Bare "may", "march", "april", "june" and "august" (and month abbreviations
// such as "sep") are months only after in, during, from, since, between or
// the range joins; with a day number, a year, or last/this/next they are
// months anywhere. An abbreviation may carry its period ("Jan. 5").
//
// A weekday written before a full date ("Monday, May 4, 2026") is that
// date. "before|prior to|earlier than X" is every day before X, "until|till
// X" every day to the end of X, "after|later than X" every day after X. A
// unit before or after a date is counted from that date, not from today:
// "[on|over] [the|last] day|week|weekend|month|year|Monday before|after X"
// (the week before X is the seven days before it; the weekend and the
// Monday the ones nearest before it), and "N days|weeks|months|years
// before|after X" (the N-th such unit from X).
// ISO days may carry a time ("2023-05-07T10:00:00Z"): the day written.

// qdUnit is a calendar unit of the relative forms.
type qdUnit int

const (
	qdDayUnit qdUnit = iota
	qdWeekUnit
	qdMonthUnit
	qdYearUnit
)

// qdUnits maps unit words to units; plural says the word is the plural.
var qdUnits = map[string]struct {
	u      qdUnit
	plural bool
}{
	"day": {qdDayUnit, false}, "days": {qdDayUnit, true},
	"week": {qdWeekUnit, false}, "weeks": {qdWeekUnit, true},
	"month": {qdMonthUnit, false}, "months": {qdMonthUnit, true},
	"year": {qdYearUnit, false}, "years": {qdYearUnit, true},
}

var qdCountWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

// qdShifts are the words that move a period: last/previous -1, this 0, next +1.
var qdShifts = map[string]int{"last": -1, "previous": -1, "this": 0, "next": 1}

// qdPreps are the prepositions that may lead a form; the value says whether
// they let a bare "may" or "march" be a month.
var qdPreps = map[string]bool{
	"in": true, "during": true, "from": true,
	"on": false, "over": false, "within": false, "for": false,
}

var qdWeekdays = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
}

// qdMonths maps month names and abbreviations; short marks an abbreviation
// or a name that is also a common word or a first name (may, march, april,
// june, august), which needs context.
var qdMonths = map[string]struct {
	m     time.Month
	short bool
}{
	"january": {1, false}, "february": {2, false}, "march": {3, true}, "april": {4, true},
	"may": {5, true}, "june": {6, true}, "july": {7, false}, "august": {8, true},
	"september": {9, false}, "october": {10, false}, "november": {11, false}, "december": {12, false},
	"jan": {1, true}, "feb": {2, true}, "mar": {3, true}, "apr": {4, true}, "jun": {6, true},
	"jul": {7, true}, "aug": {8, true}, "sep": {9, true}, "sept": {9, true}, "oct": {10, true},
	"nov": {11, true}, "dec": {12, true},
}

// qdNamedDays are fixed phrases naming days [T+from, T+to), longest first.
var qdNamedDays = []struct {
	words    []string
	from, to int
}{
	{[]string{"the", "day", "before", "yesterday"}, -2, -1},
	{[]string{"the", "day", "after", "tomorrow"}, 2, 3},
	{[]string{"day", "before", "yesterday"}, -2, -1},
	{[]string{"day", "after", "tomorrow"}, 2, 3},
	{[]string{"this", "morning"}, 0, 1}, {[]string{"this", "afternoon"}, 0, 1},
	{[]string{"this", "evening"}, 0, 1}, {[]string{"earlier", "today"}, 0, 1},
	{[]string{"later", "today"}, 0, 1}, {[]string{"last", "night"}, -1, 1},
	{[]string{"today"}, 0, 1}, {[]string{"tonight"}, 0, 1},
	{[]string{"yesterday"}, -1, 0}, {[]string{"tomorrow"}, 1, 2},
}

// named matches the fixed phrases of qdNamedDays.
func (p *qdParser) named(i int, _ bool) (qdHit, bool) {
	for _, n := range qdNamedDays {
		if p.seq(i, n.words) {
			return qdHit{end: i + len(n.words), span: qdSpan{p.today.add(n.from), p.today.add(n.to)}}, true
		}
	}
	return qdHit{}, false
}

// seq reports whether the tokens from i are exactly words.
func (p *qdParser) seq(i int, words []string) bool {
	for k, w := range words {
		if !p.is(i+k, w) {
			return false
		}
	}
	return true
}

// count reads a count at i and returns it with the index after it. few
// allows "[a] few" as 3.
func (p *qdParser) count(i int, few bool) (int, int, bool) {
	if t, ok := p.number(i); ok && !t.ord && t.digits <= 4 && t.num >= 1 {
		return t.num, i + 1, true
	}
	if n, ok := qdCountWords[p.word(i)]; ok {
		return n, i + 1, true
	}
	j := i
	if p.is(j, "a", "an") {
		j++
	}
	switch {
	case p.is(j, "couple") && p.is(j+1, "of"):
		return 2, j + 2, true
	case p.is(j, "couple"):
		return 2, j + 1, true
	case few && p.is(j, "few"):
		return 3, j + 1, true
	case j > i:
		return 1, j, true
	}
	return 0, i, false
}

// ago matches "N days|weeks|months|years ago": the unit holding T less N units.
func (p *qdParser) ago(i int, _ bool) (qdHit, bool) {
	n, j, ok := p.count(i, false)
	u, uok := qdUnits[p.word(j)]
	if !ok || !uok || !p.is(j+1, "ago") {
		return qdHit{}, false
	}
	t := p.today
	var s qdSpan
	switch u.u {
	case qdDayUnit:
		s = t.add(-n).daySpan()
	case qdWeekUnit:
		s = t.add(-7 * n).weekSpan()
	case qdMonthUnit:
		s = qdMonthSpan(t.y, t.m-time.Month(n))
	default:
		s = qdYearSpan(t.y - n)
	}
	return qdHit{end: j + 2, span: s}, true
}

// rolling matches "[the] past|last [N] units": N units back from the start
// of today to the end of today. Plain "last week" (no "the", no N) is the
// calendar week, left to period.
func (p *qdParser) rolling(i int, _ bool) (qdHit, bool) {
	j := i
	the := p.is(j, "the")
	if the {
		j++
	}
	kind := p.word(j)
	if kind != "past" && kind != "last" {
		return qdHit{}, false
	}
	n, k, counted := p.count(j+1, true)
	if !counted {
		n, k = 1, j+1
	}
	u, ok := qdUnits[p.word(k)]
	if !ok || (kind == "last" && !the && !counted) {
		return qdHit{}, false
	}
	t := p.today
	from := t.add(-n)
	switch u.u {
	case qdWeekUnit:
		from = t.add(-7 * n)
	case qdMonthUnit:
		from = t.addMonths(-n)
	case qdYearUnit:
		from = t.addMonths(-12 * n)
	}
	return qdHit{end: k + 1, span: qdSpan{from, t.add(1)}}, true
}

// period matches last|previous|this|next week|month|year and
// earlier|later this week|month|year.
func (p *qdParser) period(i int, _ bool) (qdHit, bool) {
	rel, j := p.word(i), i+1
	if rel == "earlier" || rel == "later" {
		if !p.is(j, "this") {
			return qdHit{}, false
		}
		j++
	}
	shift, ok := qdShifts[p.word(j-1)]
	u, uok := qdUnits[p.word(j)]
	if !ok || !uok || u.plural || u.u == qdDayUnit {
		return qdHit{}, false
	}
	t := p.today
	var s qdSpan
	switch u.u {
	case qdWeekUnit:
		s = t.add(7 * shift).weekSpan()
	case qdMonthUnit:
		s = qdMonthSpan(t.y, t.m+time.Month(shift))
	default:
		s = qdYearSpan(t.y + shift)
	}
	switch rel {
	case "earlier":
		s.to = t.add(1)
	case "later":
		s.from = t
	}
	return qdHit{end: j + 1, span: s}, true
}

// weekend matches last|previous|this|next weekend and "the weekend".
func (p *qdParser) weekend(i int, _ bool) (qdHit, bool) {
	if !p.is(i+1, "weekend") {
		return qdHit{}, false
	}
	shift, ok := qdShifts[p.word(i)]
	if p.is(i, "the") {
		shift, ok = -1, true
		if wd := p.today.weekday(); wd == time.Saturday || wd == time.Sunday {
			shift = 0
		}
	}
	if !ok {
		return qdHit{}, false
	}
	sat := p.today.add(7 * shift).monday().add(5)
	return qdHit{end: i + 2, span: qdSpan{sat, sat.add(2)}}, true
}

// weekday matches [last|previous|this|next] Monday..Sunday.
func (p *qdParser) weekday(i int, _ bool) (qdHit, bool) {
	rel, j := "", i
	if _, ok := qdShifts[p.word(i)]; ok {
		rel, j = p.word(i), i+1
	}
	wd, ok := qdWeekdays[p.word(j)]
	if !ok {
		return qdHit{}, false
	}
	if rel == "" {
		k := j + 1
		if p.punctAt(k, ',') {
			k++
		}
		for _, f := range []qdForm{(*qdParser).monthDay, (*qdParser).dayMonth, (*qdParser).isoDate, (*qdParser).usDate} {
			if h, ok := f(p, k, true); ok && h.span.valid() {
				return h, true // "Monday, May 4, 2026": the date written
			}
		}
	}
	t := p.today
	fromMonday := (int(wd) + 6) % 7
	var d qdDay
	switch rel {
	case "this":
		d = t.monday().add(fromMonday)
	case "next":
		d = t.monday().add(7 + fromMonday)
	default: // the most recent one before today
		d = t.add(-((int(t.weekday())-int(wd)+6)%7 + 1))
		return qdHit{end: j + 1, span: d.daySpan(), cycle: qdWeekly}, true
	}
	return qdHit{end: j + 1, span: d.daySpan()}, true
}

// month is the month named by token i and the index after it: an
// abbreviation's glued period ("Jan.") is part of it.
func (p *qdParser) month(i int) (m time.Month, short bool, next int, ok bool) {
	name, ok := qdMonths[p.word(i)]
	if !ok {
		return 0, false, i, false
	}
	next = i + 1
	if p.punctAt(next, '.') && qdAbbreviations[p.word(i)] {
		next++
	}
	return name.m, name.short, next, true
}

// qdAbbreviations are the month names that are abbreviations (and may
// carry a period).
var qdAbbreviations = map[string]bool{
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

// monthRel matches last|previous|this|next March.
func (p *qdParser) monthRel(i int, _ bool) (qdHit, bool) {
	shift, ok := qdShifts[p.word(i)]
	m, _, next, mok := p.month(i + 1)
	if !ok || !mok {
		return qdHit{}, false
	}
	t, y := p.today, p.today.y
	switch {
	case shift < 0 && m >= t.m:
		y--
	case shift > 0 && m <= t.m:
		y++
	}
	return qdHit{end: next, span: qdMonthSpan(y, m)}, true
}

// monthBare matches a month name alone: the most recent such month that has
// started. Short names need ctx.
func (p *qdParser) monthBare(i int, ctx bool) (qdHit, bool) {
	m, short, next, ok := p.month(i)
	if !ok || short && !ctx {
		return qdHit{}, false
	}
	y := p.today.y
	if m > p.today.m {
		y--
	}
	return qdHit{end: next, span: qdMonthSpan(y, m), cycle: qdYearly}, true
}

// monthYear matches "March 2023", "March of 2023" and "March, 2023".
func (p *qdParser) monthYear(i int, _ bool) (qdHit, bool) {
	m, _, j, ok := p.month(i)
	if !ok {
		return qdHit{}, false
	}
	if p.is(j, "of") || p.punctAt(j, ',') {
		j++
	}
	y, end := p.yearAt(j)
	if y == 0 {
		return qdHit{}, false
	}
	return qdHit{end: end, span: qdMonthSpan(y, m)}, true
}

// monthDay matches "May 7", "May 7th" and "May 7, 2023".
func (p *qdParser) monthDay(i int, _ bool) (qdHit, bool) {
	m, _, next, ok := p.month(i)
	if !ok {
		return qdHit{}, false
	}
	return p.dayOf(m, next, next+1)
}

// dayMonth matches "7 May", "7th of May", "the 7th of May 2023".
func (p *qdParser) dayMonth(i int, _ bool) (qdHit, bool) {
	j := i
	if p.is(j, "the") {
		j++
	}
	k := j + 1
	if p.is(k, "of") {
		k++
	}
	m, _, next, ok := p.month(k)
	if !ok {
		return qdHit{}, false
	}
	return p.dayOf(m, j, next)
}

// dayOf reads the day number at di of month m; the phrase ends before token
// end, or after a year there (", 2023" or " 2023"). Without a year the day is
// the most recent one that is not in the future.
func (p *qdParser) dayOf(m time.Month, di, end int) (qdHit, bool) {
	t, ok := p.number(di)
	if !ok || t.digits > 2 || t.num < 1 || t.num > 31 {
		return qdHit{}, false
	}
	yi := end
	if p.punctAt(yi, ',') {
		yi++
	}
	if y, after := p.yearAt(yi); y != 0 {
		if !qdValidDay(y, m, t.num) {
			return qdHit{}, false
		}
		return qdHit{end: after, span: qdDate(y, m, t.num).daySpan()}, true
	}
	y := p.today.y
	if p.today.before(qdDay{y, m, t.num}) {
		y--
	}
	for k := 0; k < 8 && !qdValidDay(y, m, t.num); k++ {
		y-- // February 29 steps back to a leap year
	}
	if !qdValidDay(y, m, t.num) {
		return qdHit{}, false
	}
	return qdHit{end: end, span: qdDate(y, m, t.num).daySpan(), cycle: qdYearly}, true
}

// yearAt is the free-standing year at token i and the index after it, or 0.
func (p *qdParser) yearAt(i int) (int, int) {
	if h, ok := p.year(i, false); ok {
		return h.span.from.y, h.end
	}
	return 0, i
}
