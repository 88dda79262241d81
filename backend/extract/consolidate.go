package extract

import (
	"context"
	"fmt"
	"strings"
	"time"

	"hyatlas/backend/memory"
)

// The consolidation reply contract (ConsolidateSchema is its strict form):
//
//	merges:  [{ids: [fact ids], text}]
//	drops:   [{id, reason}]
//	schemas: [{text, evidence: [fact ids]}]
//	edges:   [{from, from_type, relation, to, to_type, exclusive, valid_from: date|null, evidence: [fact ids]}]
//	arc:     string|null
//
// edges and arc are asked for only when the graph is on. The cross-topic
// reply is {patterns: [{text, schemas: [schema ids]}]}.

// Purposes of the slow path's calls.
const (
	PurposeConsolidate = "consolidate"
	PurposeCrossSchema = "cross_schema"
)

// Caps on a consolidation reply.
const (
	maxMerges      = 25
	maxDrops       = 50
	maxSchemas     = 10
	maxEdges       = 30
	maxPatterns    = 3
	maxEvidenceIDs = 50
)

var _ memory.Consolidator = (*Extractor)(nil)

var (
	consolidateSystemGraph = mustRender("consolidate_system.tmpl", map[string]bool{"Graph": true})
	consolidateSystemPlain = mustRender("consolidate_system.tmpl", map[string]bool{"Graph": false})
	crossSystem            = mustRead("cross_system.tmpl")
	consolidateUserTmpl    = mustParse("consolidate_user.tmpl")
	crossUserTmpl          = mustParse("cross_user.tmpl")
)

// mustRender renders a fixed system prompt once, at start.
func mustRender(name string, data any) string {
	s, err := render(mustParse(name), data)
	if err != nil {
		panic(err)
	}
	return s
}

type clusterLine struct{ ID, When, Turns, Text string }

type consolidateVars struct {
	Today   string
	Facts   []clusterLine
	Schemas []line
	Graph   bool
	Arc     string
}

type consolidateReply struct {
	Merges list[struct {
		IDs  flexStrings `json:"ids"`
		Text prose       `json:"text"`
	}] `json:"merges"`
	Drops list[struct {
		ID     flexString `json:"id"`
		Reason flexString `json:"reason"`
	}] `json:"drops"`
	Schemas list[struct {
		Text     prose       `json:"text"`
		Evidence flexStrings `json:"evidence"`
	}] `json:"schemas"`
	Edges list[struct {
		From      prose       `json:"from"`
		FromType  flexString  `json:"from_type"`
		Relation  flexString  `json:"relation"`
		To        prose       `json:"to"`
		ToType    flexString  `json:"to_type"`
		Exclusive flexString  `json:"exclusive"`
		ValidFrom flexString  `json:"valid_from"`
		Evidence  flexStrings `json:"evidence"`
	}] `json:"edges"`
	Arc prose `json:"arc"`
}

// Consolidate sends one topic cluster and reads the reply into a plan. A
// cluster with no facts gives an empty plan without a call. Ids are
// passed on as the model wrote them (cleaned); the Service checks them.
func (e *Extractor) Consolidate(ctx context.Context, req memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
	if len(req.Facts) == 0 {
		return memory.ConsolidatePlan{}, nil
	}
	today := e.today(req.Today)
	v := consolidateVars{Today: dayString(today), Graph: req.Graph, Arc: oneLine(req.Arc)}
	for _, f := range req.Facts {
		when := "undated"
		if !f.EventAt.IsZero() {
			when = whenString(f.EventAt, today.Location())
		}
		turns := strings.Join(cleanIDs(f.Turns, maxEvidenceIDs), ", ")
		if turns == "" {
			turns = "none"
		}
		v.Facts = append(v.Facts, clusterLine{oneLine(f.ID), when, turns, oneLine(memory.CleanText(f.Text))})
	}
	for _, s := range req.Schemas {
		v.Schemas = append(v.Schemas, line{ID: oneLine(s.ID), Text: oneLine(s.Text)})
	}
	user, err := render(consolidateUserTmpl, v)
	if err != nil {
		return memory.ConsolidatePlan{}, err
	}
	system := consolidateSystemPlain
	if req.Graph {
		system = consolidateSystemGraph
	}
	var r consolidateReply
	if err := e.c.CompleteJSON(ctx, PurposeConsolidate, system, user, ConsolidateSchema(req.Graph), &r); err != nil {
		return memory.ConsolidatePlan{}, fmt.Errorf("extract: consolidate: %w", err)
	}
	return r.plan(today.Location(), req.Graph), nil
}

// plan reads the reply within the caps; with graph off, edges and the arc
// are ignored even if the model sent them.
func (r consolidateReply) plan(loc *time.Location, graph bool) memory.ConsolidatePlan {
	var p memory.ConsolidatePlan
	for _, m := range r.Merges[:min(len(r.Merges), maxMerges)] {
		p.Merges = append(p.Merges, memory.PlannedMerge{IDs: cleanIDs(m.IDs, maxEvidenceIDs), Text: clipText(string(m.Text))})
	}
	for _, d := range r.Drops[:min(len(r.Drops), maxDrops)] {
		p.Drops = append(p.Drops, memory.PlannedDrop{ID: strings.TrimSpace(string(d.ID)), Reason: clip(string(d.Reason))})
	}
	for _, s := range r.Schemas[:min(len(r.Schemas), maxSchemas)] {
		p.Schemas = append(p.Schemas, memory.PlannedSchema{Text: clipText(string(s.Text)), Evidence: cleanIDs(s.Evidence, maxEvidenceIDs)})
	}
	if !graph {
		return p
	}
	for _, e := range r.Edges[:min(len(r.Edges), maxEdges)] {
		p.Edges = append(p.Edges, memory.PlannedEdge{
			From: nameOf(string(e.From)), To: nameOf(string(e.To)),
			FromType: normKind(string(e.FromType)), ToType: normKind(string(e.ToType)),
			Relation: clip(string(e.Relation)), Exclusive: strings.EqualFold(strings.TrimSpace(string(e.Exclusive)), "true"),
			ValidFrom: ParseDate(string(e.ValidFrom), loc), Evidence: cleanIDs(e.Evidence, maxEvidenceIDs),
		})
	}
	p.Arc = clipText(string(r.Arc))
	return p
}

type crossReply struct {
	Patterns list[struct {
		Text    prose       `json:"text"`
		Schemas flexStrings `json:"schemas"`
	}] `json:"patterns"`
}

// CrossSchemas sends an owner's schemas and reads up to three patterns
// that span them. No schemas, no call.
func (e *Extractor) CrossSchemas(ctx context.Context, req memory.CrossSchemaRequest) ([]memory.PlannedSchema, error) {
	if len(req.Schemas) == 0 {
		return nil, nil
	}
	v := consolidateVars{Today: dayString(e.today(req.Today))}
	for _, s := range req.Schemas {
		v.Schemas = append(v.Schemas, line{ID: oneLine(s.ID), Text: oneLine(s.Text)})
	}
	user, err := render(crossUserTmpl, v)
	if err != nil {
		return nil, err
	}
	var r crossReply
	if err := e.c.CompleteJSON(ctx, PurposeCrossSchema, crossSystem, user, CrossSchema(), &r); err != nil {
		return nil, fmt.Errorf("extract: cross-topic schemas: %w", err)
	}
	var out []memory.PlannedSchema
	for _, p := range r.Patterns[:min(len(r.Patterns), maxPatterns)] {
		out = append(out, memory.PlannedSchema{Text: clipText(string(p.Text)), Evidence: cleanIDs(p.Schemas, maxEvidenceIDs)})
	}
	return out, nil
}
