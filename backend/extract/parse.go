package extract

import (
	"encoding/json"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"hyatlas/backend/memory"
)

// reply is the extraction reply as decoded, before it is checked.
type reply struct {
	Facts          list[factReply]       `json:"facts"`
	Intentions     list[intentionReply]  `json:"intentions"`
	IntentionsDone flexStrings           `json:"intentions_done"`
	Entities       list[entityReply]     `json:"entities"`
	Experiences    list[experienceReply] `json:"experiences"`
}

type factReply struct {
	Text     prose       `json:"text"`
	Label    flexString  `json:"label"`
	EventAt  flexString  `json:"event_at"`
	Replaces flexStrings `json:"replaces"`
	Updates  flexStrings `json:"updates"` // an array is read as its first id
}

// UnmarshalJSON also takes a bare string as the fact's text.
func (f *factReply) UnmarshalJSON(b []byte) error {
	if s, ok := bareString(b); ok {
		*f = factReply{Text: prose(s)}
		return nil
	}
	type plain factReply
	return json.Unmarshal(b, (*plain)(f))
}

type intentionReply struct {
	Goal  prose      `json:"goal"`
	DueAt flexString `json:"due_at"`
}

// UnmarshalJSON also takes a bare string as the goal.
func (in *intentionReply) UnmarshalJSON(b []byte) error {
	if s, ok := bareString(b); ok {
		*in = intentionReply{Goal: prose(s)}
		return nil
	}
	type plain intentionReply
	return json.Unmarshal(b, (*plain)(in))
}

type entityReply struct {
	Name    prose      `json:"name"`
	Kind    flexString `json:"kind"`
	State   flexState  `json:"state"`
	Summary prose      `json:"summary"`
}

type experienceReply struct {
	Task   prose `json:"task"`
	Lesson prose `json:"lesson"`
}

func bareString(b []byte) (string, bool) {
	var s string
	return s, len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil
}

// plan checks a reply: texts trimmed and capped, empty items dropped, lists
// capped, labels and kinds normalised, dates parsed (bad ones undated). Ids
// pass through (trimmed); the Service checks them against what it offered.
func (r reply) plan(loc *time.Location) memory.ExtractPlan {
	var p memory.ExtractPlan
	seen := map[string]bool{}
	for _, f := range r.Facts {
		text := clipText(string(f.Text))
		if text == "" || seen[memory.NormalizeText(text)] || len(p.Facts) == maxFacts {
			continue
		}
		seen[memory.NormalizeText(text)] = true
		var upd string
		if ids := cleanIDs(f.Updates, 1); len(ids) > 0 {
			upd = ids[0]
		}
		p.Facts = append(p.Facts, memory.PlannedFact{
			Text:     text,
			Label:    normLabel(string(f.Label)),
			EventAt:  ParseDate(string(f.EventAt), loc),
			Replaces: cleanIDs(f.Replaces, maxIDs),
			Updates:  upd,
		})
	}
	for _, in := range r.Intentions {
		goal := clipText(string(in.Goal))
		if goal == "" || len(p.Intentions) == maxIntentions {
			continue
		}
		p.Intentions = append(p.Intentions, memory.PlannedIntention{Goal: goal, DueAt: ParseDate(string(in.DueAt), loc)})
	}
	p.IntentionsDone = cleanIDs(r.IntentionsDone, maxDone)
	p.Entities = entities(r.Entities)
	for _, x := range r.Experiences {
		task, lesson := clipText(string(x.Task)), clipText(string(x.Lesson))
		if task == "" || lesson == "" || len(p.Experiences) == maxExperiences {
			continue
		}
		p.Experiences = append(p.Experiences, memory.PlannedExperience{Task: task, Lesson: lesson})
	}
	return p
}

// entities keeps one page per name (case-insensitive): a repeated name
// merges into the first page (its state values win; its kind and summary
// fill what the first lacks).
func entities(in []entityReply) []memory.EntityPage {
	var out []memory.EntityPage
	index := map[string]int{}
	for _, e := range in {
		name := nameOf(string(e.Name))
		if name == "" {
			continue
		}
		key := memory.NormalizeText(name)
		i, ok := index[key]
		if !ok {
			if len(out) == maxEntities {
				continue
			}
			i = len(out)
			index[key] = i
			out = append(out, memory.EntityPage{Name: name, Kind: normKind(string(e.Kind))})
		}
		pg := &out[i]
		if pg.Kind == "other" {
			pg.Kind = normKind(string(e.Kind))
		}
		if pg.Summary == "" {
			pg.Summary = clipText(string(e.Summary))
		}
		for _, kv := range e.State {
			k, v := clip(kv[0]), clip(kv[1])
			if k == "" || v == "" {
				continue
			}
			if _, exists := pg.State[k]; !exists && len(pg.State) == maxStatePairs {
				continue
			}
			if pg.State == nil {
				pg.State = map[string]string{}
			}
			pg.State[k] = v
		}
	}
	return out
}

// clip trims a text and caps it at maxTextRunes runes.
func clip(s string) string {
	return strings.TrimSpace(truncRunes(strings.TrimSpace(s), maxTextRunes))
}

// nameOf is a name from a reply (an entity, a relation's end) in Unicode
// NFKC form, so "Zoë" written with a combining mark, or "Ａｌｉｃｅ" in
// full-width letters, is the same entity as the plain spelling.
func nameOf(s string) string { return clipText(norm.NFKC.String(s)) }

// clipText is clip for a text that becomes a memory or a name: a
// placeholder a model writes for "nothing" ("null", "none", "N/A") is no
// text. (A state value keeps them: "allergies: none" says something.)
func clipText(s string) string {
	s = clip(s)
	switch strings.ToLower(strings.Trim(s, " .")) {
	case "null", "none", "nil", "n/a", "na", "undefined", "unknown", "-", "", "…":
		return ""
	}
	return s
}

// cleanIDs trims ids (and one pair of brackets or quotes a model may copy
// around them), drops empty and repeated ones, and keeps at most n.
func cleanIDs(ids []string, n int) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		for _, p := range [][2]string{{"[", "]"}, {`"`, `"`}, {"'", "'"}, {"`", "`"}} {
			if len(id) >= 2 && strings.HasPrefix(id, p[0]) && strings.HasSuffix(id, p[1]) {
				id = strings.TrimSpace(id[1 : len(id)-1])
			}
		}
		if id == "" || len(id) > 200 || seen[id] || strings.EqualFold(id, "null") || len(out) == n {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	return out
}

var labelAliases = map[string]string{
	"user_preference":   memory.LabelUserPreferences,
	"preference":        memory.LabelUserPreferences,
	"preferences":       memory.LabelUserPreferences,
	"technical_lessons": memory.LabelTechnicalLesson,
	"decisions":         memory.LabelDecision,
}

// normLabel maps a label to the contract's; unknown ones are project_state.
func normLabel(s string) string {
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	for _, l := range labels {
		if s == l {
			return l
		}
	}
	if l, ok := labelAliases[s]; ok {
		return l
	}
	return memory.LabelProjectState
}

// normKind maps a kind to the contract's; unknown ones are other.
func normKind(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "organisation" {
		return "organization"
	}
	for _, k := range kinds {
		if s == k {
			return k
		}
	}
	return "other"
}

// ParseDate reads a date or datetime from a reply. A date alone is that day
// at 00:00 UTC; a time without a zone is read in loc (UTC when nil);
// anything else, or nothing, is the zero time (undated), and so is a time
// outside the years 1 to 9999 in UTC (memory.ValidTime).
func ParseDate(s string, loc *time.Location) time.Time {
	if t := parseDate(s, loc); memory.ValidTime(t) {
		return t
	}
	return time.Time{} // out of the years 1-9999 once in UTC: undated
}

func parseDate(s string, loc *time.Location) time.Time {
	s = strings.TrimSpace(s)
	if len(s) < 10 {
		return time.Time{}
	}
	if loc == nil {
		loc = time.UTC
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02 15:04Z07:00",
		"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04",
		"2006-01-02 15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t
		}
	}
	return time.Time{}
}
