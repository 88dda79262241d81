package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// clusterJob is one due cluster and what its call is shown.
type clusterJob struct {
	owner    string // the owner key (its alias group, and agent)
	gen      uint64 // the store generation its facts were read in
	scope    Scope  // exactly the owner's rows (see factsByOwner)
	person   Scope  // the person's rows of every agent: their graph
	cluster  Cluster
	rowOwner Owner             // owner of the rows the call writes: its newest fact's
	facts    map[string]Memory // its live facts when the pass began
	order    []string          // fact ids as shown, oldest first
	// retired holds the facts the plan's merges and drops retired, mergedInto
	// the merged fact (in merged) each merged one became: a relation rests
	// on live facts only (see liveEvidenceOf).
	retired    map[string]bool
	mergedInto map[string]string
	merged     map[string]Memory
	// gone holds the facts retired, edited or deleted by someone else
	// while the call ran (read again before relations are learnt).
	gone map[string]bool
}

// clusterOutcome is what applying one cluster's plan did.
type clusterOutcome struct {
	merged, dropped, schemas, edges, arc int
	refused                              int      // parts of the reply that failed a guard
	joined                               []string // new merged facts: members from now on
	errs                                 []string // writes that failed (reported, not retried)
}

// Bounds of what consolidation writes.
const (
	maxReasonBytes       = 600
	maxConsolidatedBytes = 2000
)

// applyPlan checks a cluster's plan and writes what passes. Merges and
// drops commit together, under the owner's extraction lock, against the
// facts as they are now; if that fails the cluster is retried next pass.
// Schemas, relations and the arc follow; a failure among them is
// reported in the outcome and not retried, except ErrStoreReplaced (a
// snapshot restored since the pass read the facts), which stops the
// cluster with nothing more written and leaves it for the next pass.
func (s *Service) applyPlan(ctx context.Context, job *clusterJob, plan ConsolidatePlan) (clusterOutcome, error) {
	var out clusterOutcome
	now := s.now().UTC()
	if err := s.reconcileCluster(ctx, job, plan, now, &out); err != nil {
		return out, err
	}
	// note reports a failed step and goes on, except after a restore:
	// every later write would be refused too, and the cluster runs again.
	note := func(what string, err error) error {
		if errors.Is(err, ErrStoreReplaced) {
			return err
		}
		if err != nil {
			out.errs = append(out.errs, fmt.Sprintf("cluster %s: %s: %v", job.cluster.ID, what, err))
		}
		return nil
	}
	if err := note("schemas", s.writeSchemas(ctx, job, plan.Schemas, now, &out)); err != nil {
		return out, err
	}
	if s.cfg.Consolidate.Graph {
		for i := range plan.Edges {
			if !ValidTime(plan.Edges[i].ValidFrom) {
				plan.Edges[i].ValidFrom = time.Time{} // from the evidence's dates instead
			}
		}
		if err := note("relations", s.writeEdges(ctx, job, plan.Edges, now, &out)); err != nil {
			return out, err
		}
		if err := note("arc", s.writeArc(ctx, job, plan.Arc, now, &out)); err != nil {
			return out, err
		}
	}
	return out, nil
}

// reconcileCluster applies the merges and drops that pass their guards: a
// merge needs at least two distinct live facts of this cluster, a text,
// and every pair of its facts at least MergeSimilarity similar; a drop
// needs a live fact of this cluster and a reason. Ids the cluster does not
// hold are ignored, and no fact is used twice. A fact whose text changed
// while the model was thinking (edited by hand, or a snapshot restored)
// is left alone: the model judged a text that is no longer there.
func (s *Service) reconcileCluster(ctx context.Context, job *clusterJob, plan ConsolidatePlan, now time.Time, out *clusterOutcome) error {
	unlock, err := s.lockOwner(ctx, job.rowOwner)
	if err != nil {
		return err
	}
	defer unlock()
	current, err := s.store.GetMany(ctx, job.order)
	if err != nil {
		return fmt.Errorf("read cluster %s: %w", job.cluster.ID, err)
	}
	p := &promotion{s: s, gen: job.gen, raw: Memory{ID: "cluster " + job.cluster.ID, Owner: job.rowOwner}, now: now,
		scope: job.scope, retired: map[string]bool{}, keepRestored: true}
	// A fact the model may merge or drop: one it was shown, unchanged since,
	// neither written by the user by hand nor ever restored by them (the
	// model never retires what a person chose to keep).
	eligible := func(id string) (Memory, bool) {
		m, ok := current[strings.TrimSpace(id)]
		was, shown := job.facts[m.ID]
		if !ok || !shown || !m.Live() || p.retired[m.ID] || m.Content != was.Content || m.Source == sourceManual {
			return m, false
		}
		restored, err := s.everRestored(ctx, m.ID)
		return m, err == nil && !restored
	}
	for _, mg := range plan.Merges {
		var facts []Memory
		for _, id := range mg.IDs {
			if m, ok := eligible(id); ok && !slices.ContainsFunc(facts, func(f Memory) bool { return f.ID == m.ID }) {
				facts = append(facts, m)
			}
		}
		text := CutText(CleanText(mg.Text), maxConsolidatedBytes)
		if len(facts) < 2 || text == "" || !oneAgent(facts) || !s.allSimilar(facts, MergeSimilarity) || !saysTheSame(text, facts) {
			out.refused++
			continue
		}
		p.mergeFacts(facts, text, job.cluster.ID)
	}
	for _, d := range plan.Drops {
		m, ok := eligible(d.ID)
		reason := CutText(CleanText(d.Reason), maxReasonBytes)
		if !ok || reason == "" {
			out.refused++
			continue
		}
		p.retireAsRead(m, RetiredDropped, "", reason)
	}
	if len(p.rows) == 0 && len(p.changes.Retire) == 0 {
		return nil
	}
	if err := p.embed(ctx); err != nil {
		return err
	}
	if err := s.commit(ctx, p); err != nil {
		return err
	}
	job.retired, job.mergedInto, job.merged = map[string]bool{}, map[string]string{}, map[string]Memory{}
	for _, r := range p.changes.Retire {
		job.retired[r.ID] = true
		if r.Retirement.How == RetiredMerged {
			job.mergedInto[r.ID] = r.Retirement.By
		}
		// What was committed counts (dropStale may have left some out),
		// facts only, not their mirrors.
		if _, mirror := p.mirrorOf[r.ID]; !mirror {
			switch r.Retirement.How {
			case RetiredMerged:
				out.merged++
			case RetiredDropped:
				out.dropped++
			}
		}
	}
	for _, m := range p.rows {
		if m.Layer == LayerFact {
			out.joined = append(out.joined, m.ID)
			job.merged[m.ID] = m
		}
	}
	s.markNowDirty(job.rowOwner)
	return nil
}

// mergeFacts adds the merged fact (the first fact's owner and label, the
// latest event date, the union of the sources, the summed count) and
// retires the originals, with their L1 mirrors, as merged into it.
func (p *promotion) mergeFacts(facts []Memory, text, topic string) {
	first := facts[0]
	var eventAt time.Time
	var sources []string
	count, strength := 0, 0.0
	for _, f := range facts {
		if f.EventAt.After(eventAt) {
			eventAt = f.EventAt
		}
		sources = union(sources, f.SourceIDs)
		count += countOf(f)
		strength = max(strength, f.Strength)
	}
	m := p.newRow(LayerFact, text, first.Category, eventAt)
	m.Owner, m.SessionID, m.Source, m.SourceIDs, m.Strength = first.Owner, first.SessionID, sourceConsol, sources, strength
	ids := make([]string, len(facts))
	for i, f := range facts {
		ids[i] = f.ID
	}
	m.Metadata = map[string]string{MetaCount: strconv.Itoa(count), MetaTopic: topic, MetaMergedFrom: strings.Join(ids, ",")}
	if l := first.Metadata[MetaLabel]; l != "" {
		m.Metadata[MetaLabel] = l
	}
	id := m.ID
	if slices.ContainsFunc(facts, isPreference) {
		mirror := p.newRow(LayerProfile, text, CategoryPreference, eventAt)
		mirror.Owner, mirror.Source, mirror.SourceIDs = first.Owner, sourceConsol, sources
		mirror.Metadata = map[string]string{MetaMirrorOf: id}
		p.rows[len(p.rows)-2].Metadata[MetaMirror] = mirror.ID
	}
	for _, f := range facts {
		_ = p.retireFact(context.Background(), f, RetiredMerged, id)
	}
}

// everRestored reports whether a fact was ever restored after being
// retired: a person chose to keep it.
func (s *Service) everRestored(ctx context.Context, id string) (bool, error) {
	h, err := s.store.History(ctx, id)
	if err != nil {
		return false, fmt.Errorf("read the history of %s: %w", id, err)
	}
	return slices.ContainsFunc(h, func(e HistoryEntry) bool { return e.Action == HistoryRestored }), nil
}

// oneAgent reports whether the facts were all written through one agent:
// a merged row has one owner, and an agent's own reads must not lose a
// fact to a row of another agent.
func oneAgent(facts []Memory) bool {
	return !slices.ContainsFunc(facts, func(f Memory) bool { return f.Owner.AgentID != facts[0].Owner.AgentID })
}

// saysTheSame reports whether a merged text is about what its facts say:
// at least half of its words occur in them (see contentWords). A model
// cannot replace facts with text of its own (an instruction, a link)
// under their strength.
func saysTheSame(text string, facts []Memory) bool {
	known := map[string]bool{}
	for _, f := range facts {
		for _, w := range contentWords(f.Content) {
			known[w] = true
		}
	}
	words := contentWords(text)
	shared := 0
	for _, w := range words {
		if known[w] {
			shared++
		}
	}
	return len(words) > 0 && 2*shared >= len(words)
}

// contentWords are the lower-cased words of three letters or more of s;
// a run of a script written without spaces (Chinese, Japanese, Thai)
// counts by its pairs of characters instead, since it is a whole clause.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !strings.ContainsFunc(w, unspaced) {
			if utf8.RuneCountInString(w) >= 3 {
				out = append(out, w)
			}
			continue
		}
		rs := []rune(w)
		for i := 0; i+1 < len(rs); i++ {
			out = append(out, string(rs[i:i+2]))
		}
	}
	return out
}

// unspaced reports whether r belongs to a script written without spaces
// between words.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// allSimilar reports whether every pair of facts is at least min similar
// (by their vectors in the index; a fact without one fails).
func (s *Service) allSimilar(facts []Memory, floor float64) bool {
	cur := s.acquire()
	defer cur.done()
	vecs := make([][]float32, len(facts))
	for i, f := range facts {
		v, ok := cur.index.Vector(f.ID)
		if !ok {
			return false
		}
		vecs[i] = v
	}
	for i := range vecs {
		for j := i + 1; j < len(vecs); j++ {
			if dot(vecs[i], vecs[j]) < floor {
				return false
			}
		}
	}
	return true
}

// evidenceOf keeps the ids the job showed, once each, in order.
func (job *clusterJob) evidenceOf(ids []string) []string {
	var out []string
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if _, ok := job.facts[id]; ok && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// liveEvidenceOf is evidenceOf for a relation, which rests on live facts:
// a fact the plan merged stands for the merged fact, one it dropped for
// nothing. It returns the facts.
func (job *clusterJob) liveEvidenceOf(ids []string) []Memory {
	var out []Memory
	for _, id := range job.evidenceOf(ids) {
		f, ok := job.facts[id]
		if into, merged := job.mergedInto[id]; merged {
			f, ok = job.merged[into]
		} else if job.retired[id] || job.gone[id] {
			ok = false
		}
		if ok && !slices.ContainsFunc(out, func(m Memory) bool { return m.ID == f.ID }) {
			out = append(out, f)
		}
	}
	return out
}

// writeSchemas writes the schemas backed by at least two of the cluster's
// facts that do not repeat a live schema of the owner (SchemaDuplicate),
// nor each other. A schema keeps its evidence: the fact ids, which a later
// merge or drop retires but never deletes.
func (s *Service) writeSchemas(ctx context.Context, job *clusterJob, schemas []PlannedSchema, now time.Time, out *clusterOutcome) error {
	p := &promotion{s: s, gen: job.gen, raw: Memory{ID: "cluster " + job.cluster.ID, Owner: job.rowOwner}, now: now,
		scope: job.scope, retired: map[string]bool{}}
	for _, sc := range schemas {
		text := CutText(CleanText(sc.Text), maxConsolidatedBytes)
		evidence := job.evidenceOf(sc.Evidence)
		if text == "" || len(evidence) < 2 {
			out.refused++
			continue
		}
		m := p.newRow(LayerSchema, text, categoryPattern, time.Time{})
		m.Source, m.SourceIDs, m.Metadata = sourceConsol, evidence, map[string]string{MetaTopic: job.cluster.ID}
	}
	n, err := s.commitNovel(ctx, p, LayerSchema, SchemaDuplicate)
	out.schemas += n
	return err
}

// commitNovel embeds p's rows, keeps those less than dup similar to the
// owner's live rows of layer and to each other, and commits them. It
// returns how many it wrote.
func (s *Service) commitNovel(ctx context.Context, p *promotion, layer Layer, dup float64) (int, error) {
	if len(p.rows) == 0 {
		return 0, nil
	}
	if err := p.embed(ctx); err != nil {
		return 0, err
	}
	cur := s.acquire()
	var rows []Memory
	var vecs []Vector
	for i, m := range p.rows {
		v := p.vectors[i]
		hits, err := cur.index.Search(ctx, v.Values, 1, VectorFilter{Layers: []Layer{layer}, Scope: p.scope})
		if err != nil {
			cur.done()
			return 0, fmt.Errorf("search similar %s rows: %w", layer.Title(), err)
		}
		repeats := len(hits) > 0 && hits[0].Score >= dup
		for _, kept := range vecs {
			repeats = repeats || dot(kept.Values, v.Values) >= dup
		}
		if !repeats {
			rows, vecs = append(rows, m), append(vecs, v)
		}
	}
	cur.done()
	p.rows, p.vectors = rows, vecs
	if len(rows) == 0 {
		return 0, nil
	}
	if err := s.commit(ctx, p); err != nil {
		return 0, err
	}
	return len(rows), nil
}

// writeArc replaces the owner's rolling arc (an L4 row) with the plan's.
func (s *Service) writeArc(ctx context.Context, job *clusterJob, arc string, now time.Time, out *clusterOutcome) error {
	text := CutText(CleanText(arc), maxConsolidatedBytes)
	if text == "" {
		return nil
	}
	old, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerSummary}, Scope: job.scope, Category: categoryArc, Limit: 20})
	if err != nil {
		return fmt.Errorf("read the current arc: %w", err)
	}
	if len(old) == 1 && old[0].Content == text {
		return nil // the same story: nothing to replace
	}
	p := &promotion{s: s, gen: job.gen, raw: Memory{ID: "arc", Owner: job.rowOwner}, now: now, scope: job.scope, retired: map[string]bool{}}
	m := p.newRow(LayerSummary, text, categoryArc, time.Time{})
	m.Source, m.SourceIDs, m.Metadata = sourceConsol, nil, map[string]string{MetaArc: "true"}
	for _, o := range old {
		p.retire(o.ID, RetiredReplaced, m.ID, "")
	}
	if err := p.embed(ctx); err != nil {
		return err
	}
	if err := s.commit(ctx, p); err != nil {
		return err
	}
	out.arc++
	return nil
}

// currentArc is the owner's live arc text ("" when none).
func (s *Service) currentArc(ctx context.Context, scope Scope) (string, error) {
	rows, _, err := s.store.List(ctx, ListFilter{Layers: []Layer{LayerSummary}, Scope: scope, Category: categoryArc, Limit: 1})
	if err != nil || len(rows) == 0 {
		return "", err
	}
	return rows[0].Content, nil
}
