package extract

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
	"time"

	"hyatlas/backend/memory"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var (
	extractSystem     = mustRead("extract_system.tmpl")
	episodeSystem     = mustRead("episode_system.tmpl")
	nowSystem         = mustRead("now_system.tmpl")
	reconcileSystem   = mustRead("reconcile_system.tmpl")
	extractUserTmpl   = mustParse("extract_user.tmpl")
	summaryUserTmpl   = mustParse("summary_user.tmpl")
	reconcileUserTmpl = mustParse("reconcile_user.tmpl")
)

// The system prompts are fixed text (so a provider can cache them); only
// the user messages are templates.
func mustRead(name string) string {
	b, err := promptFS.ReadFile("prompts/" + name)
	if err != nil {
		panic(err)
	}
	return strings.TrimSpace(string(b))
}

func mustParse(name string) *template.Template {
	return template.Must(template.New(name).Option("missingkey=error").ParseFS(promptFS, "prompts/"+name))
}

func render(t *template.Template, data any) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("extract: prompt %s: %w", t.Name(), err)
	}
	return strings.TrimSpace(b.String()), nil
}

type line struct{ ID, When, Text string }

type entityLine struct{ Name, Kind, State string }

type extractVars struct {
	Today      string
	Facts      []line
	Intentions []line
	Entities   []entityLine
	Text       string
}

func extractData(req memory.ExtractRequest, today time.Time) extractVars {
	loc := today.Location()
	v := extractVars{Today: dayString(today), Text: strings.ReplaceAll(req.Text, "</text>", "</ text>")}
	for _, f := range req.RelatedFacts {
		when := "undated"
		if !f.EventAt.IsZero() {
			when = whenString(f.EventAt, loc)
		}
		v.Facts = append(v.Facts, line{oneLine(f.ID), when, oneLine(f.Text)})
	}
	for _, in := range req.OpenIntentions {
		when := "no due date"
		if !in.DueAt.IsZero() {
			when = "due " + whenString(in.DueAt, loc)
		}
		v.Intentions = append(v.Intentions, line{oneLine(in.ID), when, oneLine(in.Goal)})
	}
	for _, p := range req.Entities {
		v.Entities = append(v.Entities, entityLine{oneLine(p.Name), oneLine(p.Kind), stateString(p.State)})
	}
	return v
}

// dayString is "2026-11-28 (Saturday)".
func dayString(t time.Time) string { return t.Format("2006-01-02 (Monday)") }

// whenString writes a stored time: a date alone when it is 00:00 UTC (how a
// date without a time is kept), else minutes in the zone of today.
func whenString(t time.Time, loc *time.Location) string {
	u := t.UTC()
	if u.Hour() == 0 && u.Minute() == 0 && u.Second() == 0 && u.Nanosecond() == 0 {
		return u.Format("2006-01-02")
	}
	return t.In(loc).Format("2006-01-02T15:04Z07:00")
}

func stateString(s map[string]string) string {
	parts := make([]string, 0, len(s))
	for _, k := range sortedKeys(s) {
		parts = append(parts, oneLine(k)+": "+oneLine(s[k]))
	}
	return strings.Join(parts, "; ")
}

// oneLine keeps a listed item on one line and bounded.
func oneLine(s string) string {
	return truncRunes(strings.Join(strings.Fields(s), " "), maxTextRunes)
}

func truncRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
