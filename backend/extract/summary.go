package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"hyatlas/backend/memory"
)

// Bounds of what one summary call sends.
const (
	maxSummaryTexts     = 30   // the latest texts are kept
	maxSummaryTextBytes = 2000 // per text, longer ones are cut and marked
	maxSummaryRunes     = 2000 // of the reply
)

// ErrNothingToSummarize is returned, without a model call, for a summary
// request with no text in it.
var ErrNothingToSummarize = errors.New("extract: nothing to summarise")

type numbered struct {
	N    int
	Text string
}

type summaryVars struct {
	Today   string
	Omitted int
	Texts   []numbered
}

// Summarize writes an episode summary (2–4 sentences) or a Now page (under
// 120 words) about req.Texts, oldest first.
func (e *Extractor) Summarize(ctx context.Context, req memory.SummaryRequest) (string, error) {
	var system, purpose string
	switch req.Kind {
	case memory.SummaryEpisode:
		system, purpose = episodeSystem, PurposeEpisode
	case memory.SummaryNow:
		system, purpose = nowSystem, PurposeNow
	default:
		return "", fmt.Errorf("extract: unknown summary kind %q", req.Kind)
	}
	var texts []string
	for _, t := range req.Texts {
		t = memory.CleanText(t)
		if len(t) > maxSummaryTextBytes {
			t = memory.CutText(t, maxSummaryTextBytes) + " […]"
		}
		if t != "" {
			texts = append(texts, t)
		}
	}
	if len(texts) == 0 {
		return "", ErrNothingToSummarize
	}
	v := summaryVars{Today: dayString(e.today(req.Today))}
	if len(texts) > maxSummaryTexts {
		v.Omitted = len(texts) - maxSummaryTexts
		texts = texts[v.Omitted:]
	}
	for i, t := range texts {
		v.Texts = append(v.Texts, numbered{v.Omitted + i + 1, t})
	}
	user, err := render(summaryUserTmpl, v)
	if err != nil {
		return "", err
	}
	out, err := e.c.Complete(ctx, purpose, system, user)
	if err != nil {
		return "", fmt.Errorf("extract: %s: %w", purpose, err)
	}
	out = clip(truncRunes(cleanReply(out), maxSummaryRunes))
	switch {
	case out == "":
		return "", fmt.Errorf("extract: %s: empty reply: %w", purpose, memory.ErrUnparseable)
	case isJSONValue(out):
		// A summary is prose; a JSON reply is a model (or endpoint) answering
		// another question, and stored it would be recalled on every query.
		return "", fmt.Errorf("extract: %s: the reply is JSON, not a summary: %w", purpose, memory.ErrUnparseable)
	}
	return out, nil
}

// isJSONValue reports whether s (a cleaned reply: no code fence) is one
// JSON object or array.
func isJSONValue(s string) bool {
	s = strings.TrimSpace(s)
	return (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && json.Valid([]byte(s))
}

type reconcileReply struct {
	Decisions list[struct {
		NewID  flexString `json:"new_id"`
		OldID  flexString `json:"old_id"`
		Action flexString `json:"action"`
	}] `json:"decisions"`
}

// Reconcile asks for one judgement per pair in a single call. Only
// decisions on pairs that were asked are kept (the first for each); an
// unknown action is NONE. No pairs, no call.
func (e *Extractor) Reconcile(ctx context.Context, pairs []memory.ReconcilePair) ([]memory.ReconcileDecision, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	asked := map[[2]string]bool{}
	shown := make([]memory.ReconcilePair, len(pairs))
	for i, p := range pairs {
		asked[[2]string{p.NewID, p.OldID}] = true
		shown[i] = memory.ReconcilePair{NewID: oneLine(p.NewID), NewText: oneLine(p.NewText), OldID: oneLine(p.OldID), OldText: oneLine(p.OldText)}
	}
	user, err := render(reconcileUserTmpl, shown)
	if err != nil {
		return nil, err
	}
	var r reconcileReply
	if err := e.c.CompleteJSON(ctx, PurposeReconcile, reconcileSystem, user, ReconcileSchema(), &r); err != nil {
		return nil, fmt.Errorf("extract: reconcile: %w", err)
	}
	var out []memory.ReconcileDecision
	for _, d := range r.Decisions {
		newID, oldID := strings.TrimSpace(string(d.NewID)), strings.TrimSpace(string(d.OldID))
		key := [2]string{newID, oldID}
		if !asked[key] {
			continue
		}
		delete(asked, key)
		out = append(out, memory.ReconcileDecision{NewID: newID, OldID: oldID, Action: normAction(string(d.Action))})
	}
	return out, nil
}

func normAction(s string) memory.ReconcileAction {
	switch a := memory.ReconcileAction(strings.ToUpper(strings.TrimSpace(s))); a {
	case memory.ReconcileUpdate, memory.ReconcileSupersede, memory.ReconcileLink:
		return a
	}
	return memory.ReconcileNone
}
