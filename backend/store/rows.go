package store

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"hyatlas/backend/memory"
)

// memoryColumns is the column list every row query selects, in scanMemory's
// order.
const memoryColumns = `id, layer, content, user_id, agent_id, session_id, category, strength,
	source, source_ids, metadata, event_at, valid_to, due_at, created_at, updated_at,
	retired_at, retired_by, retired_how, retire_reason, use_count, last_used_at, extract_state, extract_tries, extract_error`

// prefixed returns memoryColumns with each column qualified by alias.
func prefixed(alias string) string {
	cols := strings.Split(memoryColumns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

type scanner interface{ Scan(dest ...any) error }

func scanMemory(r scanner, extra ...any) (memory.Memory, error) {
	var (
		m                                  memory.Memory
		layer, how, extract                string
		sourceIDs, metadata                string
		eventAt, validTo, dueAt, retiredAt sql.NullInt64
		lastUsed                           sql.NullInt64
		createdAt, updatedAt               int64
	)
	dest := []any{&m.ID, &layer, &m.Content, &m.Owner.UserID, &m.Owner.AgentID, &m.SessionID,
		&m.Category, &m.Strength, &m.Source, &sourceIDs, &metadata, &eventAt, &validTo, &dueAt,
		&createdAt, &updatedAt, &retiredAt, &m.RetiredBy, &how, &m.RetireReason, &m.UseCount,
		&lastUsed, &extract, &m.ExtractTries, &m.ExtractError}
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return memory.Memory{}, err
	}
	m.Layer, m.RetiredHow, m.Extraction = memory.Layer(layer), memory.RetireHow(how), memory.ExtractState(extract)
	m.EventAt, m.ValidTo, m.DueAt = fromMillis(eventAt), fromMillis(validTo), fromMillis(dueAt)
	m.RetiredAt, m.LastUsedAt = fromMillis(retiredAt), fromMillis(lastUsed)
	m.CreatedAt, m.UpdatedAt = time.UnixMilli(createdAt).UTC(), time.UnixMilli(updatedAt).UTC()
	if err := json.Unmarshal([]byte(sourceIDs), &m.SourceIDs); err != nil {
		return memory.Memory{}, fmt.Errorf("row %s: bad source_ids: %w", m.ID, err)
	}
	if err := json.Unmarshal([]byte(metadata), &m.Metadata); err != nil {
		return memory.Memory{}, fmt.Errorf("row %s: bad metadata: %w", m.ID, err)
	}
	if len(m.Metadata) == 0 {
		m.Metadata = nil
	}
	return m, nil
}

// millis stores a time as unix milliseconds; the zero time is NULL.
func millis(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// stored is t as a read returns it once saved: UTC, whole milliseconds.
func stored(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

func fromMillis(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.UnixMilli(n.Int64).UTC()
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// littleEndian reports whether float32s can be copied to and from their
// little-endian byte form as they lie in memory.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// encodeVector packs a vector and its parts as little-endian float32s,
// one after the other.
func encodeVector(v []float32, parts ...[]float32) []byte {
	n := len(v)
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, 4*n)
	for _, x := range append([][]float32{v}, parts...) {
		b = appendFloats(b, x)
	}
	return b
}

func appendFloats(b []byte, v []float32) []byte {
	if littleEndian && len(v) > 0 {
		return append(b, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))...)
	}
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// decodeVector unpacks a vector blob of whole vectors of dims floats into
// dst (reused when large enough) and returns the first vector and the
// parts after it, which share dst's memory.
func decodeVector(dst []float32, b []byte, dims int) ([]float32, [][]float32, error) {
	if dims <= 0 || len(b) == 0 || len(b)%(4*dims) != 0 {
		return nil, nil, fmt.Errorf("vector blob has %d bytes, not a multiple of %d dimensions", len(b), dims)
	}
	n := len(b) / 4
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(b)), b)
	} else {
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	var parts [][]float32
	for off := dims; off < n; off += dims {
		parts = append(parts, dst[off:off+dims:off+dims])
	}
	return dst[:dims:dims], parts, nil
}

// placeholders returns "?, ?, ?" for n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// where builds a WHERE clause from conditions joined by AND.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) in(col string, vals []string) {
	if len(vals) == 0 {
		return
	}
	w.add(col+" IN ("+placeholders(len(vals))+")", anys(vals)...)
}

// scope adds the owner conditions of sc on the table alias a.
func (w *where) scope(a string, sc memory.Scope) {
	w.in(a+"user_id", sc.UserIDs)
	switch {
	case sc.AgentID != "" && sc.WithShared:
		w.add(a+"agent_id IN (?, '')", sc.AgentID)
	case sc.AgentID != "" || sc.ExactAgent:
		w.add(a+"agent_id = ?", sc.AgentID)
	}
}

func (w *where) layers(a string, ls []memory.Layer) {
	vals := make([]string, len(ls))
	for i, l := range ls {
		vals[i] = string(l)
	}
	w.in(a+"layer", vals)
}

// and joins the conditions with AND, for an ON clause ("1" when none).
func (w *where) and() string {
	if len(w.conds) == 0 {
		return "1"
	}
	return "(" + strings.Join(w.conds, " AND ") + ")"
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

func notFound(id string) error {
	return memory.Errorf(memory.ENOTFOUND, "memory %q not found", id)
}
