// Package extract implements memory.Extractor over a language model: the
// per-write extraction call, episode and Now summaries, and the optional
// reconcile call. It owns its prompts (prompts/*.tmpl, embedded), the JSON
// schemas it asks for, and a tolerant reading of what comes back. It talks to
// the model through Completer; the engine adapts the llm client to it.
//
// The extraction reply contract (the schema is its strict form):
//
//	facts:           [{text, label: user_preferences|project_state|technical_lesson|decision|negative_knowledge,
//	                   event_at: date|datetime|null, replaces: [fact ids], updates: fact id|null}]
//	intentions:      [{goal, due_at: date|datetime|null}]
//	intentions_done: [intention ids]
//	entities:        [{name, kind: person|project|tool|place|organization|concept|other, state: {key: value}, summary}]
//	experiences:     [{task, lesson}]
//
// In the schema, state is an array of {key, value} pairs (strict structured
// outputs cannot express an open map); a plain object is accepted too. Dates
// are YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][zone]; a date alone is that day at
// 00:00 UTC, a time without a zone is read in the zone of Today.
package extract

import (
	"context"
	"fmt"
	"time"

	"hyatlas/backend/memory"
)

// Completer is the LLM as extraction needs it (the engine adapts the llm
// client to it). Errors should wrap memory.ErrProvider or
// memory.ErrUnparseable; Extractor returns them wrapped, never replaced.
type Completer interface {
	// CompleteJSON asks for a reply matching schema and decodes it into out.
	CompleteJSON(ctx context.Context, purpose, system, user string, schema map[string]any, out any) error
	// Complete asks for a plain-text reply.
	Complete(ctx context.Context, purpose, system, user string) (string, error)
}

// Purposes passed to the Completer (for logs, limits and model routing).
const (
	PurposeExtract   = "extract"
	PurposeEpisode   = "episode"
	PurposeNow       = "now"
	PurposeReconcile = "reconcile"
)

// Caps applied to a reply: the model is never trusted with sizes.
const (
	maxFacts       = 20
	maxIntentions  = 10
	maxDone        = 20
	maxEntities    = 20
	maxExperiences = 10
	maxIDs         = 10   // replaces per fact
	maxStatePairs  = 20   // state pairs per entity
	maxTextRunes   = 1000 // any one text of a reply
)

// Extractor implements memory.Extractor.
type Extractor struct {
	c   Completer
	now func() time.Time // used only when a request carries no Today
}

var _ memory.Extractor = (*Extractor)(nil)

// New returns an Extractor that calls c.
func New(c Completer) *Extractor { return &Extractor{c: c, now: time.Now} }

// Extract sends one write (cleaned with CleanText) with its context and
// reads the reply into a plan. A text that is empty once cleaned gives an
// empty plan without a call.
func (e *Extractor) Extract(ctx context.Context, req memory.ExtractRequest) (memory.ExtractPlan, error) {
	req.Text = memory.CleanText(req.Text)
	if req.Text == "" {
		return memory.ExtractPlan{}, nil
	}
	today := e.today(req.Today)
	user, err := render(extractUserTmpl, extractData(req, today))
	if err != nil {
		return memory.ExtractPlan{}, err
	}
	var r reply
	if err := e.c.CompleteJSON(ctx, PurposeExtract, extractSystem, user, ExtractSchema(), &r); err != nil {
		return memory.ExtractPlan{}, fmt.Errorf("extract: %w", err)
	}
	return r.plan(today.Location()), nil
}

func (e *Extractor) today(t time.Time) time.Time {
	if t.IsZero() {
		return e.now()
	}
	return t
}
