package memory

import "time"

// The date forms that relate two dates or a date and today: since,
// between, before, after and a unit counted from a date (see the list at
// the top of querydates_words.go).

// The ends of the open-ended windows: the first and the last day a date
// may have (memory.ValidTime).
var (
	qdFirstDay = qdDate(1, 1, 1)
	qdLastDay  = qdDate(9999, 12, 31)
)

// openEnded matches "before|prior to|earlier than X" (every day before X),
// "until|till X" (up to the end of X) and "after|later than X" (every day
// after X): the window is not X itself.
func (p *qdParser) openEnded(i int) (qdHit, bool) {
	j, kind := i+1, p.word(i)
	switch {
	case kind == "prior" && p.is(i+1, "to"), (kind == "earlier" || kind == "later") && p.is(i+1, "than"):
		j = i + 2
	case kind == "before" || kind == "after" || kind == "until" || kind == "till":
	default:
		return qdHit{}, false
	}
	h, ok := p.single(j, false) // "after June left": June is a name here
	if !ok {
		return qdHit{}, false
	}
	switch kind {
	case "before", "prior", "earlier":
		return qdHit{end: h.end, span: qdSpan{qdFirstDay, h.span.from}}, true
	case "until", "till":
		return qdHit{end: h.end, span: qdSpan{qdFirstDay, h.span.to}}, true
	default:
		return qdHit{end: h.end, span: qdSpan{h.span.to, qdLastDay.add(1)}}, true
	}
}

// since matches "since X": from the start of X to the end of today. X must
// have started by today.
func (p *qdParser) since(i int) (qdHit, bool) {
	if p.word(i) != "since" {
		return qdHit{}, false
	}
	h, ok := p.single(i+1, true)
	if !ok {
		return qdHit{}, false
	}
	return qdHit{end: h.end, span: qdSpan{h.span.from, p.today.add(1)}}, true
}

// between matches "between X and Y" and "from X to|until|till|through Y":
// the days from the earlier start to the later end, so "between 2022 and
// 2020" is 2020 to 2022 too. A Y without its year or week that falls
// before X is its next one ("from December 20 to January 5" asked in
// January runs over New Year; "from Friday to Sunday" over a weekend).
func (p *qdParser) between(i int) (qdHit, bool) {
	var joins []string
	switch p.word(i) {
	case "between":
		joins = []string{"and"}
	case "from":
		joins = []string{"to", "until", "till", "through", "thru"}
	default:
		return qdHit{}, false
	}
	a, ok := p.single(i+1, true)
	if !ok || !p.is(a.end, joins...) {
		return qdHit{}, false
	}
	b, ok := p.single(a.end+1, true)
	if !ok {
		return qdHit{}, false
	}
	if b.span.from.before(a.span.from) && b.cycle != qdOnce {
		b.span = b.span.next(b.cycle)
	}
	s := a.span
	if b.span.from.before(s.from) {
		s.from = b.span.from
	}
	if s.to.before(b.span.to) {
		s.to = b.span.to
	}
	return qdHit{end: b.end, span: s}, true
}

// anchored matches a unit counted from a date: "[on|over|in] [the|last]
// week|weekend|day|month|year|Monday before|after X" and "N units
// before|after X" (see the list at the top of this file).
func (p *qdParser) anchored(i int) (qdHit, bool) {
	j := i
	if _, ok := qdPreps[p.word(j)]; ok {
		j++
	}
	if p.is(j, "the", "last", "that") {
		j++
	}
	n, unit, wd, named := 1, qdDayUnit, time.Weekday(-1), ""
	if k, ok := qdWeekdays[p.word(j)]; ok {
		wd, j = k, j+1
	} else if p.is(j, "weekend") {
		named, j = "weekend", j+1
	} else if u, ok := qdUnits[p.word(j)]; ok && !u.plural {
		unit, j = u.u, j+1
	} else if c, k, ok := p.count(j, false); ok {
		u, uok := qdUnits[p.word(k)]
		if !uok || !u.plural && c != 1 {
			return qdHit{}, false
		}
		n, unit, j = c, u.u, k+1
	} else {
		return qdHit{}, false
	}
	after := p.is(j, "after")
	if !after && !p.is(j, "before") {
		return qdHit{}, false
	}
	x, ok := p.single(j+1, false)
	if !ok {
		return qdHit{}, false
	}
	var s qdSpan
	switch {
	case wd >= 0:
		d := x.span.from.add(-1) // the nearest such weekday before X, or after it
		step := -1
		if after {
			d, step = x.span.to, 1
		}
		for d.weekday() != wd {
			d = d.add(step)
		}
		s = d.daySpan()
	case named == "weekend":
		sun := x.span.from.add(-1)
		for sun.weekday() != time.Sunday {
			sun = sun.add(-1)
		}
		if after {
			sun = x.span.to
			for sun.weekday() != time.Sunday {
				sun = sun.add(1)
			}
		}
		s = qdSpan{sun.add(-1), sun.add(1)}
	default:
		s = unitFrom(x.span, unit, n, after)
	}
	return qdHit{end: x.end, span: s}, true
}

// unitFrom is the n-th unit before the start of x, or after its end.
func unitFrom(x qdSpan, u qdUnit, n int, after bool) qdSpan {
	move := func(d qdDay, k int) qdDay {
		switch u {
		case qdWeekUnit:
			return d.add(7 * k)
		case qdMonthUnit:
			return d.addMonths(k)
		case qdYearUnit:
			return d.addMonths(12 * k)
		}
		return d.add(k)
	}
	if after {
		return qdSpan{move(x.to, n-1), move(x.to, n)}
	}
	return qdSpan{move(x.from, -n), move(x.from, -n+1)}
}
