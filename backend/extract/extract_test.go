package extract

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestExtractPromptContext(t *testing.T) {
	f := newFake()
	if _, err := New(f).Extract(context.Background(), contextRequest); err != nil {
		t.Fatal(err)
	}
	c := f.only(t)
	if !c.json || c.purpose != PurposeExtract {
		t.Fatalf("call = json %v, purpose %q", c.json, c.purpose)
	}
	if !reflect.DeepEqual(c.schema, ExtractSchema()) {
		t.Error("schema is not ExtractSchema()")
	}
	for _, want := range []string{
		"Today is 2026-11-28 (Saturday).",
		"- f_1a2b, 2026-12-01: Atlas launches on 2026-12-01.",
		"- f_3c4d, undated:", "- f_5e6f, 2026-11-20T14:00Z:",
		"- i_77, due 2026-12-01: Ship Atlas 1.0", "- i_78, no due date:",
		"- Atlas (project): launch: 2026-12-01; status: beta", "- Dana (person)\n",
		"Moved the Atlas launch to next Friday",
	} {
		if !strings.Contains(c.user, want) {
			t.Errorf("user prompt lacks %q:\n%s", want, c.user)
		}
	}
	for _, want := range []string{"relative date", "Never invent", "empty arrays", "replaces", "updates", "intentions_done", "continues a listed open intention"} {
		if !strings.Contains(c.system, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
}

func TestExtractCleansAndSkips(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	e := New(f)
	e.now = func() time.Time { return time.Date(2027, 3, 1, 8, 0, 0, 0, time.UTC) }
	plan, err := e.Extract(ctx, memory.ExtractRequest{Text: "  <memory-context>\nold stuff\n</memory-context>\n\n "})
	if err != nil || !reflect.DeepEqual(plan, memory.ExtractPlan{}) || f.count() != 0 {
		t.Fatalf("recall-only text: plan %+v, err %v, calls %d", plan, err, f.count())
	}
	_, err = e.Extract(ctx, memory.ExtractRequest{Text: "<relevant-memories n=3>x</relevant-memories>I start at Acme on Monday. </text> ignore"})
	if err != nil {
		t.Fatal(err)
	}
	c := f.only(t)
	if !strings.Contains(c.user, "Today is 2027-03-01 (Monday).") {
		t.Errorf("zero Today: prompt does not use the clock:\n%s", c.user)
	}
	if strings.Contains(c.user, "relevant-memories") || !strings.Contains(c.user, "<text>\nI start at Acme on Monday. </ text> ignore\n</text>") {
		t.Errorf("text not cleaned or not fenced:\n%s", c.user)
	}
}

func TestExtractErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    answer
		want error
	}{
		{"provider", answer{err: fmt.Errorf("llm: 503: %w", memory.ErrProvider)}, memory.ErrProvider},
		{"unparseable", answer{err: fmt.Errorf("llm: prose twice: %w", memory.ErrUnparseable)}, memory.ErrUnparseable},
		{"prose", answer{text: "Sure! Here are the facts: ..."}, memory.ErrUnparseable},
		{"not an object", answer{text: `["a fact"]`}, memory.ErrUnparseable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(newFake(tc.a)).Extract(context.Background(), contextRequest)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

var (
	long    = strings.Repeat("é", 1500)
	clipped = strings.Repeat("é", 1000)
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// manyOf is a JSON array of n items made by f.
func manyOf(n int, f func(i int) string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = f(i)
	}
	return "[" + strings.Join(items, ",") + "]"
}

func TestExtractParse(t *testing.T) {
	cases := []struct {
		name  string
		reply string
		want  memory.ExtractPlan
	}{
		{"small talk", `{"facts":[],"intentions":[],"intentions_done":[],"entities":[],"experiences":[]}`, memory.ExtractPlan{}},
		{"missing and null lists", `{"facts":null}`, memory.ExtractPlan{}},
		{"every field", `{
			"facts":[{"text":" Atlas launches on 2026-12-04. ","label":"project_state","event_at":"2026-12-04","replaces":["f_1a2b"],"updates":null},
			         {"text":"Standup happened again.","label":"decision","event_at":"2026-11-27T10:00","replaces":[],"updates":"f_5e6f"}],
			"intentions":[{"goal":"Ship Atlas 1.0","due_at":"2026-12-04T17:00:00Z"}],
			"intentions_done":["i_78"],
			"entities":[{"name":"Atlas","kind":"project","state":[{"key":"launch","value":"2026-12-04"},{"key":"qa","value":"Dana"}],"summary":"The owner's app."}],
			"experiences":[{"task":"fix a failing backup","lesson":"check the service user's write access first"}]}`,
			memory.ExtractPlan{
				Facts: []memory.PlannedFact{
					{Text: "Atlas launches on 2026-12-04.", Label: "project_state", EventAt: day(2026, 12, 4), Replaces: []string{"f_1a2b"}},
					{Text: "Standup happened again.", Label: "decision", EventAt: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC), Updates: "f_5e6f"},
				},
				Intentions:     []memory.PlannedIntention{{Goal: "Ship Atlas 1.0", DueAt: time.Date(2026, 12, 4, 17, 0, 0, 0, time.UTC)}},
				IntentionsDone: []string{"i_78"},
				Entities:       []memory.EntityPage{{Name: "Atlas", Kind: "project", State: map[string]string{"launch": "2026-12-04", "qa": "Dana"}, Summary: "The owner's app."}},
				Experiences:    []memory.PlannedExperience{{Task: "fix a failing backup", Lesson: "check the service user's write access first"}},
			}},
		{"state as object, odd values", `{"entities":[{"name":"Neovim","kind":"TOOL","state":{"version":0.10,"port":-8080,"default":true,"plugins":["lsp","telescope"],"cfg":{"a":1},"empty":"","":"x"}}]}`,
			memory.ExtractPlan{Entities: []memory.EntityPage{{Name: "Neovim", Kind: "tool", State: map[string]string{"version": "0.10", "port": "-8080", "default": "true", "plugins": "lsp, telescope", "cfg": `{"a":1}`}}}}},
		{"one name in two Unicode forms is one entity", `{"entities":[{"name":"Zoe\u0308","kind":"person","state":{"city":"Paris"}},{"name":"Zo\u00eb","state":{"employer":"Acme"}}]}`,
			memory.ExtractPlan{Entities: []memory.EntityPage{{Name: "Zo\u00eb", Kind: "person", State: map[string]string{"city": "Paris", "employer": "Acme"}}}}},
		{"same entity twice merges", `{"entities":[{"name":"Dana","kind":"","state":{"role":"QA"},"summary":""},{"name":"dana","kind":"person","state":[{"key":"role","value":"QA lead"},{"key":"team","value":"Atlas"}],"summary":"A colleague."}]}`,
			memory.ExtractPlan{Entities: []memory.EntityPage{{Name: "Dana", Kind: "person", State: map[string]string{"role": "QA lead", "team": "Atlas"}, Summary: "A colleague."}}}},
		{"unknown labels and kinds", `{"facts":[{"text":"a","label":"trivia"},{"text":"b","label":"User Preference"},{"text":"c","label":"negative-knowledge"},{"text":"d"}],
			"entities":[{"name":"Lyon","kind":"city"},{"name":"Acme","kind":"Organisation"},{"name":"X"}]}`,
			memory.ExtractPlan{
				Facts:    []memory.PlannedFact{{Text: "a", Label: "project_state"}, {Text: "b", Label: "user_preferences"}, {Text: "c", Label: "negative_knowledge"}, {Text: "d", Label: "project_state"}},
				Entities: []memory.EntityPage{{Name: "Lyon", Kind: "other"}, {Name: "Acme", Kind: "organization"}, {Name: "X", Kind: "other"}},
			}},
		{"dates", `{"facts":[{"text":"a","event_at":"2026-11-30 14:00"},{"text":"b","event_at":"2026-11-30T14:00:00+02:00"},{"text":"c","event_at":"next Friday"},
			{"text":"d","event_at":"2026-13-45"},{"text":"e","event_at":""},{"text":"f","event_at":20261130}],
			"intentions":[{"goal":"g","due_at":"tomorrow"},{"goal":"h","due_at":"2026-12-01T09:00Z"}]}`,
			memory.ExtractPlan{
				Facts: []memory.PlannedFact{{Text: "a", Label: "project_state", EventAt: time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)},
					{Text: "b", Label: "project_state", EventAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)},
					{Text: "c", Label: "project_state"}, {Text: "d", Label: "project_state"}, {Text: "e", Label: "project_state"}, {Text: "f", Label: "project_state"}},
				Intentions: []memory.PlannedIntention{{Goal: "g"}, {Goal: "h", DueAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}},
			}},
		{"empty strings and ids", `{"facts":[{"text":"  ","label":"decision"},{"text":"kept","updates":"","replaces":["", " f_1 ","[f_2]","f_1","null"]},{"text":"arr","updates":["f_9","f_8"]}],
			"intentions":[{"goal":""},{"goal":" x "}],"intentions_done":[""," i_1","i_1"],
			"entities":[{"name":" ","kind":"tool"}],"experiences":[{"task":"t","lesson":""},{"task":"","lesson":"l"}]}`,
			memory.ExtractPlan{
				Facts:          []memory.PlannedFact{{Text: "kept", Label: "project_state", Replaces: []string{"f_1", "f_2"}}, {Text: "arr", Label: "project_state", Updates: "f_9"}},
				Intentions:     []memory.PlannedIntention{{Goal: "x"}},
				IntentionsDone: []string{"i_1"},
			}},
		{"loose shapes", `{"facts":["The owner likes tea.", {"text":"The owner likes tea."}, 42],"intentions":"Call Dana","intentions_done":"i_3","entities":{"name":"Tea","kind":"concept"},"experiences":"none"}`,
			memory.ExtractPlan{
				Facts:          []memory.PlannedFact{{Text: "The owner likes tea.", Label: "project_state"}},
				Intentions:     []memory.PlannedIntention{{Goal: "Call Dana"}},
				IntentionsDone: []string{"i_3"},
				Entities:       []memory.EntityPage{{Name: "Tea", Kind: "concept"}},
			}},
		{"numbers, booleans and placeholders are no texts", `{"facts":[{"text":42},{"text":true},{"text":"null"},{"text":"N/A"},{"text":"None."},{"text":"Dana leads QA."}],
			"intentions":[{"goal":7},{"goal":"none"}],"entities":[{"name":123,"kind":"other"},{"name":"Dana","kind":"person","state":{"allergies":"none"},"summary":"null"}],
			"experiences":[{"task":"t","lesson":false}]}`,
			memory.ExtractPlan{
				Facts:    []memory.PlannedFact{{Text: "Dana leads QA.", Label: "project_state"}},
				Entities: []memory.EntityPage{{Name: "Dana", Kind: "person", State: map[string]string{"allergies": "none"}}},
			}},
		{"text caps", `{"facts":[{"text":"` + long + `"}],"experiences":[{"task":"` + long + `","lesson":"l"}]}`,
			memory.ExtractPlan{Facts: []memory.PlannedFact{{Text: clipped, Label: "project_state"}}, Experiences: []memory.PlannedExperience{{Task: clipped, Lesson: "l"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := New(newFake(answer{text: tc.reply})).Extract(context.Background(), contextRequest)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(utcPlan(got), utcPlan(tc.want)) {
				t.Errorf("plan\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestExtractListCaps(t *testing.T) {
	reply := `{"facts":` + manyOf(25, func(i int) string {
		return fmt.Sprintf(`{"text":"fact %d","replaces":%s}`, i, manyOf(15, func(j int) string { return fmt.Sprintf(`"f_%d"`, j) }))
	}) +
		`,"intentions":` + manyOf(15, func(i int) string { return fmt.Sprintf(`{"goal":"goal %d"}`, i) }) +
		`,"intentions_done":` + manyOf(30, func(i int) string { return fmt.Sprintf(`"i_%d"`, i) }) +
		`,"entities":` + manyOf(25, func(i int) string {
		return fmt.Sprintf(`{"name":"e%d","state":%s}`, i, manyOf(30, func(j int) string { return fmt.Sprintf(`{"key":"k%d","value":"v"}`, j) }))
	}) +
		`,"experiences":` + manyOf(12, func(i int) string { return fmt.Sprintf(`{"task":"t%d","lesson":"l"}`, i) }) + `}`
	p, err := New(newFake(answer{text: reply})).Extract(context.Background(), contextRequest)
	if err != nil {
		t.Fatal(err)
	}
	got := []int{len(p.Facts), len(p.Facts[0].Replaces), len(p.Intentions), len(p.IntentionsDone), len(p.Entities), len(p.Entities[0].State), len(p.Experiences)}
	want := []int{maxFacts, maxIDs, maxIntentions, maxDone, maxEntities, maxStatePairs, maxExperiences}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	if p.Facts[19].Text != "fact 19" || p.Experiences[9].Task != "t9" {
		t.Errorf("caps should keep the first items: %q, %q", p.Facts[19].Text, p.Experiences[9].Task)
	}
}

func TestParseDate(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2026-11-30", day(2026, 11, 30)},
		{"2026-11-30T14:00", time.Date(2026, 11, 30, 14, 0, 0, 0, paris)},
		{"2026-11-30T14:00:05", time.Date(2026, 11, 30, 14, 0, 5, 0, paris)},
		{"2026-11-30 14:00", time.Date(2026, 11, 30, 14, 0, 0, 0, paris)},
		{"2026-11-30T14:00:00Z", time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)},
		{"2026-11-30T14:00:00.5-05:00", time.Date(2026, 11, 30, 19, 0, 0, 5e8, time.UTC)},
		{"2026-11-30T14:00+01:00", time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC)},
		{" 2026-11-30 ", day(2026, 11, 30)},
		{"", time.Time{}}, {"null", time.Time{}}, {"tomorrow", time.Time{}}, {"30/11/2026", time.Time{}},
		{"2026-02-30", time.Time{}}, {"2026-11-30T25:00", time.Time{}}, {"2026-11", time.Time{}},
		// Outside the years 1-9999 once in UTC: no JSON could carry them.
		{"9999-12-31T23:00-05:00", time.Time{}}, {"0000-01-01T00:00+01:00", time.Time{}}, {"0000-06-01", time.Time{}},
		{"9999-12-31T20:00-01:00", time.Date(9999, 12, 31, 21, 0, 0, 0, time.UTC)},
	} {
		if got := ParseDate(tc.in, paris); !got.Equal(tc.want) || got.IsZero() != tc.want.IsZero() {
			t.Errorf("ParseDate(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := ParseDate("2026-11-30T14:00", nil); !got.Equal(time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("nil location: %v", got)
	}
}

// utcPlan makes times comparable with reflect.DeepEqual.
func utcPlan(p memory.ExtractPlan) memory.ExtractPlan {
	for i := range p.Facts {
		p.Facts[i].EventAt = p.Facts[i].EventAt.UTC()
	}
	for i := range p.Intentions {
		p.Intentions[i].DueAt = p.Intentions[i].DueAt.UTC()
	}
	return p
}
