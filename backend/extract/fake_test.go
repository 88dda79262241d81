package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// call is what the fake Completer was asked.
type call struct {
	json                  bool
	purpose, system, user string
	schema                map[string]any
}

// answer is one scripted reply.
type answer struct {
	text string
	err  error
}

// fake is a Completer that records calls and answers from a script; an
// empty script answers "{}" (CompleteJSON) or "ok" (Complete). Like the
// real adapter, it reports a reply that is not JSON as ErrUnparseable.
type fake struct {
	mu      sync.Mutex
	calls   []call
	answers []answer
}

func newFake(answers ...answer) *fake { return &fake{answers: answers} }

func (f *fake) next(c call, def string) answer {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
	if len(f.answers) == 0 {
		return answer{text: def}
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a
}

func (f *fake) CompleteJSON(_ context.Context, purpose, system, user string, schema map[string]any, out any) error {
	a := f.next(call{true, purpose, system, user, schema}, "{}")
	if a.err != nil {
		return a.err
	}
	if err := json.Unmarshal([]byte(a.text), out); err != nil {
		return fmt.Errorf("fake: %v: %w", err, memory.ErrUnparseable)
	}
	return nil
}

func (f *fake) Complete(_ context.Context, purpose, system, user string) (string, error) {
	a := f.next(call{false, purpose, system, user, nil}, "ok")
	return a.text, a.err
}

func (f *fake) only(t *testing.T) call {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) != 1 {
		t.Fatalf("calls = %d, want 1", len(f.calls))
	}
	return f.calls[0]
}

func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// Fixtures shared by the tests and the golden files.
var (
	saturday = time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)

	contextRequest = memory.ExtractRequest{
		Text:  "Moved the Atlas launch to next Friday; Dana will run the QA pass.\nAlso I now use Neovim instead of VS Code.",
		Today: saturday,
		Owner: memory.Owner{UserID: "u1"},
		RelatedFacts: []memory.RelatedFact{
			{ID: "f_1a2b", Text: "Atlas launches on 2026-12-01.", EventAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
			{ID: "f_3c4d", Text: "The owner edits code in VS Code."},
			{ID: "f_5e6f", Text: "Standup moved to 10:00.", EventAt: time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)},
		},
		OpenIntentions: []memory.RelatedIntention{
			{ID: "i_77", Goal: "Ship Atlas 1.0", DueAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
			{ID: "i_78", Goal: "Find a QA owner for Atlas"},
		},
		Entities: []memory.EntityPage{
			{ID: "e_1", Name: "Atlas", Kind: "project", State: map[string]string{"status": "beta", "launch": "2026-12-01"}},
			{ID: "e_2", Name: "Dana", Kind: "person"},
		},
	}
	emptyRequest = memory.ExtractRequest{Text: "thanks, that's all for today!", Today: saturday, Owner: memory.Owner{UserID: "u1"}}

	episodeRequest = memory.SummaryRequest{Kind: memory.SummaryEpisode, Today: saturday, Owner: memory.Owner{UserID: "u1"}, Texts: []string{
		"user: the nightly backup fails with EACCES on /var/backups\nassistant: the service runs as hyatlas, which cannot write there.",
		"user: ok, I changed the unit to use /srv/backups and it ran.",
		"user: still need to rotate old archives, later.",
	}}
	nowRequest = memory.SummaryRequest{Kind: memory.SummaryNow, Today: saturday, Owner: memory.Owner{UserID: "u1"}, Texts: []string{
		"Atlas launch moved to 2026-12-04; Dana runs QA.",
		"Open: rotate old backup archives.",
		"The owner prefers short answers.",
	}}
	reconcilePairs = []memory.ReconcilePair{
		{NewID: "f_new1", NewText: "Atlas launches on 2026-12-04.", OldID: "f_1a2b", OldText: "Atlas launches on 2026-12-01."},
		{NewID: "f_new2", NewText: "Weekly standup happened on 2026-11-27.", OldID: "f_5e6f", OldText: "Weekly standup happened on 2026-11-20."},
	}
)
