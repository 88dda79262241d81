// Package vector is the in-memory nearest-neighbour index: an exact
// (brute-force) cosine search over unit vectors, partitioned by layer and
// user so that a scoped query reads only its owners' rows.
//
// It replaces chromem-go's query path, which measured 104 ms at 100k
// vectors on this project's machines (its filter step sends every document
// through a channel); see the README's performance notes and
// compare_chromem_test.go. Like chromem-go it keeps no files: the store
// holds every vector and the index is rebuilt from it at start.
package vector

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"hyatlas/backend/memory"
)

// chunkSize is how many vectors share one allocation. Chunks never move,
// so growth never copies, and they are the unit of parallel work.
const chunkSize = 1024

// Index implements memory.VectorIndex. It is safe for concurrent use.
type Index struct {
	dims int

	mu     sync.RWMutex
	parts  map[partKey]*partition
	slots  map[string]slot   // by key: a row's id, or partKey of its sentence
	subs   map[string]int    // number of sentence vectors per row id
	nSubs  int               // sum of subs
	agents map[string]uint32 // interned agent ids; 0 is ""
	names  []string          // agent id by interned number
}

type partKey struct {
	layer memory.Layer
	user  string
}

type slot struct {
	part *partition
	pos  int
}

// partition holds the vectors of one (layer, user) pair in chunks.
type partition struct {
	key    partKey
	n      int
	chunks []*chunk
}

type chunk struct {
	ids    []string
	agents []uint32
	vecs   []float32 // len(ids) * dims
}

// New returns an empty index for vectors of the given length.
func New(dims int) *Index {
	return &Index{
		dims:   dims,
		parts:  map[partKey]*partition{},
		slots:  map[string]slot{},
		subs:   map[string]int{},
		agents: map[string]uint32{"": 0},
		names:  []string{""},
	}
}

// Dims is the vector length the index accepts.
func (x *Index) Dims() int { return x.dims }

// Len is the number of rows held (sentence vectors not counted).
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.slots) - x.nSubs
}

// sentenceKey is the slot key of a row's n-th sentence vector; rowID
// undoes it. Ids never hold a NUL byte.
func sentenceKey(id string, n int) string { return id + "\x00" + strconv.Itoa(n) }

func rowID(key string) string {
	if i := strings.IndexByte(key, 0); i >= 0 {
		return key[:i]
	}
	return key
}

// Upsert adds entries or replaces the vectors, layer and owner of
// existing ids. Vectors are stored normalised to unit length; a vector
// (or sentence part) of the wrong length or with NaN/Inf is refused and
// nothing of the call is applied.
func (x *Index) Upsert(entries ...memory.IndexEntry) error {
	scales := make([][]float32, len(entries)) // per entry: whole, then parts
	for i, e := range entries {
		if strings.IndexByte(e.ID, 0) >= 0 {
			return fmt.Errorf("id %q holds a NUL byte", e.ID)
		}
		for _, v := range append([][]float32{e.Values}, e.Parts...) {
			if len(v) != x.dims {
				return fmt.Errorf("vector for %s has %d dimensions, the index holds %d", e.ID, len(v), x.dims)
			}
			s, ok := unitScale(v)
			if !ok {
				return fmt.Errorf("vector for %s is zero or not finite", e.ID)
			}
			scales[i] = append(scales[i], s)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, e := range entries {
		x.removeLocked(e.ID)
		key := partKey{layer: e.Layer, user: e.Owner.UserID}
		p := x.parts[key]
		if p == nil {
			p = &partition{key: key}
			x.parts[key] = p
		}
		agent := x.intern(e.Owner.AgentID)
		x.slots[e.ID] = slot{part: p, pos: p.n}
		p.append(e.ID, agent, e.Values, scales[i][0], x.dims)
		for n, v := range e.Parts {
			k := sentenceKey(e.ID, n)
			x.slots[k] = slot{part: p, pos: p.n}
			p.append(k, agent, v, scales[i][n+1], x.dims)
		}
		if len(e.Parts) > 0 {
			x.subs[e.ID] = len(e.Parts)
			x.nSubs += len(e.Parts)
		}
	}
	return nil
}

// Remove deletes ids; unknown ids are ignored.
func (x *Index) Remove(ids ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		x.removeLocked(id)
	}
}

// removeLocked removes a row and its sentence vectors.
func (x *Index) removeLocked(id string) {
	for n := range x.subs[id] {
		x.removeSlotLocked(sentenceKey(id, n))
	}
	x.nSubs -= x.subs[id]
	delete(x.subs, id)
	x.removeSlotLocked(id)
}

// removeSlotLocked moves the partition's last vector into the freed slot.
func (x *Index) removeSlotLocked(id string) {
	s, ok := x.slots[id]
	if !ok {
		return
	}
	delete(x.slots, id)
	p := s.part
	last := p.n - 1
	if s.pos != last {
		movedID := p.move(last, s.pos, x.dims)
		x.slots[movedID] = slot{part: p, pos: s.pos}
	}
	p.truncate(x.dims)
	if p.n == 0 {
		delete(x.parts, p.key)
	}
}

// Vector returns a copy of id's unit vector.
func (x *Index) Vector(id string) ([]float32, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s, ok := x.slots[id]
	if !ok {
		return nil, false
	}
	c, off := s.part.at(s.pos)
	return append([]float32(nil), c.vecs[off*x.dims:(off+1)*x.dims]...), true
}

func (x *Index) intern(agent string) uint32 {
	if n, ok := x.agents[agent]; ok {
		return n
	}
	n := uint32(len(x.names))
	x.agents[agent] = n
	x.names = append(x.names, agent)
	return n
}

func (p *partition) at(pos int) (*chunk, int) { return p.chunks[pos/chunkSize], pos % chunkSize }

// append stores v scaled by scale, copying it straight into the chunk.
func (p *partition) append(id string, agent uint32, v []float32, scale float32, dims int) {
	if p.n%chunkSize == 0 && p.n/chunkSize == len(p.chunks) {
		p.chunks = append(p.chunks, &chunk{
			ids:    make([]string, 0, chunkSize),
			agents: make([]uint32, 0, chunkSize),
			vecs:   make([]float32, 0, chunkSize*dims),
		})
	}
	c := p.chunks[p.n/chunkSize]
	c.ids = append(c.ids, id)
	c.agents = append(c.agents, agent)
	start := len(c.vecs)
	c.vecs = append(c.vecs, v...)
	if scale != 1 {
		for i := start; i < len(c.vecs); i++ {
			c.vecs[i] *= scale
		}
	}
	p.n++
}

// move copies the entry at from over the entry at to and returns its id.
func (p *partition) move(from, to, dims int) string {
	fc, fo := p.at(from)
	tc, to2 := p.at(to)
	tc.ids[to2], tc.agents[to2] = fc.ids[fo], fc.agents[fo]
	copy(tc.vecs[to2*dims:(to2+1)*dims], fc.vecs[fo*dims:(fo+1)*dims])
	return fc.ids[fo]
}

// truncate drops the last entry, and the last chunk once it is empty.
func (p *partition) truncate(dims int) {
	p.n--
	c, off := p.at(p.n)
	c.ids[off] = ""
	c.ids, c.agents, c.vecs = c.ids[:off], c.agents[:off], c.vecs[:off*dims]
	if off == 0 {
		p.chunks = p.chunks[:len(p.chunks)-1]
	}
}

// unitScale returns the factor that makes v unit length: exactly 1 when
// it already is (within float32 rounding), so stored unit vectors (all of
// them, at start-up) are copied without arithmetic.
func unitScale(v []float32) (float32, bool) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return 0, false
	}
	if math.Abs(sum-1) < 1e-6 {
		return 1, true
	}
	return float32(1 / math.Sqrt(sum)), true
}

// Indexable reports whether Upsert accepts v's values: finite and not all
// zero.
func Indexable(v []float32) bool {
	_, ok := unitScale(v)
	return ok
}

// normalised returns a unit-length copy of v.
func normalised(v []float32) ([]float32, bool) {
	s, ok := unitScale(v)
	if !ok {
		return nil, false
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * s
	}
	return out, true
}

var _ memory.VectorIndex = (*Index)(nil)
