package memory

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Extractor distils writes with an LLM. The extract package implements it
// over any OpenAI-compatible endpoint; the Service decides what to keep.
type Extractor interface {
	// Extract reads one write and proposes facts, intentions, entity pages
	// and experiences (the reply contract in the README).
	Extract(ctx context.Context, req ExtractRequest) (ExtractPlan, error)
	// Summarize writes a short text about texts: an episode's summary or
	// an owner's Now page (Kind says which).
	Summarize(ctx context.Context, req SummaryRequest) (string, error)
	// Reconcile judges each new fact against a similar stored one.
	Reconcile(ctx context.Context, pairs []ReconcilePair) ([]ReconcileDecision, error)
}

// Errors an Extractor returns, by kind (wrap them with %w).
var (
	// ErrProvider: the endpoint could not be used (network, 5xx after
	// retries, rate limit, timeout, no key). The work stays queued and a
	// catch-up run stops at the first such error.
	ErrProvider = errors.New("the extraction endpoint is unavailable")
	// ErrEndpointDown is an ErrProvider that says nothing about the
	// request: no connection, the key, the account, a rate limit. Any
	// request would have failed; a catch-up run never charges a row for it.
	ErrEndpointDown = fmt.Errorf("%w (for any request)", ErrProvider)
	// ErrUnparseable: the model answered, twice, with something that is not
	// the reply contract. It counts a try on the row.
	ErrUnparseable = errors.New("the model's reply could not be read")
	// ErrRejected: the endpoint refused this request (too long, filtered,
	// malformed for it). Like ErrUnparseable it counts a try on the row.
	ErrRejected = errors.New("the extraction endpoint refused the request")
	// ErrStaleExtraction: the raw row was deleted, retired or extracted
	// while its extraction ran; the plan is thrown away.
	ErrStaleExtraction = errors.New("the write changed while it was being extracted")
	// ErrStoreReplaced: a snapshot was restored after the work read what it
	// works on, so its result belongs to data that is no longer there.
	// Nothing was written; the work runs again on the restored data.
	ErrStoreReplaced = errors.New("a snapshot was restored while this work ran; nothing was written")
)

// ExtractRequest is what one extraction call is shown.
type ExtractRequest struct {
	Text           string // the write's text, recall blocks removed, at most MaxExtractBytes
	Today          time.Time
	Owner          Owner
	RelatedFacts   []RelatedFact
	OpenIntentions []RelatedIntention
	Entities       []EntityPage
}

// MaxExtractBytes bounds the text one extraction call sends.
const MaxExtractBytes = 16000

// RelatedFact is a stored fact offered to the model with its id, so it
// can say which one a new fact replaces or updates.
type RelatedFact struct {
	ID      string
	Text    string
	EventAt time.Time
}

// RelatedIntention is an open intention offered with its id.
type RelatedIntention struct {
	ID    string
	Goal  string
	DueAt time.Time
}

// EntityPage is one thing that matters: its current state and history.
type EntityPage struct {
	ID      string            `json:"-"`
	Name    string            `json:"name"`
	Kind    string            `json:"kind"`
	State   map[string]string `json:"state"`
	Summary string            `json:"summary"`
	History []EntityChange    `json:"history,omitempty"`
	// userText and userCategory are the page's text and category when a
	// person edited it (its text is no longer what its record renders):
	// a model's news is added below their words, never over them.
	userText, userCategory string
}

// EntityChange is a value an entity page held until At.
type EntityChange struct {
	At    time.Time `json:"at"`
	Key   string    `json:"key"`
	Value string    `json:"value"`
}

// ExtractPlan is the model's proposal for one write; the Service checks
// every id in it against the ones it offered.
type ExtractPlan struct {
	Facts          []PlannedFact
	Intentions     []PlannedIntention
	IntentionsDone []string
	Entities       []EntityPage
	Experiences    []PlannedExperience
}

// Fact labels of the reply contract.
const (
	LabelUserPreferences   = "user_preferences"
	LabelProjectState      = "project_state"
	LabelTechnicalLesson   = "technical_lesson"
	LabelDecision          = "decision"
	LabelNegativeKnowledge = "negative_knowledge"
)

// PlannedFact is a proposed L3 fact.
type PlannedFact struct {
	Text     string
	Label    string
	EventAt  time.Time // zero: undated
	Replaces []string  // ids of offered facts whose value changed
	Updates  string    // id of an offered fact this one adds detail to or repeats
}

// PlannedIntention is a proposed L7 goal.
type PlannedIntention struct {
	Goal  string
	DueAt time.Time
}

// PlannedExperience is a reusable task lesson.
type PlannedExperience struct {
	Task   string
	Lesson string
}

// SummaryKind says what a summary is for.
type SummaryKind string

// Summary kinds.
const (
	SummaryEpisode SummaryKind = "episode" // one stretch of work, once it ended
	SummaryNow     SummaryKind = "now"     // the owner's current focus and open loops
)

// SummaryRequest is the texts to summarise.
type SummaryRequest struct {
	Kind  SummaryKind
	Today time.Time
	Owner Owner
	Texts []string
}

// ReconcilePair is a new fact and a similar stored one.
type ReconcilePair struct {
	NewID, NewText string
	OldID, OldText string
}

// ReconcileAction is the judgement on a pair.
type ReconcileAction string

// Reconcile actions.
const (
	ReconcileUpdate    ReconcileAction = "UPDATE"    // the same fact or event: fold into one, counting repeats
	ReconcileSupersede ReconcileAction = "SUPERSEDE" // the old one is no longer true
	ReconcileLink      ReconcileAction = "LINK"      // related: keep both, record the link
	ReconcileNone      ReconcileAction = "NONE"
)

// ReconcileDecision answers one pair.
type ReconcileDecision struct {
	NewID, OldID string
	Action       ReconcileAction
}
