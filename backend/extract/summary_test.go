package extract

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

func TestSummarize(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		req     memory.SummaryRequest
		a       answer
		want    string
		wantErr error
		purpose string
	}{
		{"episode", episodeRequest, answer{text: "Fixed the nightly backup by moving it to /srv/backups. Rotation is still open."},
			"Fixed the nightly backup by moving it to /srv/backups. Rotation is still open.", nil, PurposeEpisode},
		{"now with think and fence", nowRequest, answer{text: "<think>hmm</think>\n```\nAtlas launch on 2026-12-04.\n```"}, "Atlas launch on 2026-12-04.", nil, PurposeNow},
		{"empty reply", nowRequest, answer{text: " \n "}, "", memory.ErrUnparseable, PurposeNow},
		// An endpoint answering every call with an extraction plan must not become the Now page.
		{"a JSON reply", nowRequest, answer{text: `{"facts": [{"text": "The user likes green tea"}], "intentions": []}`}, "", memory.ErrUnparseable, PurposeNow},
		{"a fenced JSON reply", episodeRequest, answer{text: "```json\n[\"a\", \"b\"]\n```"}, "", memory.ErrUnparseable, PurposeEpisode},
		{"prose with braces", nowRequest, answer{text: "Working on {Atlas}: launch Friday."}, "Working on {Atlas}: launch Friday.", nil, PurposeNow},
		{"only reasoning", episodeRequest, answer{text: "<think>I should"}, "", memory.ErrUnparseable, PurposeEpisode},
		{"provider error", episodeRequest, answer{err: fmt.Errorf("429: %w", memory.ErrProvider)}, "", memory.ErrProvider, PurposeEpisode},
		{"unparseable from the completer", nowRequest, answer{err: fmt.Errorf("x: %w", memory.ErrUnparseable)}, "", memory.ErrUnparseable, PurposeNow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(tc.a)
			got, err := New(f).Summarize(ctx, tc.req)
			if got != tc.want || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("got %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
			c := f.only(t)
			if c.json || c.purpose != tc.purpose || !strings.Contains(c.user, "Today is 2026-11-28 (Saturday).") {
				t.Errorf("call: json %v, purpose %q, user:\n%s", c.json, c.purpose, c.user)
			}
			for i, text := range tc.req.Texts {
				if !strings.Contains(c.user, fmt.Sprintf("[%d] %s", i+1, text)) {
					t.Errorf("text %d not in the prompt", i+1)
				}
			}
		})
	}
}

func TestSummarizeLimits(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	e := New(f)
	if _, err := e.Summarize(ctx, memory.SummaryRequest{Kind: "weekly", Texts: []string{"x"}}); err == nil {
		t.Error("unknown kind: no error")
	}
	if _, err := e.Summarize(ctx, memory.SummaryRequest{Kind: memory.SummaryNow, Texts: []string{" ", "<memory-context>x</memory-context>"}}); !errors.Is(err, ErrNothingToSummarize) {
		t.Errorf("no texts: %v", err)
	}
	if f.count() != 0 {
		t.Fatalf("calls = %d, want none", f.count())
	}
	var texts []string
	for i := 1; i <= 35; i++ {
		texts = append(texts, fmt.Sprintf("note %d", i))
	}
	texts[34] = strings.Repeat("y", 5000)
	if _, err := e.Summarize(ctx, memory.SummaryRequest{Kind: memory.SummaryNow, Today: saturday, Texts: texts}); err != nil {
		t.Fatal(err)
	}
	u := f.only(t).user
	if !strings.Contains(u, "(5 earlier texts left out.)") || strings.Contains(u, "] note 5\n") || !strings.Contains(u, "[6] note 6\n") ||
		!strings.Contains(u, "[35] "+strings.Repeat("y", maxSummaryTextBytes)+" […]") {
		t.Errorf("limits not applied:\n%.300s", u)
	}
}

func TestReconcile(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		a       answer
		want    []memory.ReconcileDecision
		wantErr error
	}{
		{"happy", answer{text: `{"decisions":[{"new_id":"f_new1","old_id":"f_1a2b","action":"SUPERSEDE"},{"new_id":"f_new2","old_id":"f_5e6f","action":"UPDATE"}]}`},
			[]memory.ReconcileDecision{{NewID: "f_new1", OldID: "f_1a2b", Action: memory.ReconcileSupersede}, {NewID: "f_new2", OldID: "f_5e6f", Action: memory.ReconcileUpdate}}, nil},
		{"junk", answer{text: `{"decisions":[{"new_id":"f_new1","old_id":"f_5e6f","action":"UPDATE"},{"new_id":"f_x","old_id":"f_1a2b","action":"LINK"},
			{"new_id":" f_new2 ","old_id":"f_5e6f","action":"link"},{"new_id":"f_new2","old_id":"f_5e6f","action":"SUPERSEDE"},{"new_id":"f_new1","old_id":"f_1a2b","action":"MERGE"}, "nonsense"]}`},
			[]memory.ReconcileDecision{{NewID: "f_new2", OldID: "f_5e6f", Action: memory.ReconcileLink}, {NewID: "f_new1", OldID: "f_1a2b", Action: memory.ReconcileNone}}, nil},
		{"nothing decided", answer{text: `{"decisions":null}`}, nil, nil},
		{"provider", answer{err: fmt.Errorf("timeout: %w", memory.ErrProvider)}, nil, memory.ErrProvider},
		{"prose", answer{text: "Both are the same fact."}, nil, memory.ErrUnparseable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(tc.a)
			got, err := New(f).Reconcile(ctx, reconcilePairs)
			if !reflect.DeepEqual(got, tc.want) || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("got %+v, %v; want %+v, %v", got, err, tc.want, tc.wantErr)
			}
			c := f.only(t)
			if !c.json || c.purpose != PurposeReconcile || !reflect.DeepEqual(c.schema, ReconcileSchema()) {
				t.Errorf("call: json %v, purpose %q", c.json, c.purpose)
			}
			for _, p := range reconcilePairs {
				if !strings.Contains(c.user, "new "+p.NewID+": "+p.NewText) || !strings.Contains(c.user, "old "+p.OldID+": "+p.OldText) {
					t.Errorf("pair %s/%s not in the prompt", p.NewID, p.OldID)
				}
			}
		})
	}
	f := newFake()
	if got, err := New(f).Reconcile(ctx, nil); got != nil || err != nil || f.count() != 0 {
		t.Errorf("no pairs: %v, %v, %d calls", got, err, f.count())
	}
}
