package memory

import (
	"slices"
	"strings"
	"unicode"
)

// queryKind says how a query is best answered; it sets the legs' weights.
type queryKind int

// Query kinds.
const (
	// kindNatural: words and questions; both legs count.
	kindNatural queryKind = iota
	// kindIdentifier: a code, a path, a version, quoted words: exact
	// tokens matter more than meaning, so the keyword leg leads.
	kindIdentifier
)

// legWeights are the weights of the keyword and vector legs for a kind.
// Natural queries were tuned on LoCoMo (see the README's recall table).
func legWeights(k queryKind) (keyword, vector float64) {
	if k == kindIdentifier {
		return 1, 0.25
	}
	return 1, 0.5
}

// kindOf classifies a query: quoted text, or a token mixing letters with
// digits, underscores, slashes, dots or inner capitals (Foo_bar,
// v1.2.3, src/main.go, getUser, PR#123) makes it an identifier query.
func kindOf(q string) queryKind {
	if strings.Count(q, `"`) >= 2 || strings.Count(q, "`") >= 2 {
		return kindIdentifier
	}
	for _, tok := range strings.Fields(q) {
		tok = strings.Trim(tok, ".,;:!?()[]{}'\"")
		if looksLikeIdentifier(tok) {
			return kindIdentifier
		}
	}
	return kindNatural
}

func looksLikeIdentifier(tok string) bool {
	var letters, digits, marks, innerUpper int
	runes := []rune(tok)
	for i, r := range runes {
		switch {
		case unicode.IsLetter(r):
			letters++
			if i > 0 && unicode.IsUpper(r) && unicode.IsLower(runes[i-1]) {
				innerUpper++
			}
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("_/.#:-", r):
			if i > 0 && i < len(runes)-1 {
				marks++
			}
		}
	}
	switch {
	case letters == 0:
		return false
	case digits > 0 && (letters > 0):
		return true
	case innerUpper > 0:
		return true
	default:
		return marks > 0 && strings.ContainsAny(tok, "_/#:") || strings.Count(tok, ".") >= 2
	}
}

// asksWhen reports whether a query asks about time ("When did we ...",
// "what year", "how long ago"): such questions lean on memories that
// carry a date (see temporalLean).
func asksWhen(q string) bool {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) })
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch {
		case w == "when":
			return true
		case (w == "what" || w == "which") && (next == "date" || next == "day" || next == "year" || next == "month" || next == "week"):
			return true
		case w == "how" && next == "long":
			return true
		}
	}
	return false
}

// acknowledgementWords are the words of prompts that ask nothing of
// memory: acknowledgements, greetings and the filler around them ("ok",
// "great, thanks!", "got it", "thank you so much", "sounds good, go
// ahead"). The Hermes plugin's is_trivial (backend/hermes/plugin/text.py)
// holds the same list: keep the two alike.
var acknowledgementWords = wordSet(`ok okay k kk yes yeah yep yup no nope nah thanks thank thx ty tysm you
	cool great nice good perfect awesome fine sure alright all right done continue go on ahead please
	got it sounds so much a lot very hi hello hey bye goodbye goodnight lol wow ah oh`)

// greetingTimes are greeting words after "good" ("good evening"); alone
// they are a question's words ("evening deploy").
var greetingTimes = map[string]bool{"morning": true, "afternoon": true, "evening": true, "night": true, "day": true}

// acknowledgement reports whether every word of words (at least one) is
// an acknowledgement word, a time after "good", or a "hmm" or "haha" of
// any length.
func acknowledgement(words []string) bool {
	for i, w := range words {
		switch {
		case acknowledgementWords[w], i > 0 && words[i-1] == "good" && greetingTimes[w]:
		case ackSound(w):
		default:
			return false
		}
	}
	return len(words) > 0
}

// ackSound reports whether w is a "hmm" ("hm", "hmmm", "mhm") or a
// "haha" of any length.
func ackSound(w string) bool {
	rest := strings.TrimLeft(w, "m")
	if len(rest) > 1 && rest[0] == 'h' && strings.Trim(rest[1:], "m") == "" {
		return true
	}
	return w != "" && strings.ReplaceAll(w, "ha", "") == ""
}

// trivial reports why a query asks nothing of memory ("" when it does):
// a slash command on one line ("/new", "/model gpt-5"; a path such as
// "/etc/hosts" is a question's word, and so is a question on the lines
// after a command), no word at all, or only acknowledgement words ("ok",
// "great, thanks!", "good evening": see acknowledgement). The Hermes
// plugin's is_trivial reads prompts the same way.
func trivial(q string) string {
	q = strings.TrimSpace(q)
	first := q
	if i := strings.IndexAny(q, " \t"); i >= 0 {
		first = q[:i]
	}
	if strings.HasPrefix(q, "/") && !strings.Contains(q, "\n") && !strings.Contains(first[1:], "/") {
		return "a slash command"
	}
	words := strings.FieldsFunc(strings.ToLower(q), notWordRune)
	if len(words) == 0 {
		return "no words"
	}
	if acknowledgement(words) {
		return "an acknowledgement"
	}
	return ""
}

// genericWords ask about something without naming it ("what happened",
// "what did we talk about", and what is planned: "what is due tomorrow?",
// "any plans for tomorrow?", "what's on my schedule"): a query of a date
// and only these asks for everything of that date, the intentions due
// then among it. ("to-do" is two stop words.)
var genericWords = wordSet(`happen happened happening go going went gone talk talked talking discuss
	discussed say said tell told remember recall know anything something everything stuff things thing
	new news update updates up work worked done doing
	due plan plans planned planning schedule scheduled agenda todo todos upcoming`)

// planNouns name kinds of plans ("any appointments tomorrow?", "upcoming
// meetings", "my task list"): for an intention due in the query's window
// they ask nothing more than the date (an intention "dentist at 10" is an
// appointment), but for any other row they stay words to match, so
// "meetings last week" finds the meetings, not all of last week.
var planNouns = wordSet(`calendar list task tasks meeting meetings appointment appointments`)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// onlyGeneric reports whether every term is a generic word (or there is
// none).
func onlyGeneric(terms []string) bool {
	return !slices.ContainsFunc(terms, func(t string) bool { return !genericWords[t] })
}

// onlyPlanning reports whether every term is a generic word or a plan
// noun (or there is none).
func onlyPlanning(terms []string) bool {
	return !slices.ContainsFunc(terms, func(t string) bool { return !genericWords[t] && !planNouns[t] })
}
