package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// List returns one page of rows, newest first, and how many rows match.
func (s *Store) List(ctx context.Context, f memory.ListFilter) ([]memory.Memory, int, error) {
	var w where
	w.layers("", f.Layers)
	for _, l := range f.ExcludeLayers {
		w.add("layer <> ?", string(l))
	}
	w.scope("", f.Scope)
	if !f.IncludeRetired {
		w.add("retired_at IS NULL")
	}
	if f.RetiredBy != "" {
		w.add("retired_by = ?", f.RetiredBy)
	}
	if f.Category != "" {
		w.add("category = ?", f.Category)
	}
	if !f.CreatedFrom.IsZero() {
		w.add("created_at >= ?", f.CreatedFrom.UnixMilli())
	}
	if !f.CreatedTo.IsZero() {
		w.add("created_at <= ?", f.CreatedTo.UnixMilli())
	}
	order := " ORDER BY created_at DESC, seq DESC"
	if f.Oldest {
		order = " ORDER BY created_at, seq"
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM memories`+w.sql(), w.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count memories: %w", err)
	}
	var out []memory.Memory
	err := s.query(ctx, `SELECT `+memoryColumns+` FROM memories`+w.sql()+order+
		` LIMIT ? OFFSET ?`, append(w.args, f.Limit, f.Offset),
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

// Keyword ranks live rows in scope by BM25 over the porter-stemmed index;
// a row matches when it has any of the terms, in its own text or (for a
// raw row, weighted 0.4) in the text of the turn before it.
//
// It first ranks the full-text index alone and keeps the best few hundred
// matches, then filters those by owner, layer and retirement: the filter
// costs a row lookup, and doing it for every match of a common word is
// what made the keyword leg slow at 100k rows. When the filter leaves too
// few and there were more matches (another owner's rows outrank yours), it
// ranks again with the filter applied to every match.
func (s *Store) Keyword(ctx context.Context, q memory.KeywordQuery) ([]memory.KeywordHit, error) {
	if len(q.Terms) == 0 || q.Limit <= 0 {
		return nil, nil
	}
	quoted := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		quoted[i] = ftsQuote(t)
	}
	match := strings.Join(quoted, " OR ")
	var w where
	w.add("m.retired_at IS NULL")
	w.layers("m.", q.Layers)
	w.scope("m.", q.Scope)
	prefilter := max(200, 10*q.Limit)

	// The best matches of the index alone, each joined to its row only if
	// the row passes the filter (a NULL id otherwise), with the number of
	// matches in all.
	var hits []memory.KeywordHit
	total := 0
	err := s.query(ctx, `SELECT m.id, -f.score, f.total FROM (
			SELECT rowid, rank AS score, count(*) OVER () AS total FROM memories_fts
			WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?) f
		LEFT JOIN memories m ON m.seq = f.rowid AND `+w.and()+` ORDER BY f.score`,
		append([]any{match, prefilter}, w.args...), func(r *sql.Rows) error {
			var id sql.NullString
			var h memory.KeywordHit
			if err := r.Scan(&id, &h.Score, &total); err != nil {
				return err
			}
			if id.Valid && len(hits) < q.Limit {
				h.ID = id.String
				hits = append(hits, h)
			}
			return nil
		})
	if err == nil && len(hits) < q.Limit && total > prefilter {
		hits = hits[:0]
		err = s.query(ctx, `SELECT m.id, -memories_fts.rank FROM memories_fts
			JOIN memories m ON m.seq = memories_fts.rowid WHERE memories_fts MATCH ? AND `+w.and()+`
			ORDER BY memories_fts.rank LIMIT ?`, append(append([]any{match}, w.args...), q.Limit),
			func(r *sql.Rows) error {
				var h memory.KeywordHit
				err := r.Scan(&h.ID, &h.Score)
				hits = append(hits, h)
				return err
			})
	}
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return hits, nil
}

// ftsQuote makes one FTS5 string token of t.
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
		w.add("memories_fts MATCH ?", strings.Join(quoted, " AND "))
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
