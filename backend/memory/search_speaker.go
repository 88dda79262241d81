package memory

import (
	"strings"
	"unicode"
)

// speakerParts lends a share of its base score to each transcript line
// whose speaker the query names. A line such as "Melanie: I just signed up
// for a pottery class" speaks in its speaker's first person, so it tells of
// Melanie although it never says her name, while the other speaker's lines
// ("Caroline: Melanie, your pottery is lovely!") only mention her; a query
// naming Melanie ("What does Melanie do to relax?") asks for the first
// kind. Only rows that matched by a leg gain (the part is a share of the
// base), and naming both speakers lifts both alike.
func speakerParts(r *searchRun) {
	query := ""
	for _, c := range r.cands {
		if c.base <= 0 {
			continue
		}
		name := speakerOf(c.row.Content)
		if name == "" {
			continue
		}
		if query == "" {
			query = strings.ToLower(r.q.text)
		}
		if containsWord(query, name) {
			c.why.Speaker = speakerShare * c.base
		}
	}
}

// maxSpeakerLen bounds the name before a transcript line's colon.
const maxSpeakerLen = 40

// speakerOf returns the lower-case speaker of a transcript line ("Melanie:
// ...", "Dr. Ada Lovelace: ..."), or "" for a role label ("USER: ...") and
// when text does not start with a name of one to three words of letters
// followed by a colon and a space (a URL's "https:" is no speaker).
func speakerOf(text string) string {
	i := strings.IndexByte(text, ':')
	if i <= 0 || i > maxSpeakerLen || i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\n' {
		return ""
	}
	words := strings.Fields(text[:i])
	if len(words) == 0 || len(words) > 3 || text[:i] != strings.Join(words, " ") {
		return ""
	}
	for _, w := range words {
		for j, c := range w {
			switch {
			case unicode.IsLetter(c):
			case j > 0 && (c == '.' || c == '-' || c == '\''):
			default:
				return ""
			}
		}
	}
	name := strings.ToLower(strings.Join(words, " "))
	if roleLabels[name] {
		return ""
	}
	return name
}

// roleLabels head the lines of an agent's transcript ("USER: ...",
// "ASSISTANT: ..."). They name no one a query asks about: "what does the
// user prefer?" must not lift every turn of every chat above the facts
// extraction made of them ("The user prefers ...").
var roleLabels = map[string]bool{
	"user": true, "assistant": true, "system": true, "human": true, "ai": true,
	"bot": true, "tool": true, "agent": true, "model": true, "me": true, "you": true,
}
