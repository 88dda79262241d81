package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// crossTopic runs an owner's cross-topic pass when it is due: at most
// once per CrossEvery, and only for an owner with at least crossMinSchemas
// live schemas from at least crossMinTopics clusters. One call is shown
// the newest maxCrossSchemas schemas and proposes up to maxCrossPatterns
// patterns; each that cites at least two of the schemas shown, and does
// not repeat a live schema, is written as an L6 schema marked cross_topic
// with the facts behind the schemas it generalises as its evidence.
// Existing schemas are never changed. The time of the call is kept with
// the owner's clusters, so a restart does not repeat it, and it is kept
// whenever the request went out, failed or not (anything but
// ErrEndpointDown): a failed call waits CrossEvery like a successful one.
func (s *Service) crossTopic(ctx context.Context, o ownerFacts, own *ownerState, rep *ConsolidationReport) {
	every := s.cfg.Consolidate.CrossEvery
	if every <= 0 || own == nil {
		return
	}
	now := s.now().UTC()
	own.mu.Lock()
	last := own.st.CrossAt
	own.mu.Unlock()
	if !last.IsZero() && now.Sub(last) < every {
		return
	}
	schemas, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerSchema}, Scope: o.scope, Limit: maxCrossSchemas})
	if err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("owner %s: cross-topic: read schemas: %v", o.key, err))
		return
	}
	topics := map[string]bool{}
	byID := map[string]Memory{}
	req := CrossSchemaRequest{Today: s.now().In(s.cfg.Extraction.Location)}
	for _, m := range schemas {
		if m.Metadata[MetaCross] != "true" {
			topics[m.Metadata[MetaTopic]] = true
		}
		byID[m.ID] = m
		req.Schemas = append(req.Schemas, ShownSchema{ID: m.ID, Text: truncateText(m.Content, crossSchemaText)})
	}
	if len(schemas) < crossMinSchemas || len(topics) < crossMinTopics {
		return
	}
	patterns, err := s.consolidator.CrossSchemas(ctx, req)
	if !errors.Is(err, ErrEndpointDown) {
		s.saveCrossAt(ctx, o, own, now, rep)
	}
	if err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("owner %s: cross-topic: %v", o.key, err))
		return
	}
	p := &promotion{s: s, gen: own.gen, raw: Memory{ID: "cross-topic", Owner: schemas[0].Owner}, now: now, scope: o.scope,
		retired: map[string]bool{}}
	for _, pat := range patterns[:min(len(patterns), maxCrossPatterns)] {
		var cited, facts []string
		for _, id := range pat.Evidence {
			if m, ok := byID[id]; ok && !slices.Contains(cited, id) {
				cited = append(cited, id)
				facts = union(facts, m.SourceIDs)
			}
		}
		text := CutText(CleanText(pat.Text), maxConsolidatedBytes)
		if len(cited) < 2 || text == "" {
			continue
		}
		m := p.newRow(LayerSchema, text, categoryPattern, time.Time{})
		m.Source, m.SourceIDs = sourceConsol, facts
		m.Metadata = map[string]string{MetaCross: "true", MetaTopic: "cross", "schemas": strings.Join(cited, ",")}
	}
	n, err := s.commitNovel(ctx, p, LayerSchema, SchemaDuplicate)
	rep.CrossSchemas += n
	if err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("owner %s: cross-topic: write: %v", o.key, err))
	}
}

// saveCrossAt keeps with the owner's clusters when their cross-topic call
// went out, unless a restore replaced the store since the pass read them
// (the restored clusters stand).
func (s *Service) saveCrossAt(ctx context.Context, o ownerFacts, own *ownerState, at time.Time, rep *ConsolidationReport) {
	own.mu.Lock()
	defer own.mu.Unlock()
	own.st.CrossAt = at
	if err := s.writeGen(own.gen, func() error { return s.cstore.SaveClusters(ctx, own.key, own.st) }); err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("owner %s: cross-topic: save: %v", o.key, err))
	}
}

// pruneMax bounds the raw rows one pass deletes.
const pruneMax = 10000

// pruneRaw deletes, when raw retention is on, raw rows older than the
// retention that nothing live cites: no held relation, no live L1/L3 row
// extracted from it, and not waiting for extraction.
func (s *Service) pruneRaw(ctx context.Context, now time.Time, rep *ConsolidationReport) error {
	keep := s.cfg.Consolidate.RawRetention
	if keep <= 0 {
		return nil
	}
	ids, protected, err := s.cstore.UncitedRaw(ctx, now.Add(-keep), pruneMax)
	if err != nil {
		return err
	}
	rep.ProtectedRaw = protected
	if len(ids) == 0 {
		return nil
	}
	n, err := s.deleteWhere(ctx, DeleteFilter{IDs: ids, At: now})
	rep.PrunedRaw = n
	return err
}
