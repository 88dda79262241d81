package memory

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Config holds the Service's settings. Zero values are not defaults: the
// composition root fills every field from backend/config.
type Config struct {
	Mode    Mode
	Aliases Aliases
	// MinScore is the vector floor (HYATLAS_MIN_SCORE); negative means
	// "use the embedder's calibrated default".
	MinScore float64
	// Admin enables whole-store bulk deletes (HYATLAS_ADMIN=on).
	Admin bool
	// Extraction tunes extraction (pro and ultra).
	Extraction ExtractionConfig
	// Search tunes recall.
	Search SearchConfig
	// Consolidate tunes the slow path (ultra).
	Consolidate ConsolidateConfig
	// Strength is the strength model; the zero value means its defaults.
	Strength StrengthConfig
	// CompactThreshold keeps each person's live facts at or under this
	// (HYATLAS_AUTO_COMPACT_THRESHOLD; 0 off).
	CompactThreshold int
}

// SearchConfig tunes recall. The zero value turns every option off.
type SearchConfig struct {
	// Recency lets newer memories win close calls (HYATLAS_RECENCY, on).
	Recency bool
	// UsageLearning lets memories replies used rank higher
	// (HYATLAS_USAGE_LEARNING, on).
	UsageLearning bool
	// MMRLambda is the relevance weight of the diversity pass
	// (HYATLAS_MMR_LAMBDA, 0.75); 0 or 1 turns it off.
	MMRLambda float64
	// IntentionTTL hides undated intentions older than this
	// (HYATLAS_INTENTION_TTL, 168h; 0 keeps them all).
	IntentionTTL time.Duration
}

// ExtractionConfig tunes extraction. Zero durations disable what they time.
type ExtractionConfig struct {
	// Sync makes a write wait for its extraction (HYATLAS_SYNC_EXTRACT;
	// pro by default), at most SyncWait (0: 25 s); past it the write
	// answers pending and the workers extract it.
	Sync     bool
	SyncWait time.Duration
	// DedupeScore: a new fact this similar to the owner's nearest live fact,
	// with the same numbers, restates it (HYATLAS_DEDUPE_SCORE, 0.92; 0 off).
	DedupeScore float64
	// RelatedMin is the similarity a stored fact needs to be shown to the
	// model as related (0.70).
	RelatedMin float64
	// Reconcile runs the second, pairwise call (HYATLAS_RECONCILE).
	Reconcile bool
	// EpisodeGap ends an episode of work (HYATLAS_EPISODE_GAP, 30m).
	EpisodeGap time.Duration
	// NowEvery is the least time between two calls for an owner's Now
	// page, a failed one included (HYATLAS_NOW_EVERY, 15m; 0 rebuilds
	// after every write).
	NowEvery time.Duration
	// NowOff disables the Now page.
	NowOff bool
	// Location is the owners' time zone, for "today" in prompts.
	Location *time.Location
}

// Deps are the parts the Service consumes. All fields are required except
// Now (default time.Now) and Events (default: events are dropped).
type Deps struct {
	Store    Store
	Index    VectorIndex
	Embedder Embedder
	Events   Publisher
	Now      func() time.Time

	// Extraction (pro and ultra). Without an Extractor, writes are queued
	// for a later one.
	Extractor    Extractor
	ExtractStore ExtractionStore
	// LLMState says whether the endpoint can be used now (a key can arrive
	// at any time); nil means unconfigured.
	LLMState func() LLMState
	// Enqueue hands a raw row to the extraction workers (asynchronous
	// extraction); nil leaves it to the catch-up loop.
	Enqueue func(id string)
	// Paused says the person paused extraction (the tray): a write that
	// would wait for its extraction is queued instead, and nothing is sent
	// until they resume. nil: never paused.
	Paused func() bool
	// Graph gives related memories for graph-assisted recall; nil turns
	// that stage off.
	Graph GraphReader
	// GraphStore keeps the knowledge graph; nil: no graph (its calls
	// answer unavailable).
	GraphStore GraphStore

	// Consolidator and ConsolidationStore run the slow path (ultra); nil:
	// no consolidation.
	Consolidator       Consolidator
	ConsolidationStore ConsolidationStore

	// Workspace keeps the agents' SOUL.md, MEMORY.md and USER.md; nil: its
	// calls answer unavailable.
	Workspace Workspace
	// KickReembed asks for a re-embedding pass (after an import brought
	// rows without a vector of the embedder in use); nil: none.
	KickReembed func()
}

// Service implements write, recall, retire, restore and curation over a
// Store (the system of record) and a VectorIndex (a cache of the store's
// vectors). Every method is safe for concurrent use.
//
// Consistency rule: a change is committed to the store first, then applied
// to the index, and both happen under indexSync. Adds create new ids, so
// they hold the read lock and run side by side; every change to an
// existing row (edit, retire, restore, delete) holds the write lock, so two
// changes to one row can never apply to the index in another order than
// they committed. Ready holds the write lock too, so it sees the two agree
// whenever no change is half applied. Nothing takes indexSync twice.
type Service struct {
	cfg      Config
	requests sync.Mutex // a write's request-id check and insert (see Add)
	store    Store
	events   Publisher
	now      func() time.Time
	emb      atomic.Pointer[embedding]

	extractor Extractor
	xstore    ExtractionStore
	llmState  func() LLMState
	paused    func() bool
	enqueue   func(id string)
	graph     GraphReader
	// graphStore keeps the knowledge graph (nil: none); graphCopy is its
	// nodes and records in memory, reloaded when the store's version moves.
	graphStore GraphStore
	graphCopy  graphCache
	// consolidator and cstore run the slow path; consol is its state.
	consolidator Consolidator
	cstore       ConsolidationStore
	consol       consolidationRuns
	workspace    Workspace
	kickReembed  func()
	// extracting holds the ids being extracted (each is done once);
	// ownerLocks serialise extraction per person; nowDirty holds the
	// persons and agents whose Now page is out of date (nowOwner -> the
	// Owner who wrote last); nowTried when each last asked for its page
	// (nowOwner -> time.Time), whether the call succeeded or not.
	extracting sync.Map // id -> *inflight
	ownerLocks sync.Map // user id -> chan struct{} (capacity 1: a lock a waiter can give up on)
	nowDirty   sync.Map
	nowTried   sync.Map
	// episodeTried is when each episode's summary was last asked for
	// (episode seq -> time.Time), until it is settled.
	episodeTried sync.Map
	// nowStaleChecked: the first housekeeping pass since the start has
	// marked the Now pages a change before the stop left stale.
	nowStaleChecked atomic.Bool
	contacts        contacts
	// lastExtractErr is the error of the last extraction that failed,
	// nil once one succeeds after it (see WritePipeline).
	lastExtractErr atomic.Pointer[string]
	// storageChecked is when StorageFault last probed a faulty store
	// (Unix nanoseconds).
	storageChecked atomic.Int64
	// consolidating is the running pass's progress (nil: none runs).
	consolidating atomic.Pointer[ConsolidationProgress]

	indexSync sync.RWMutex
	// importing lets one import write at a time: imports share the
	// JournalImport entry that lets a crash's files be taken back. It is
	// taken before indexSync.
	importing sync.Mutex
	// storeGen counts the restores that replaced the store (ReplaceStore
	// moves it under indexSync). Background work notes it before it reads
	// and writes only while it is unchanged (see writeGen), so a result
	// worked out from the data before a restore never lands in the data
	// after it.
	storeGen        atomic.Uint64
	indexFaults     atomic.Int64
	pendingSearches atomic.Int64
	reembedStatus   reembedState
}

// NewService checks deps and returns a Service.
func NewService(cfg Config, d Deps) (*Service, error) {
	if d.Store == nil || d.Index == nil || d.Embedder == nil {
		return nil, fmt.Errorf("memory: NewService needs a store, an index and an embedder")
	}
	if _, err := ParseMode(string(cfg.Mode), ""); err != nil || cfg.Mode == "" {
		return nil, fmt.Errorf("memory: invalid mode %q", cfg.Mode)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Events == nil {
		d.Events = discard{}
	}
	if d.LLMState == nil {
		d.LLMState = func() LLMState { return LLMUnconfigured }
	}
	if d.Enqueue == nil {
		d.Enqueue = func(string) {}
	}
	if d.KickReembed == nil {
		d.KickReembed = func() {}
	}
	if d.Extractor != nil && d.ExtractStore == nil {
		return nil, fmt.Errorf("memory: an extractor needs an extraction store")
	}
	if cfg.Extraction.Location == nil {
		cfg.Extraction.Location = time.Local
	}
	if d.Consolidator != nil && (d.ExtractStore == nil || d.ConsolidationStore == nil) {
		return nil, fmt.Errorf("memory: a consolidator needs an extraction store and a consolidation store")
	}
	if cfg.Strength == (StrengthConfig{}) {
		cfg.Strength = DefaultStrengthConfig()
	}
	c := &cfg.Consolidate
	if c.Batch < 2 {
		c.Batch = 50
	}
	c.Parallel = max(1, min(c.Parallel, 4))
	if c.Budget <= 0 {
		c.Budget = 10 * time.Minute
	}
	s := &Service{cfg: cfg, store: d.Store, events: d.Events, now: d.Now, extractor: d.Extractor,
		xstore: d.ExtractStore, llmState: d.LLMState, paused: d.Paused, enqueue: d.Enqueue, graph: d.Graph, graphStore: d.GraphStore,
		consolidator: d.Consolidator, cstore: d.ConsolidationStore, workspace: d.Workspace,
		kickReembed: d.KickReembed}
	s.emb.Store(&embedding{embedder: d.Embedder, index: d.Index, calls: &embedderCalls{}})
	if d.GraphStore != nil {
		d.GraphStore.UsePeople(func(user string) []string { return cfg.Aliases.Expand(user) })
	}
	return s, nil
}

// Embedder is the embedder in use.
func (s *Service) Embedder() Embedder { return s.current().embedder }

// Config returns the service's settings.
func (s *Service) Config() Config { return s.cfg }

// LLMState is the extraction endpoint's state now.
func (s *Service) LLMState() LLMState {
	if !s.cfg.Mode.UsesLLM() {
		return LLMUnused
	}
	return s.llmState()
}

// pausedNow reports whether the person paused extraction (the tray's
// Pause). Background runs check it before each call, not only as they
// start: a pause stops them, leaving the rest waiting for the resume.
func (s *Service) pausedNow() bool { return s.paused != nil && s.paused() }

// EmbedderInfo describes the embedder in use.
func (s *Service) EmbedderInfo() EmbedderInfo { return s.current().embedder.Info() }

// MinScore is the vector floor in effect when a request gives none.
func (s *Service) MinScore() float64 {
	if s.cfg.MinScore < 0 {
		return gateScore(s.current().embedder.Info())
	}
	return s.cfg.MinScore
}

// Stats are the numbers the status page shows.
type Stats struct {
	StoreStats
	IndexLen int
	// IndexFaults counts index updates that failed after their row was
	// committed; the row is safe and the index is rebuilt at start.
	IndexFaults int64
	Reembed     ReembedProgress
	// GraphNodes and GraphEdges count the knowledge graph's nodes and
	// held relations, all owners.
	GraphNodes, GraphEdges int
	// Consolidating is the pass running now, if one is.
	Consolidating ConsolidationProgress
}

// ConsolidationProgress is how far the running consolidation pass is:
// Total topics due (0 while it is still finding them) and Done of them.
type ConsolidationProgress struct {
	Running bool `json:"running"`
	Done    int  `json:"done"`
	Total   int  `json:"total"`
}

// Stats reads the store's counts, the graph's and the index size.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	st, err := s.store.Stats(ctx)
	if err != nil {
		return Stats{}, fmt.Errorf("read store stats: %w", err)
	}
	st.Searches += s.pendingSearches.Load()
	nodes, edges, err := s.GraphCounts(ctx)
	if err != nil {
		return Stats{}, err
	}
	out := Stats{StoreStats: st, IndexLen: s.current().index.Len(), IndexFaults: s.indexFaults.Load(),
		Reembed: s.reembedStatus.progress(), GraphNodes: nodes, GraphEdges: edges}
	if p := s.consolidating.Load(); p != nil {
		out.Consolidating = *p
	}
	return out, nil
}

// Ready does a real round trip through every part: it embeds a probe text,
// searches the index with it, writes and reads the store, and checks that
// the index holds exactly the store's live vectors. It returns an
// EUNAVAILABLE error that names the part that failed.
func (s *Service) Ready(ctx context.Context) error {
	cur := s.acquire()
	defer cur.done()
	info := cur.embedder.Info()
	vecs, err := cur.embedder.Embed(ctx, []string{"readiness probe"}, PurposeQuery)
	if err != nil {
		return Errorf(EUNAVAILABLE, "embedder %s failed: %v", info.ID, err)
	}
	if len(vecs) != 1 || len(vecs[0]) != info.Dims || !usable(vecs[0]) {
		return Errorf(EUNAVAILABLE, "embedder %s returned a malformed vector", info.ID)
	}
	if _, err := cur.index.Search(ctx, vecs[0], 1, VectorFilter{}); err != nil {
		return Errorf(EUNAVAILABLE, "vector index failed: %v", err)
	}
	if err := s.store.Probe(ctx); err != nil {
		return Errorf(EUNAVAILABLE, "store failed a write/read round trip: %v", err)
	}
	s.indexSync.Lock()
	defer s.indexSync.Unlock()
	st, err := s.store.Stats(ctx)
	if err != nil {
		return Errorf(EUNAVAILABLE, "store stats failed: %v", err)
	}
	if n, want := s.current().index.Len(), st.Vectors[s.current().embedder.Info().ID]; n != want {
		return Errorf(EUNAVAILABLE, "vector index holds %d rows but the store has %d live vectors", n, want)
	}
	return nil
}

// Flush writes counters that are kept in memory (searches, last contacts). Writes themselves are
// durable when acknowledged and need no flush.
func (s *Service) Flush(ctx context.Context) error {
	if s.cannotStore(ctx) {
		return nil // counts stay in memory: a quit on a read-only or full disk is no failure
	}
	if err := s.flushContacts(ctx); err != nil {
		return err
	}
	n := s.pendingSearches.Swap(0)
	if n == 0 {
		return nil
	}
	if err := s.store.AddCounter(ctx, "searches", n); err != nil {
		s.pendingSearches.Add(n)
		return fmt.Errorf("flush search counter: %w", err)
	}
	return nil
}

// countSearch counts one search and writes the counter every 64 searches.
func (s *Service) countSearch(ctx context.Context) {
	if s.pendingSearches.Add(1) >= 64 {
		_ = s.Flush(ctx) // best effort; the next flush retries
	}
}

// usable reports whether v can be indexed: finite and not all zero.
func usable(v []float32) bool {
	nonZero := false
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
		nonZero = nonZero || x != 0
	}
	return nonZero
}

// indexRow puts a committed live row in the index, if its vector was made
// by the embedder in use (after a switch, Reembed makes a new one). A
// failure cannot lose the row (it is already durable); it is counted,
// Ready reports the mismatch, and the index is rebuilt at the next start.
func (s *Service) indexRow(m Memory, v Vector) {
	cur := s.current()
	if v.Embedder != cur.embedder.Info().ID {
		return
	}
	if err := cur.index.Upsert(indexEntry(m.ID, m.Layer, m.Owner, v)); err != nil {
		s.indexFaults.Add(1)
	}
}

// publish sends an event about a memory to live views.
func (s *Service) publish(kind string, m Memory) {
	s.events.Publish(Event{Type: kind, At: s.now().UTC(), Data: map[string]any{
		"id": m.ID, "layer": m.Layer, "user_id": m.Owner.UserID, "agent_id": m.Owner.AgentID,
	}})
}
