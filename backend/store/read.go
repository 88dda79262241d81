package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"hyatlas/backend/memory"
)

// Get reads one row, live or retired.
func (s *Store) Get(ctx context.Context, id string) (memory.Memory, error) {
	m, err := scanMemory(s.reader.QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Memory{}, notFound(id)
	}
	if err != nil {
		return memory.Memory{}, fmt.Errorf("read memory %s: %w", id, err)
	}
	return m, nil
}

// RawByRequest finds the raw row owner o wrote with the request id req
// (memory.MetaRequestID); ok is false when there is none.
func (s *Store) RawByRequest(ctx context.Context, o memory.Owner, req string) (memory.Memory, bool, error) {
	return s.byRequest(ctx, req, rawByRequestSQL, req, o.UserID, o.AgentID)
}

// byRequest reads the one row query finds for request req, if any.
func (s *Store) byRequest(ctx context.Context, req, query string, args ...any) (memory.Memory, bool, error) {
	m, err := scanMemory(s.reader.QueryRowContext(ctx, query, args...))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return memory.Memory{}, false, nil
	case err != nil:
		return memory.Memory{}, false, fmt.Errorf("read the row of request %q: %w", req, err)
	}
	return m, true, nil
}

// RememberedByRequest implements memory.Store. Rows added by hand are few
// next to raw turns, and a request id is given for some only: the owner's
// rows are read through memories_user, with no index of their own.
func (s *Store) RememberedByRequest(ctx context.Context, o memory.Owner, layer memory.Layer, req string) (memory.Memory, bool, error) {
	return s.byRequest(ctx, req, `SELECT `+memoryColumns+` FROM memories
		WHERE user_id = ? AND agent_id = ? AND layer = ? AND json_extract(metadata, '$.`+memory.MetaRequestID+`') = ?
		ORDER BY created_at LIMIT 1`, o.UserID, o.AgentID, string(layer), req)
}

// rawByRequestSQL is RawByRequest's query, through the partial index
// memories_request_id (0011_request_id.sql): its terms imply the index's
// (left to itself, the planner walked every raw row by layer).
const rawByRequestSQL = `SELECT ` + memoryColumns + ` FROM memories INDEXED BY memories_request_id
	WHERE layer = 'l2_raw' AND json_extract(metadata, '$.` + memory.MetaRequestID + `') = ? AND user_id = ? AND agent_id = ?
	ORDER BY created_at LIMIT 1`

// GetMany reads the rows with the given ids; unknown ids are left out.
func (s *Store) GetMany(ctx context.Context, ids []string) (map[string]memory.Memory, error) {
	out := make(map[string]memory.Memory, len(ids))
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		var w where
		w.in("id", chunk)
		if err := s.query(ctx, `SELECT `+memoryColumns+` FROM memories`+w.sql(), w.args, func(r *sql.Rows) error {
			m, err := scanMemory(r)
			out[m.ID] = m
			return err
		}); err != nil {
			return nil, fmt.Errorf("read memories: %w", err)
		}
	}
	return out, nil
}

// manyMatches is how many matches of a text make List walk created_at
// for the page instead of sorting the matches.
const manyMatches = 2000

// List returns one page of rows, newest first, and how many rows match.
func (s *Store) List(ctx context.Context, f memory.ListFilter) ([]memory.Memory, int, error) {
	var w where
	w.layers("", f.Layers)
	for _, l := range f.ExcludeLayers {
		w.add("layer <> ?", string(l))
	}
	w.scope("", f.Scope)
	if f.Scope.WithShared && f.Scope.AgentID != "" {
		// The person's own rows, not what consolidation derived (memory.Scope.Holds).
		w.add("NOT (agent_id = '' AND source = ?)", memory.SourceConsolidation)
	}
	if !f.IncludeRetired {
		w.add("retired_at IS NULL")
	}
	if f.RetiredBy != "" {
		w.add("retired_by = ?", f.RetiredBy)
	}
	if f.Category != "" {
		w.add("category = ?", f.Category)
	}
	w.in("json_extract(metadata, '$."+memory.MetaRelation+"')", f.Relations)
	if !f.CreatedFrom.IsZero() {
		w.add("created_at >= ?", f.CreatedFrom.UnixMilli())
	}
	if !f.CreatedTo.IsZero() {
		w.add("created_at <= ?", f.CreatedTo.UnixMilli())
	}
	if !f.EventFrom.IsZero() {
		w.add("event_at >= ?", f.EventFrom.UnixMilli())
	}
	if !f.EventTo.IsZero() {
		w.add("event_at < ?", f.EventTo.UnixMilli())
	}
	if !f.DueFrom.IsZero() {
		w.add("due_at >= ?", f.DueFrom.UnixMilli())
	}
	if !f.DueTo.IsZero() {
		w.add("due_at < ?", f.DueTo.UnixMilli())
	}
	if f.MinStrength != nil {
		w.add("strength >= ?", *f.MinStrength)
	}
	if f.MaxStrength != nil {
		w.add("strength <= ?", *f.MaxStrength)
	}
	// The text: a substring test, instr over lower() being LIKE's matching
	// (ASCII letters fold, others must be equal) at a third of its cost.
	// For live rows the full-text index first narrows them to those with
	// words starting as the text's do (match).
	var match string
	if f.Text != "" {
		if q := ftsPrefixes(f.Text); q != "" && !f.IncludeRetired {
			match = "{content} : (" + q + ")"
		}
		w.add(`instr(lower(content), ?) > 0`, asciiLower(f.Text))
	}
	order := " ORDER BY created_at DESC, seq DESC"
	switch {
	case f.ByStrength:
		order = " ORDER BY strength DESC, created_at DESC, seq DESC"
	case f.Oldest:
		order = " ORDER BY created_at, seq"
	}
	// With a full-text match, counting starts from the matches (CROSS JOIN
	// keeps that order; left to itself the planner walked all of a user's
	// rows: 180 ms at 100,000). The page does too when they are few; when
	// they are many it walks created_at and skips rows not among them (a
	// unary + keeps the planner off the match list; sorting 23,000 matches
	// of a common word cost 80 ms).
	from, args := " FROM memories", w.args
	if match != "" {
		from = " FROM (SELECT rowid AS fts_seq FROM memories_fts WHERE memories_fts MATCH ?) CROSS JOIN memories ON seq = fts_seq"
		args = append([]any{match}, w.args...)
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*)`+from+w.sql(), args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count memories: %w", err)
	}
	// The page, unlike the count, starts after the cursor.
	pw := where{conds: slices.Clone(w.conds), args: slices.Clone(w.args)}
	if !f.After.IsZero() {
		cond, args := afterCursor(f)
		pw.add(cond, args...)
	}
	page, pageArgs := from+pw.sql(), pw.args
	if match != "" {
		pageArgs = append([]any{match}, pw.args...)
	}
	if match != "" && total > manyMatches {
		var many where
		many.conds = append([]string{`+seq IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?)`}, pw.conds...)
		page = " FROM memories" + many.sql()
	}
	var out []memory.Memory
	err := s.query(ctx, `SELECT `+memoryColumns+page+order+` LIMIT ? OFFSET ?`,
		append(append([]any{}, pageArgs...), f.Limit, f.Offset),
		func(r *sql.Rows) error {
			m, err := scanMemory(r)
			out = append(out, m)
			return err
		})
	if err != nil {
		return nil, 0, fmt.Errorf("list memories: %w", err)
	}
	return out, total, nil
}

// afterCursor is List's condition for the rows after f.After in f's
// order. The cursor's row decides among rows of its millisecond by its
// store order (seq); when it was deleted since, all of them follow (a
// row listed twice is better than one skipped).
func afterCursor(f memory.ListFilter) (string, []any) {
	c := f.After
	ms := c.CreatedAt.UnixMilli()
	if f.Oldest {
		seq := `COALESCE((SELECT seq FROM memories WHERE id = ?), -1)`
		return `(created_at > ? OR (created_at = ? AND seq > ` + seq + `))`, []any{ms, ms, c.ID}
	}
	seq := `COALESCE((SELECT seq FROM memories WHERE id = ?), 9223372036854775807)`
	newer := `(created_at < ? OR (created_at = ? AND seq < ` + seq + `))`
	if f.ByStrength {
		return `(strength < ? OR (strength = ? AND ` + newer + `))`, []any{c.Strength, c.Strength, ms, ms, c.ID}
	}
	return newer, []any{ms, ms, c.ID}
}

// Keyword ranks live rows in scope by BM25 over the porter-stemmed index;
// a row matches when it has any of the terms, in its own text or (for a
// raw row, weighted 0.4) in the text of the turn before it. The index
// holds live rows only, and owner and layer are tokens in it, so one
// FTS5 query does the whole search.
func (s *Store) Keyword(ctx context.Context, q memory.KeywordQuery) ([]memory.KeywordHit, error) {
	if len(q.Terms) == 0 || q.Limit <= 0 {
		return nil, nil
	}
	match := "{content context} : (" + ftsAny(q.Terms) + ")" + ftsFilter(q.Scope, q.Layers)
	if len(q.IDs) > 0 {
		return s.keywordOf(ctx, match, q)
	}
	var hits []memory.KeywordHit
	// Rank inside the index first: joining every match to its row before
	// the LIMIT would cost a lookup per match of a common word.
	err := s.query(ctx, `SELECT m.id, -f.score FROM (SELECT rowid, `+ftsBM25+` AS score FROM memories_fts
			WHERE memories_fts MATCH ? ORDER BY score LIMIT ?) f
		JOIN memories m ON m.seq = f.rowid WHERE m.retired_at IS NULL ORDER BY f.score`,
		[]any{match, q.Limit}, func(r *sql.Rows) error {
			var h memory.KeywordHit
			err := r.Scan(&h.ID, &h.Score)
			hits = append(hits, h)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return hits, nil
}

// keywordOf scores only the live rows q.IDs names, best first, at most
// q.Limit. The unary + keeps the rowid list out of FTS5's hands: given it,
// FTS5 runs the whole query once per rowid (30 times slower here).
func (s *Store) keywordOf(ctx context.Context, match string, q memory.KeywordQuery) ([]memory.KeywordHit, error) {
	var hits []memory.KeywordHit
	for ids := q.IDs; len(ids) > 0; {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		var w where
		w.in("id", chunk)
		w.add("retired_at IS NULL")
		err := s.query(ctx, `SELECT m.id, -f.score FROM (SELECT rowid, `+ftsBM25+` AS score FROM memories_fts
				WHERE memories_fts MATCH ? AND +rowid IN (SELECT seq FROM memories`+w.sql()+`)) f
			JOIN memories m ON m.seq = f.rowid`,
			append([]any{match}, w.args...), func(r *sql.Rows) error {
				var h memory.KeywordHit
				err := r.Scan(&h.ID, &h.Score)
				hits = append(hits, h)
				return err
			})
		if err != nil {
			return nil, fmt.Errorf("keyword scores: %w", err)
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	return hits[:min(len(hits), q.Limit)], nil
}

// ftsBM25 ranks the index: a row's own text counts 1, the turn before it
// 0.4, the owner and layer tokens nothing. (Calling bm25 directly is
// about twice as fast as the configured rank column.)
const ftsBM25 = `bm25(memories_fts, 1.0, 0.4, 0.0, 0.0)`

// ftsAny is an FTS5 OR of quoted terms.
func ftsAny(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = ftsQuote(t)
	}
	return strings.Join(quoted, " OR ")
}

// ftsFilter is the MATCH clause for an owner scope and layers (each
// prefixed " AND "): the index's owner and layer columns hold tokens made
// the same way as in the migration that created them.
func ftsFilter(sc memory.Scope, layers []memory.Layer) string {
	var b strings.Builder
	if len(sc.UserIDs) > 0 {
		users := make([]string, len(sc.UserIDs))
		for i, u := range sc.UserIDs {
			users[i] = ownerToken("u", u)
		}
		b.WriteString(" AND owner : (" + strings.Join(users, " OR ") + ")")
	}
	switch {
	case sc.AgentID != "" && sc.WithShared:
		b.WriteString(" AND owner : (" + ownerToken("a", sc.AgentID) + " OR " + ownerToken("a", "") + ")")
	case sc.AgentID != "" || sc.ExactAgent:
		b.WriteString(" AND owner : " + ownerToken("a", sc.AgentID))
	}
	if len(layers) > 0 {
		ls := make([]string, len(layers))
		for i, l := range layers {
			ls[i] = ftsQuote(strings.ReplaceAll(string(l), "_", ""))
		}
		b.WriteString(" AND layer : (" + strings.Join(ls, " OR ") + ")")
	}
	return b.String()
}

// ownerToken is an owner id as the index holds it: a prefix and the hex of
// its bytes, one token whatever the id contains.
func ownerToken(prefix, id string) string { return ftsQuote(prefix + hex.EncodeToString([]byte(id))) }

// asciiLower lowercases ASCII letters only, as SQLite's lower() does.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ftsPrefixes is a MATCH expression requiring a word that starts with
// each word of text (at most 8), or "" when text has none.
func ftsPrefixes(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) > 8 {
		words = words[:8]
	}
	for i, w := range words {
		words[i] = ftsQuote(w) + "*"
	}
	return strings.Join(words, " AND ")
}

func ftsQuote(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }

// FindByContent returns live rows in scope whose normalised text equals
// text (already normalised) or, with contains, contains it. Candidates come
// from the full-text index (every whole word of text must occur; without
// one, every live row in scope is a candidate), then the text itself is
// compared.
func (s *Store) FindByContent(ctx context.Context, sc memory.Scope, text string, contains bool) ([]memory.Memory, error) {
	var w where
	words := candidateWords(text, contains, 16)
	from := `memories m`
	if len(words) > 0 {
		quoted := make([]string, len(words))
		for i, t := range words {
			quoted[i] = ftsQuote(t)
		}
		from = `memories_fts JOIN memories m ON m.seq = memories_fts.rowid`
		w.add("memories_fts MATCH ?", "content : ("+strings.Join(quoted, " AND ")+")"+ftsFilter(sc, nil))
	}
	w.add("m.retired_at IS NULL")
	w.scope("m.", sc)
	var out []memory.Memory
	err := s.query(ctx, `SELECT `+prefixed("m")+` FROM `+from+w.sql(), w.args,
		func(r *sql.Rows) error {
			m, err := scanMemory(r)
			if err != nil {
				return err
			}
			got := memory.NormalizeText(m.Content)
			if got == text || (contains && strings.Contains(got, text)) {
				out = append(out, m)
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("find memories by text: %w", err)
	}
	return out, nil
}

// candidateWords returns up to n distinct words of text, longest first,
// for the full-text pre-filter. A word is a run of letters, numbers, marks
// and private-use characters, so it only ends where FTS5's unicode61
// tokenizer also sees a separator and the quoted word matches the row's
// tokens ("x²y" is one token there, not "x" and "y"). With contains, a word
// touching either end of text may be part of a longer word of the row
// ("tea" in "teapots"), so only words with a separator on both sides count.
func candidateWords(text string, contains bool, n int) []string {
	seen := map[string]bool{}
	var words []string
	start := -1
	for i, r := range text + " " {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start < 0 {
			continue
		}
		word, edge := text[start:i], start == 0 || i == len(text)
		start = -1
		if (contains && edge) || seen[word] {
			continue
		}
		seen[word] = true
		words = append(words, word)
	}
	sort.SliceStable(words, func(i, j int) bool { return len(words[i]) > len(words[j]) })
	return words[:min(n, len(words))]
}

// isWordRune reports whether FTS5's unicode61 tokenizer may treat r as part
// of a token (it keeps L*, N*, Co and, removing diacritics, some marks).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r)
}

// History lists a row's recorded changes, oldest first.
func (s *Store) History(ctx context.Context, id string) ([]memory.HistoryEntry, error) {
	var out []memory.HistoryEntry
	err := s.query(ctx, `SELECT memory_id, at, action, how, reason, by_id, old_content, detail
		FROM history WHERE memory_id = ? ORDER BY seq`, []any{id}, func(r *sql.Rows) error {
		var h memory.HistoryEntry
		var at sql.NullInt64
		var action, how string
		err := r.Scan(&h.MemoryID, &at, &action, &how, &h.Reason, &h.By, &h.OldContent, &h.Detail)
		h.At, h.Action, h.How = fromMillis(at), memory.HistoryAction(action), memory.RetireHow(how)
		out = append(out, h)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read history of %s: %w", id, err)
	}
	return out, nil
}

// query runs a read and calls fn for each row.
func (s *Store) query(ctx context.Context, q string, args []any, fn func(*sql.Rows) error) error {
	rows, err := s.reader.QueryContext(ctx, q, args...)
	return eachRow(rows, err, fn)
}

// eachRow calls fn for each of rows, unless err (the query's) is set, and
// closes them.
func eachRow(rows *sql.Rows, err error, fn func(*sql.Rows) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ReplacedIDs returns, for each of ids, the ids of the rows retired in its
// favour (the versions it replaced), oldest first.
func (s *Store) ReplacedIDs(ctx context.Context, ids []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var w where
	w.add("retired_by <> ''") // lets SQLite use the partial index
	w.in("retired_by", ids)
	err := s.query(ctx, `SELECT retired_by, id FROM memories`+w.sql()+` ORDER BY retired_at, seq`, w.args,
		func(r *sql.Rows) error {
			var by, id string
			err := r.Scan(&by, &id)
			out[by] = append(out[by], id)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("read replaced versions: %w", err)
	}
	return out, nil
}
