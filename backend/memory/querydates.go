package memory

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// DateWindow is the event-time range a query names: [From, To), in UTC,
// built from calendar days in the owner's time zone.
type DateWindow struct {
	From, To time.Time
	Phrase   string         // the words of the query that named it, as written
	loc      *time.Location // the owner's zone the days are in
	// aheadFrom and aheadTo are the next time the phrase comes round, when
	// it names a day or month that recurs and was read as the last one
	// ("on Friday", "on December 4", "in March"): what is due then may be
	// what the question asks about (see ahead).
	aheadFrom, aheadTo time.Time
}

// ahead is the window of the phrase's next occurrence, for intentions due
// then ("what do I have on Friday?" asked on a Monday): false when the
// phrase does not recur (an explicit date, "yesterday", "this Friday").
func (w DateWindow) ahead() (DateWindow, bool) {
	if w.aheadFrom.IsZero() {
		return DateWindow{}, false
	}
	return DateWindow{From: w.aheadFrom, To: w.aheadTo, Phrase: w.Phrase, loc: w.loc}, true
}

// ParseQueryDates finds the first date expression in query and resolves it
// against now in loc (the owner's time zone). ok is false when the query
// names no date. rest is the query with the phrase removed (spaces tidied),
// so the date words do not also count as keywords.
//
// Rules: matching is case-insensitive English on whole words (a date word
// glued to a letter or digit is not a date word); of several expressions the
// one that starts first wins, and at one start the longest form wins. A
// bare year ("error 2003") names its year but stays in rest: the number may
// be a code or a version as well. A nil
// loc means UTC. Every window holds at least one whole local day, and its
// edges are local midnights, so From < To always holds when ok. When ok is
// false, rest is query unchanged. The forms are listed in querydates_words.go.
func ParseQueryDates(query string, now time.Time, loc *time.Location) (w DateWindow, rest string, ok bool) {
	if loc == nil {
		loc = time.UTC
	}
	p := &qdParser{toks: qdTokenize(query), today: qdDayOf(now.In(loc))}
	for i := range p.toks {
		h, found := p.longest(i)
		if !found {
			continue
		}
		// A date keeps to the years 1-9999 ("5000 years before 2026").
		if h.span.from.before(qdFirstDay) {
			h.span.from = qdFirstDay
		}
		if end := qdLastDay.add(1); end.before(h.span.to) {
			h.span.to = end
		}
		if !h.span.valid() {
			continue
		}
		from, to := h.span.from.midnight(loc), h.span.to.midnight(loc)
		if !from.Before(to) {
			continue
		}
		start, end := p.toks[i].start, p.byteEnd(h.end)
		w = DateWindow{From: from, To: to, Phrase: query[start:end], loc: loc}
		if h.cycle != qdOnce {
			if next := h.span.next(h.cycle); next.valid() && p.today.before(next.to) {
				w.aheadFrom, w.aheadTo = next.from.midnight(loc), next.to.midnight(loc)
			}
		}
		if h.keep {
			return w, query, true
		}
		return w, qdTidy(query[:start] + " " + query[end:]), true
	}
	return DateWindow{}, query, false
}

// qdTok is one token of a query: a run of letters (word, lower-cased), a run
// of ASCII digits (an ordinal suffix st/nd/rd/th is kept with it), or one
// other non-space rune (punct).
type qdTok struct {
	start, end int    // byte offsets in the query
	word       string // lower-cased letters; "" when not a word
	digits     int    // length of the digit run; 0 when not a number
	num        int    // value of the digit run; -1 when longer than 6 digits
	ord        bool   // the digits carry an ordinal suffix (7th)
	punct      rune   // the rune of a punct token
	lok, rok   bool   // the token stands free of its left / right neighbour
}

func (t qdTok) isNum() bool { return t.digits > 0 }

// qdParser holds one query's tokens and the owner's calendar day of now.
type qdParser struct {
	toks  []qdTok
	today qdDay
}

// qdHit is a matched phrase: tokens up to end (exclusive), naming span.
// keep says its words stay among the keywords (a bare year); cycle is how
// often a form without a year or week recurs (see qdSpan.next).
type qdHit struct {
	end   int
	span  qdSpan
	keep  bool
	cycle qdCycle
}

// qdCycle is how a date form without its year (or week) recurs.
type qdCycle int

const (
	qdOnce   qdCycle = iota // fixed: an explicit date, a relative day
	qdWeekly                // a bare weekday
	qdYearly                // a month or a day of a month without a year
)

// next is the span one cycle later.
func (s qdSpan) next(c qdCycle) qdSpan {
	switch c {
	case qdWeekly:
		return qdSpan{s.from.add(7), s.to.add(7)}
	case qdYearly:
		return qdSpan{s.from.addMonths(12), s.to.addMonths(12)}
	}
	return s
}

// qdSpan is a half-open range of calendar days [from, to).
type qdSpan struct{ from, to qdDay }

func (s qdSpan) valid() bool { return s.from.before(s.to) }

// qdForm matches one date form at token i; ctx says the words before it make
// a bare "may" or "march" a month.
type qdForm func(p *qdParser, i int, ctx bool) (qdHit, bool)

// qdForms are the single date forms, tried at every start.
var qdForms = []qdForm{
	(*qdParser).named, (*qdParser).ago, (*qdParser).rolling, (*qdParser).period,
	(*qdParser).weekend, (*qdParser).weekday, (*qdParser).monthRel,
	(*qdParser).monthDay, (*qdParser).dayMonth, (*qdParser).monthYear,
	(*qdParser).monthBare, (*qdParser).isoDate, (*qdParser).usDate, (*qdParser).year,
}

// longest is the longest valid phrase starting at token i: a range, a
// "since" form, a preposition with a form, or a form alone.
func (p *qdParser) longest(i int) (qdHit, bool) {
	best, found := p.single(i, false)
	for _, f := range []func(int) (qdHit, bool){p.between, p.since, p.prep, p.openEnded, p.anchored} {
		if h, ok := f(i); ok && h.span.valid() && (!found || h.end > best.end) {
			best, found = h, true
		}
	}
	return best, found
}

// single is the longest valid single form starting at token i.
func (p *qdParser) single(i int, ctx bool) (qdHit, bool) {
	var best qdHit
	found := false
	for _, f := range qdForms {
		if h, ok := f(p, i, ctx); ok && h.span.valid() && (!found || h.end > best.end) {
			best, found = h, true
		}
	}
	return best, found
}

// prep matches a leading preposition (in, on, during, ...) and the form after
// it; the preposition joins the phrase.
func (p *qdParser) prep(i int) (qdHit, bool) {
	ctx, ok := qdPreps[p.word(i)]
	if !ok {
		return qdHit{}, false
	}
	h, ok := p.single(i+1, ctx)
	h.keep = false // a year after "in" is a year
	return h, ok
}

// byteEnd is the byte offset where a phrase ending before token end stops;
// a possessive "'s" glued to it (yesterday's) is part of the phrase.
func (p *qdParser) byteEnd(end int) int {
	last := p.toks[end-1].end
	if end+1 < len(p.toks) {
		q, s := p.toks[end], p.toks[end+1]
		if (q.punct == '\'' || q.punct == '’') && q.start == last && s.start == q.end && s.word == "s" && s.rok {
			return s.end
		}
	}
	return last
}

// word is token i's word when it stands free of digits and underscores,
// else "".
func (p *qdParser) word(i int) string {
	if i < 0 || i >= len(p.toks) || !p.toks[i].lok || !p.toks[i].rok {
		return ""
	}
	return p.toks[i].word
}

// is reports whether token i is one of words.
func (p *qdParser) is(i int, words ...string) bool {
	w := p.word(i)
	for _, x := range words {
		if w != "" && w == x {
			return true
		}
	}
	return false
}

// number is token i when it is a free-standing number (see qdMarkEdges).
func (p *qdParser) number(i int) (qdTok, bool) {
	if i < 0 || i >= len(p.toks) || !p.toks[i].isNum() || p.toks[i].num < 0 {
		return qdTok{}, false
	}
	t := p.toks[i]
	return t, t.lok && t.rok
}

// punctAt reports whether token i is the rune r glued to token i-1 on its left.
func (p *qdParser) punctAt(i int, r rune) bool {
	return i > 0 && i < len(p.toks) && p.toks[i].punct == r && p.toks[i].start == p.toks[i-1].end
}

// qdTokenize splits s into tokens; spaces only separate.
func qdTokenize(s string) []qdTok {
	var toks []qdTok
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
			continue
		case qdIsLetter(r):
			j := i + size
			for j < len(s) {
				r2, n := utf8.DecodeRuneInString(s[j:])
				if !qdIsLetter(r2) {
					break
				}
				j += n
			}
			toks = append(toks, qdTok{start: i, end: j, word: strings.ToLower(s[i:j]), num: -1})
		case r >= '0' && r <= '9':
			toks = append(toks, qdNumber(s, i))
		default:
			toks = append(toks, qdTok{start: i, end: i + size, punct: r, num: -1})
		}
		i = toks[len(toks)-1].end
	}
	qdMarkEdges(toks)
	return toks
}

func qdIsLetter(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) }

// qdNumber reads the digit run at i, with an ordinal suffix when one follows
// and ends the word (7th, 2nd, but not 7three).
func qdNumber(s string, i int) qdTok {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	t := qdTok{start: i, end: j, digits: j - i, num: -1}
	if t.digits <= 6 {
		t.num = 0
		for _, c := range s[i:j] {
			t.num = t.num*10 + int(c-'0')
		}
	}
	if j+2 <= len(s) && qdOrdinals[strings.ToLower(s[j:j+2])] {
		if r, _ := utf8.DecodeRuneInString(s[j+2:]); j+2 == len(s) || !qdIsLetter(r) && (r < '0' || r > '9') {
			t.ord, t.end = true, j+2
		}
	}
	return t
}

var qdOrdinals = map[string]bool{"st": true, "nd": true, "rd": true, "th": true}

// qdMarkEdges sets lok/rok. A word stands free unless a digit run or "_" is
// glued to it. A number stands free on the left after a space, the start or
// an opening bracket or quote; on the right before a space, the end, a
// closing bracket or quote, ?, ! or ;, or a . , : that is not followed by a
// glued letter or digit. So #2023, v2023, 2023x, 2023.1, 10,2023 and 2023-
// do not stand free.
func qdMarkEdges(toks []qdTok) {
	for k := range toks {
		t := &toks[k]
		var prev, next, after *qdTok
		if k > 0 && toks[k-1].end == t.start {
			prev = &toks[k-1]
		}
		if k+1 < len(toks) && toks[k+1].start == t.end {
			next = &toks[k+1]
			if k+2 < len(toks) && toks[k+2].start == next.end {
				after = &toks[k+2]
			}
		}
		switch {
		case t.word != "":
			t.lok = prev == nil || !prev.isNum() && prev.punct != '_'
			t.rok = next == nil || !next.isNum() && next.punct != '_'
		case t.isNum():
			t.lok = prev == nil || strings.ContainsRune("([{\"'“‘", prev.punct) && prev.punct != 0
			t.rok = next == nil || next.punct != 0 && (strings.ContainsRune(")]}\"'”’?!;", next.punct) ||
				strings.ContainsRune(".,:", next.punct) && (after == nil || after.punct != 0))
		default:
			t.lok, t.rok = true, true
		}
	}
}

// isoDate matches 2023-05-07 and 2023/05/07 (a day) and 2023-05 (a month).
func (p *qdParser) isoDate(i int, _ bool) (qdHit, bool) {
	if i+2 >= len(p.toks) || !p.toks[i].lok || p.toks[i].digits != 4 || p.toks[i].ord {
		return qdHit{}, false
	}
	sep := p.toks[i+1].punct
	y, m := p.toks[i].num, p.glued(i+2, sep)
	if (sep != '-' && sep != '/') || !qdYearOK(y) || m < 1 || m > 12 || p.toks[i+2].digits > 2 {
		return qdHit{}, false
	}
	if d := p.glued(i+4, sep); d > 0 && p.toks[i+4].digits <= 2 && qdValidDay(y, time.Month(m), d) {
		if p.toks[i+4].rok {
			return qdHit{end: i + 5, span: qdDate(y, time.Month(m), d).daySpan()}, true
		}
		if end, ok := p.isoTime(i + 5); ok && sep == '-' {
			return qdHit{end: end, span: qdDate(y, time.Month(m), d).daySpan()}, true
		}
	}
	if sep == '-' && p.toks[i+2].rok {
		return qdHit{end: i + 3, span: qdMonthSpan(y, time.Month(m))}, true
	}
	return qdHit{}, false
}

// isoTime matches the time part glued to an ISO day at token i
// ("T10:00", "T10:00:00.5Z", "T23:30:00+02:00") and returns the index
// after it. The day is the one written: the timestamp's own calendar day.
func (p *qdParser) isoTime(i int) (int, bool) {
	if i >= len(p.toks) || p.toks[i].word != "t" || p.toks[i].start != p.toks[i-1].end {
		return 0, false
	}
	j := i + 1
	glued := func(k int) bool { return k < len(p.toks) && p.toks[k].start == p.toks[k-1].end }
	if !glued(j) || p.toks[j].digits != 2 || !p.punctAt(j+1, ':') || !glued(j+2) || p.toks[j+2].digits != 2 ||
		p.toks[j].num > 23 || p.toks[j+2].num > 59 {
		return 0, false
	}
	j += 3
	for (p.punctAt(j, ':') || p.punctAt(j, '.')) && glued(j+1) && p.toks[j+1].isNum() {
		j += 2 // seconds, fractions
	}
	switch {
	case glued(j) && p.toks[j].word == "z":
		j++
	case (p.punctAt(j, '+') || p.punctAt(j, '-')) && glued(j+1) && p.toks[j+1].isNum():
		j += 2
		if p.punctAt(j, ':') && glued(j+1) && p.toks[j+1].isNum() {
			j += 2
		}
	}
	if glued(j) && p.toks[j].word != "" || glued(j) && p.toks[j].isNum() {
		return 0, false // more letters or digits glued on: not a timestamp
	}
	return j, true
}

// usDate matches month/day/year (5/7/2023); when the first number cannot be
// a month but the second can, it reads day/month/year (25/12/2023).
func (p *qdParser) usDate(i int, _ bool) (qdHit, bool) {
	if i >= len(p.toks) || !p.toks[i].lok || p.toks[i].digits > 2 || p.toks[i].ord {
		return qdHit{}, false
	}
	m, d, y := p.toks[i].num, p.glued(i+2, '/'), p.glued(i+4, '/')
	if y < 0 || d < 0 || p.toks[i+4].digits != 4 || !p.toks[i+4].rok || p.toks[i+2].digits > 2 || !qdYearOK(y) {
		return qdHit{}, false
	}
	if m > 12 && d <= 12 {
		m, d = d, m
	}
	if m < 1 || m > 12 || !qdValidDay(y, time.Month(m), d) {
		return qdHit{}, false
	}
	return qdHit{end: i + 5, span: qdDate(y, time.Month(m), d).daySpan()}, true
}

// glued is the value of number token i when the token before it is sep glued
// to both numbers (no spaces, no ordinal), else -1.
func (p *qdParser) glued(i int, sep rune) int {
	if i >= len(p.toks) || !p.punctAt(i-1, sep) || p.toks[i].start != p.toks[i-1].end ||
		!p.toks[i].isNum() || p.toks[i].ord || !p.toks[i-2].isNum() {
		return -1
	}
	return p.toks[i].num
}

// year matches a free-standing four-digit year from 1900 to 2100.
func (p *qdParser) year(i int, _ bool) (qdHit, bool) {
	t, ok := p.number(i)
	if !ok || t.digits != 4 || t.ord || !qdYearOK(t.num) {
		return qdHit{}, false
	}
	return qdHit{end: i + 1, span: qdYearSpan(t.num), keep: true}, true
}

func qdYearOK(y int) bool { return y >= 1900 && y <= 2100 }

// qdTidy collapses spaces, drops spaces before punctuation, empty brackets
// and commas left dangling, and trims separators from the ends.
func qdTidy(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, r := range []struct{ old, new string }{
		{" ,", ","}, {" .", "."}, {" ;", ";"}, {" :", ":"}, {" !", "!"}, {" ?", "?"}, {" )", ")"},
		{"( ", "("}, {"()", ""}, {"[]", ""}, {",?", "?"}, {",.", "."}, {",!", "!"}, {",,", ","},
	} {
		s = strings.ReplaceAll(s, r.old, r.new)
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimLeft(s, " ,;:-.?!")
	return strings.TrimRight(s, " ,;:-")
}

// qdDay is a calendar day, free of any time zone.
type qdDay struct {
	y int
	m time.Month
	d int
}

// qdDate is the day y-m-d, normalised the way time.Date normalises (day 0
// is the last day of the month before).
func qdDate(y int, m time.Month, d int) qdDay {
	return qdDayOf(time.Date(y, m, d, 12, 0, 0, 0, time.UTC))
}

func qdDayOf(t time.Time) qdDay {
	y, m, d := t.Date()
	return qdDay{y, m, d}
}

func (d qdDay) add(n int) qdDay { return qdDate(d.y, d.m, d.d+n) }

func (d qdDay) before(o qdDay) bool {
	if d.y != o.y {
		return d.y < o.y
	}
	if d.m != o.m {
		return d.m < o.m
	}
	return d.d < o.d
}

func (d qdDay) weekday() time.Weekday {
	return time.Date(d.y, d.m, d.d, 12, 0, 0, 0, time.UTC).Weekday()
}

// monday is the Monday of d's week (weeks run Monday to Sunday).
func (d qdDay) monday() qdDay { return d.add(-((int(d.weekday()) + 6) % 7)) }

// addMonths moves d by n months, clamping the day to the target month's
// length (March 31 less one month is February 28 or 29).
func (d qdDay) addMonths(n int) qdDay {
	first := qdDate(d.y, d.m+time.Month(n), 1)
	return qdDay{first.y, first.m, min(d.d, qdDaysIn(first.y, first.m))}
}

func (d qdDay) daySpan() qdSpan  { return qdSpan{d, d.add(1)} }
func (d qdDay) weekSpan() qdSpan { return qdSpan{d.monday(), d.monday().add(7)} }

func qdMonthSpan(y int, m time.Month) qdSpan { return qdSpan{qdDate(y, m, 1), qdDate(y, m+1, 1)} }
func qdYearSpan(y int) qdSpan                { return qdSpan{qdDate(y, 1, 1), qdDate(y+1, 1, 1)} }
func qdDaysIn(y int, m time.Month) int       { return qdDate(y, m+1, 0).d }

// qdValidDay reports whether d is a day of month m in year y.
func qdValidDay(y int, m time.Month, d int) bool { return d >= 1 && d <= qdDaysIn(y, m) }

// midnight is the first instant of d in loc, in UTC. Where a zone skips
// midnight (a DST gap), it is the first instant that falls on d.
func (d qdDay) midnight(loc *time.Location) time.Time {
	t := time.Date(d.y, d.m, d.d, 0, 0, 0, 0, loc)
	for k := 0; k < 8 && qdDayOf(t) != d; k++ {
		t = t.Add(30 * time.Minute)
	}
	return t.UTC()
}
