package memory

import (
	"context"
	"time"
)

// The interfaces below are what the Service consumes. Adapters implement
// them; only the composition root (backend/engine) knows the adapters.

// Embedder turns text into unit vectors. Implementations must be safe for
// concurrent use and deterministic for a given model.
type Embedder interface {
	// Info describes the model; Info().ID is saved with every vector so a
	// vector made by another model is never compared with this one's.
	Info() EmbedderInfo
	// Embed returns one L2-normalised vector of Info().Dims per text.
	Embed(ctx context.Context, texts []string, purpose EmbedPurpose) ([][]float32, error)
}

// EmbedderInfo describes an embedder.
type EmbedderInfo struct {
	ID       string `json:"id"`       // stable id saved with vectors, e.g. "hash-256-v1"
	Name     string `json:"name"`     // human name
	Dims     int    `json:"dims"`     // vector length
	Semantic bool   `json:"semantic"` // false for the lexical test embedder
	// MinScore is the cosine that counts as no similarity at all for this
	// model (cosines differ between models): the vector leg's score is
	// rescaled so that MinScore counts 0 and a perfect match 1.
	MinScore float64 `json:"min_score"`
	// GateScore is the cosine at which a vector match shows relevance on
	// its own, with no word in common (the relevance gate's default).
	GateScore float64 `json:"gate_score"`
}

// EmbedPurpose says whether a text is stored or used as a query; some
// models (BGE) embed queries with an instruction prefix.
type EmbedPurpose int

// Embedding purposes.
const (
	PurposeDocument EmbedPurpose = iota
	PurposeQuery
)

// Vector is an embedding together with the model that made it.
type Vector struct {
	Embedder string
	Values   []float32
	// Parts are the vectors of a long text's sentences (nil for short
	// texts): stored and indexed with the row, they map back to it.
	Parts [][]float32
}

// IndexEntry is what the vector index holds for one live row.
type IndexEntry struct {
	ID     string
	Layer  Layer
	Owner  Owner
	Values []float32
	// Parts are sentence vectors that find the row too: a search scores
	// the row by the best of Values and its Parts.
	Parts [][]float32
}

// VectorFilter narrows a vector search. Empty fields do not filter.
type VectorFilter struct {
	Layers []Layer
	Scope  Scope
}

// VectorHit is one vector-search result: cosine similarity in [-1, 1].
type VectorHit struct {
	ID    string
	Score float64
}

// VectorIndex is the in-memory nearest-neighbour index. It holds live rows
// only, is rebuilt from the store at start and updated after each commit.
// The store wins when the two disagree.
type VectorIndex interface {
	Upsert(entries ...IndexEntry) error
	Remove(ids ...string)
	Search(ctx context.Context, query []float32, k int, f VectorFilter) ([]VectorHit, error)
	Vector(id string) ([]float32, bool)
	Len() int
}

// KeywordQuery is a full-text query over live rows.
type KeywordQuery struct {
	Terms  []string // already tokenised, lower-case, no stop words
	Layers []Layer
	Scope  Scope
	Limit  int
	// IDs, when set, scores only these rows (with the whole index's
	// statistics): the BM25 of candidates another source found.
	IDs []string
}

// KeywordHit is one full-text result; a higher Score is better.
type KeywordHit struct {
	ID    string
	Score float64
}

// Cascade is what a change did beyond the rows it named, by the rules
// that tie rows together: a preference fact's profile mirror goes and
// comes back with it, and a relation's L5 row with the relation's
// evidence (see graph.go). The caller mirrors it in the vector index.
type Cascade struct {
	Retired  []string // ids retired along
	Restored []string // ids restored along
	// Reheld lists the graph relations the change holds again, true now,
	// that have no L5 row to bring back (one learnt late, as already
	// ended, never had one): the service writes one for each.
	Reheld []string
}

// Add appends another change's cascade.
func (c *Cascade) Add(o Cascade) {
	c.Retired = append(c.Retired, o.Retired...)
	c.Restored = append(c.Restored, o.Restored...)
	c.Reheld = append(c.Reheld, o.Reheld...)
}

// ListFilter selects rows for a list. Total counts rows after filtering.
type ListFilter struct {
	Layers         []Layer // empty: every layer
	ExcludeLayers  []Layer
	Scope          Scope
	IncludeRetired bool
	RetiredBy      string    // only rows retired in favour of this id
	Category       string    // only rows of this category
	Relations      []string  // only L5 rows stating one of these graph relations (MetaRelation)
	CreatedFrom    time.Time // only rows created at or after (zero: no bound)
	CreatedTo      time.Time // only rows created at or before (zero: no bound)
	EventFrom      time.Time // only rows whose event time is at or after (zero: no bound)
	EventTo        time.Time // only rows whose event time is before (zero: no bound)
	DueFrom        time.Time // only rows due at or after (zero: no bound)
	DueTo          time.Time // only rows due before (zero: no bound)
	Oldest         bool      // oldest first instead of newest first
	// MinStrength and MaxStrength bound strength (inclusive) when set.
	MinStrength, MaxStrength *float64
	// Text keeps rows whose content contains it (case-insensitive for
	// ASCII letters).
	Text string
	// ByStrength orders strongest first (then newest).
	ByStrength bool
	// After, when set, starts the page right after its row in the order
	// above (Offset then counts from there); the total still counts all.
	After         ListCursor
	Offset, Limit int
}

// DeleteFilter scopes a bulk hard delete. Whole must be set to delete every
// row; an empty filter without Whole deletes nothing.
type DeleteFilter struct {
	IDs    []string
	Layers []Layer
	Scope  Scope
	Whole  bool
	// At is when the delete happens: the time the relations it leaves
	// without evidence expire (zero: the store's clock).
	At time.Time
}

// Update changes an existing row. Nil fields are left alone.
type Update struct {
	Content  *string
	Category *string
	Strength *float64
	// StrengthStep, when Strength is nil, moves the strength the row has
	// at the write by that much (NudgedStrength): two promotes at once
	// both count, where read-then-set would lose one.
	StrengthStep *float64
	Metadata     map[string]string // nil: unchanged; else replaces the row's metadata
	EventAt      *time.Time
	Vector       *Vector // required when Content changes
	At           time.Time
	// IfContent, when set, makes the update apply only while the row's
	// text is this (ESTALE otherwise): a form based on a text read earlier
	// never writes over a newer one, and an undo never over a later edit.
	IfContent *string
}

// NewRow is a row to insert with its embedding.
type NewRow struct {
	Memory Memory
	Vector Vector
}

// Store is the system of record. Every method is atomic; a write that
// returns nil is durable.
type Store interface {
	Insert(ctx context.Context, rows ...NewRow) error
	Get(ctx context.Context, id string) (Memory, error)
	GetMany(ctx context.Context, ids []string) (map[string]Memory, error)
	// RawByRequest finds the raw row the owner wrote with a request id
	// (MetaRequestID); ok is false when there is none.
	RawByRequest(ctx context.Context, o Owner, req string) (m Memory, ok bool, err error)
	// RememberedByRequest finds the row of layer (not a raw one) that the
	// owner added with a request id (MetaRequestID, see Remember); ok is
	// false when there is none.
	RememberedByRequest(ctx context.Context, o Owner, layer Layer, req string) (m Memory, ok bool, err error)
	List(ctx context.Context, f ListFilter) ([]Memory, int, error)
	Keyword(ctx context.Context, q KeywordQuery) ([]KeywordHit, error)
	FindByContent(ctx context.Context, scope Scope, text string, contains bool) ([]Memory, error)
	Update(ctx context.Context, id string, u Update) (Memory, error)
	Retire(ctx context.Context, id string, r Retirement) (Memory, Cascade, error)
	// RetireMany retires every row of ids that is still live, in one
	// transaction (rows retired or deleted meanwhile are passed over), and
	// returns the rows it retired.
	RetireMany(ctx context.Context, ids []string, r Retirement) ([]Memory, Cascade, error)
	Restore(ctx context.Context, id string, at time.Time) (Memory, Cascade, error)
	Delete(ctx context.Context, f DeleteFilter) ([]string, Cascade, error)
	Vector(ctx context.Context, id string) (Vector, error)
	History(ctx context.Context, id string) ([]HistoryEntry, error)
	// MarkUsed counts one use of each live id (never a retired row) and
	// raises the strength of curated rows by bump (at most 1); it returns
	// the ids counted. With
	// a request id (see UseRequest) it does so once: a request recorded
	// before gets its first answer back (Repeat), or ECONFLICT when it
	// named other ids.
	MarkUsed(ctx context.Context, ids []string, at time.Time, bump float64, req UseRequest) (UseResult, error)
	// Decay fades neglected rows (see DecayFilter) and counts them.
	Decay(ctx context.Context, f DecayFilter) (int, error)
	// ReplacedIDs gives, for each id, the rows retired in its favour.
	ReplacedIDs(ctx context.Context, ids []string) (map[string][]string, error)
	Stats(ctx context.Context) (StoreStats, error)
	AddCounter(ctx context.Context, name string, delta int64) error
	// RaiseCounter sets a counter to value unless it holds more; Counter
	// reads one (0 when there is none).
	RaiseCounter(ctx context.Context, name string, value int64) error
	Counter(ctx context.Context, name string) (int64, error)
	// ScanVectors calls fn for every live row that has a vector made by
	// embedder, in no particular order. The entry's Values may be reused
	// once fn returns: copy it to keep it.
	ScanVectors(ctx context.Context, embedder string, fn func(IndexEntry) error) error
	// Probe writes and reads back a value: a real round trip.
	Probe(ctx context.Context) error
	// WriteFault is why the last write failed when the cause was the disk
	// (an error matching ErrStorage), or nil once a write commits again.
	WriteFault() error
	// VectorJobs lists up to limit rows, live ones first, whose vector was
	// not made by embedder, from an opaque cursor ("" = from the start) it
	// returns for the next call ("" when done); VectorBacklog counts them.
	VectorJobs(ctx context.Context, embedder, cursor string, limit int) ([]VectorJob, string, error)
	VectorBacklog(ctx context.Context, embedder string) (int, error)
	// Activity counts, per day since from (days are offset seconds east of
	// UTC), the rows written by layer and the LLM calls by purpose.
	Activity(ctx context.Context, from time.Time, offset int) (added map[string]map[Layer]int, calls map[string]map[string]int, err error)
	// ScanExport calls fn for every row in scope, live and retired, oldest
	// first, with its history and (withVectors) its saved vector.
	ScanExport(ctx context.Context, scope Scope, withVectors bool, fn func(ExportRow) error) error
	// ImportRows writes, in one transaction, the rows whose ids are new
	// (with history and vectors) and returns their ids. The same
	// transaction clears the JournalImport entry.
	// The graph is merged in the same transaction (see GraphExport): an
	// entity already here by name is used as is, a relation already here
	// (by id, or held with the same ends) only gains the evidence.
	// Each owner's topics are merged with those held (see MergeTopics).
	ImportRows(ctx context.Context, set ImportSet) (ImportWritten, error)
	// SetJournal writes down (or, with doc "", clears) an entry of work
	// that spans the store and files; Journal reads it ("" when none).
	SetJournal(ctx context.Context, name, doc string) error
	Journal(ctx context.Context, name string) (string, error)
	// SetVectors stores new vectors; a row deleted or edited since its job
	// was listed is skipped. It returns the ids of the updated rows that
	// are live (the ones the index must hold).
	SetVectors(ctx context.Context, updates []VectorUpdate) (live []string, err error)
}

// StoreStats are the counts the status page shows.
type StoreStats struct {
	Live        map[Layer]int // live rows per layer
	Retired     int
	Unextracted int   // raw rows waiting for extraction
	Writes      int64 // acknowledged adds, ever
	Searches    int64 // searches, ever (flushed periodically)
	Vectors     map[string]int
	// Changes counts the writes committed since the store opened: it moves
	// whenever anything stored changed (an edit elsewhere too), so live
	// views know to read again.
	Changes uint64
}

// Event is something that happened, for live views (the UI's event
// stream). Type is dotted: memory.added, reembed.progress, ...
type Event struct {
	Type string    `json:"type"`
	At   time.Time `json:"at"`
	Data any       `json:"data,omitempty"`
}

// Publisher takes events; it must never block.
type Publisher interface {
	Publish(Event)
}

type discard struct{}

func (discard) Publish(Event) {}

// VectorJob is a row whose vector must be (re)made by the embedder in
// use, with the content the new vector is made from.
type VectorJob struct {
	ID      string
	Layer   Layer
	Owner   Owner
	Content string
	Live    bool
}

// VectorUpdate is a new vector for a row, valid only while the row still
// has the content it was made from.
type VectorUpdate struct {
	ID      string
	Content string
	Vector  Vector
}

// ExtractionStore is the part of the store extraction needs: the queue of
// raw rows, atomic application of a plan, the egress ledger and episodes.
type ExtractionStore interface {
	// PendingExtraction lists ids of live raw rows waiting for extraction,
	// oldest first, created at or before to with fewer than maxTries
	// tries, and created at or after from or requeued then (see
	// RequeueExtraction).
	PendingExtraction(ctx context.Context, from, to time.Time, maxTries, limit int) ([]string, error)
	// RequeueExtraction sets live raw rows pending again, with no tries,
	// noting at as when they were asked for: the given ones whatever their
	// state (unknown and non-raw ids are skipped), or with ids nil the
	// oldest max not extracted (pending, failed, or skipped in lite mode;
	// max 0: all). It returns the ids it requeued.
	RequeueExtraction(ctx context.Context, ids []string, max int, at time.Time) ([]string, error)
	// SetExtraction records where a raw row stands.
	SetExtraction(ctx context.Context, id string, state ExtractState, tries int, errText string) error
	// Apply commits every part of c in one transaction. With Extracted
	// set, that raw row must still be live and pending, else nothing is
	// applied and the error wraps ErrStaleExtraction.
	Apply(ctx context.Context, c Changes) (Cascade, error)
	// Linked lists the ids linked to id (either end).
	Linked(ctx context.Context, id string) ([]string, error)
	// AddEgress records one call to an LLM endpoint; ListEgress lists the
	// newest first.
	AddEgress(ctx context.Context, c EgressCall) error
	ListEgress(ctx context.Context, limit int) ([]EgressCall, error)
	// TouchEpisode adds a write at at to the owner's open episode, or
	// closes it (when the gap since its last write exceeds gap) and opens a
	// new one.
	TouchEpisode(ctx context.Context, o Owner, at time.Time, gap time.Duration) error
	// DueEpisodes closes open episodes whose last write is before idleBefore
	// and returns every closed episode that still needs its summary.
	DueEpisodes(ctx context.Context, idleBefore time.Time) ([]Episode, error)
	SetEpisodeSummary(ctx context.Context, seq int64, summaryID string) error
	// CloseEpisode ends the owner's open episode now (its summary becomes
	// due); false when it had none. A non-empty session closes it only if
	// it holds a write of that session.
	CloseEpisode(ctx context.Context, o Owner, session string) (bool, error)
}

// Changes is one atomic set of writes (an extraction's promotion).
type Changes struct {
	Insert []NewRow
	Update []RowUpdate
	Retire []RowRetirement // rows already retired, or gone, are left as they are
	Links  []Link
	// Extracted, when set, marks that raw row's extraction done, if it
	// still says ExtractedContent (the text that was extracted): an edit
	// while the model read the old text makes the changes stale.
	Extracted, ExtractedContent string
	// Episode, when set (an episode's seq), marks that episode summarised
	// by the first row of Insert, in the same transaction: a crash cannot
	// leave a summary whose episode would be summarised again.
	Episode int64
}

// RowUpdate is an Update of one row.
type RowUpdate struct {
	ID     string
	Update Update
}

// RowRetirement is a Retirement of one row.
type RowRetirement struct {
	ID         string
	Retirement Retirement
}

// Link relates two memories that stay separate.
type Link struct {
	A, B, Kind string
	At         time.Time
}

// EgressCall is one request to an LLM endpoint, as the ledger keeps it.
type EgressCall struct {
	At       time.Time `json:"at"`
	Host     string    `json:"host"`
	Model    string    `json:"model"`
	Purpose  string    `json:"purpose"`
	BytesOut int       `json:"bytes_out"`
	BytesIn  int       `json:"bytes_in"`
	Status   int       `json:"status"`
	Outcome  string    `json:"outcome"`
	Duration int64     `json:"duration_ms"`
}

// Episode is one stretch of an owner's work.
type Episode struct {
	Seq       int64
	Owner     Owner
	StartedAt time.Time
	LastAt    time.Time
	Writes    int
}
