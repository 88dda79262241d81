package memory

import (
	"context"
	"time"
)

// Consolidation is the ultra slow path. A pass runs per owner (a person:
// an alias group is one owner) over topic clusters of their L3 facts:
//
//   - A fact joins the cluster of its nearest clustered neighbour (cosine
//     ≥ ClusterJoin) while that cluster has room (Batch facts), else the
//     newest cluster, else a new one. Clusters persist between passes.
//   - A cluster is due when a fact joined it since its last successful
//     call and it has at least two live facts. Each due cluster is one LLM
//     call that returns merges, drops with reasons, schemas, relations and
//     the owner's arc; every proposal passes a guard before it is written.
//   - Merged and dropped facts are retired (merged, dropped + reason),
//     never deleted, so Restore undoes them. Progress is saved after every
//     cluster.
//   - A cluster whose call fails three passes in a row (a timeout, a 5xx,
//     an unreadable or refused reply) is skipped until a fact joins it or
//     a day passes. An endpoint that is down for any request
//     (ErrEndpointDown: no connection, the key, a rate limit) is never
//     charged to a cluster; nor is any failure when two or more calls of a
//     pass fail and none succeeds (the provider is taken to be down). A
//     pass starts no more calls once it sees either: the clusters left
//     stay due, uncharged.

// Consolidation guards and bounds.
const (
	ClusterJoin       = 0.55 // a fact joins its nearest neighbour's cluster at this cosine
	MergeSimilarity   = 0.65 // every pair of merged facts is at least this similar
	SchemaDuplicate   = 0.92 // a schema this similar to a live one is not written
	EdgeMinTurns      = 2    // a relation needs evidence from this many distinct turns
	ClusterMaxFails   = 3    // failed passes in a row before a cluster is skipped
	ClusterSkipFor    = 24 * time.Hour
	consolidateText   = 400 // runes of a fact sent to the model
	consolidateSchema = 200 // runes of an existing schema sent with a cluster
	maxClusterSchemas = 20  // existing schemas sent with a cluster
	crossSchemaText   = 300 // runes of a schema sent to the cross-topic call
	maxCrossSchemas   = 40  // schemas sent to the cross-topic call, newest first
	maxCrossPatterns  = 3   // cross-topic patterns written per call
	crossMinSchemas   = 4   // live schemas an owner needs for a cross-topic pass
	crossMinTopics    = 2   // ... from at least this many clusters
	minCallEstimate   = 3 * time.Minute
	recentCalls       = 20 // successful call durations kept for the estimate
)

// Metadata keys written by consolidation.
const (
	MetaTopic       = "topic"       // the cluster a schema or relation came from
	MetaCross       = "cross_topic" // "true" on a schema that spans topics
	MetaRelation    = "relation_id" // the graph relation an L5 row states
	MetaMergedFrom  = "merged_from" // the facts a merged fact replaced, comma-separated
	MetaArc         = "arc"         // "true" on the owner's rolling arc (L4)
	sourceConsol    = SourceConsolidation
	categoryArc     = "arc"
	categoryPattern = "pattern"
)

// ConsolidateConfig tunes the slow path. Zero durations disable what they
// time.
type ConsolidateConfig struct {
	// Batch is the most facts in one cluster, one call
	// (HYATLAS_CONSOLIDATE_BATCH, 50).
	Batch int
	// Parallel is how many calls run at once (HYATLAS_CONSOLIDATE_PARALLEL,
	// 2; 1 to 4).
	Parallel int
	// Budget is how long one pass may run (10 minutes): no call starts
	// when less time is left than a call is expected to take.
	Budget time.Duration
	// Recluster rebuilds an owner's clusters after this long
	// (HYATLAS_CONSOLIDATE_RECLUSTER; 0 never).
	Recluster time.Duration
	// Graph asks for relations and the arc (HYATLAS_CONSOLIDATE_GRAPH, on).
	Graph bool
	// CrossEvery is the least time between two cross-topic passes of one
	// owner (HYATLAS_CROSS_SCHEMA_EVERY, 24h; 0 off).
	CrossEvery time.Duration
	// RawRetention deletes raw rows older than this that nothing live
	// cites (HYATLAS_RAW_RETENTION; 0 never).
	RawRetention time.Duration
}

// Consolidator is the LLM side of consolidation (the extract package
// implements it). Errors wrap ErrProvider, ErrUnparseable or ErrRejected.
type Consolidator interface {
	Consolidate(ctx context.Context, req ConsolidateRequest) (ConsolidatePlan, error)
	CrossSchemas(ctx context.Context, req CrossSchemaRequest) ([]PlannedSchema, error)
}

// ConsolidateRequest is one cluster, as the model is shown it.
type ConsolidateRequest struct {
	Today   time.Time
	Facts   []ClusterFact
	Schemas []ShownSchema
	// Graph asks for relations and the arc; Arc is the current arc.
	Graph bool
	Arc   string
}

// ClusterFact is a fact with its id and the turns it came from.
type ClusterFact struct {
	ID      string
	Text    string
	EventAt time.Time
	Turns   []string
}

// ShownSchema is an existing schema shown with its id.
type ShownSchema struct {
	ID   string
	Text string
}

// ConsolidatePlan is the model's proposal for one cluster. Nothing in it
// is trusted: the Service checks each part against the cluster.
type ConsolidatePlan struct {
	Merges  []PlannedMerge
	Drops   []PlannedDrop
	Schemas []PlannedSchema
	Edges   []PlannedEdge
	Arc     string
}

// PlannedMerge folds several facts into one new text.
type PlannedMerge struct {
	IDs  []string
	Text string
}

// PlannedDrop retires a fact no longer useful; a drop needs a reason.
type PlannedDrop struct {
	ID     string
	Reason string
}

// PlannedSchema is a recurring pattern with the facts (or, cross-topic,
// the schemas) behind it.
type PlannedSchema struct {
	Text     string
	Evidence []string
}

// PlannedEdge is a relation between two entities, with the facts that
// show it.
type PlannedEdge struct {
	From, To         string
	FromType, ToType string
	Relation         string
	Exclusive        bool
	ValidFrom        time.Time // zero: from the evidence's event dates
	Evidence         []string
}

// CrossSchemaRequest is an owner's schemas, newest first.
type CrossSchemaRequest struct {
	Today   time.Time
	Schemas []ShownSchema
}

// ConsolidationReport is what one pass did (the wire contract's report).
type ConsolidationReport struct {
	FactsIn         int `json:"facts_in"`
	OwnersRun       int `json:"owners_run"`
	OwnersUnchanged int `json:"owners_unchanged"`
	SkippedOwners   int `json:"skipped_owners_count"`
	// SkippedOwnerKeys are the owners whose due topics were all skipped
	// (the public contract's skipped_owners, a list; absent when none).
	SkippedOwnerKeys []string `json:"skipped_owners,omitempty"`
	ClustersRun      int      `json:"clusters_run"`
	ClustersPending  int      `json:"clusters_pending"`
	Merged           int      `json:"merged"`
	Edges            int      `json:"edges"`
	Dropped          int      `json:"dropped"`
	Schemas          int      `json:"schemas"`
	CrossSchemas     int      `json:"cross_schemas"`
	Arc              int      `json:"arcs"` // arcs written
	// ArcWritten: an arc was written (the public contract's arc, a bool).
	ArcWritten bool `json:"arc"`
	// Refused counts the parts of the replies that failed a guard and
	// were ignored (a merge of unrelated facts, a drop without a reason,
	// a relation on one turn, ...).
	Refused      int      `json:"refused"`
	PrunedRaw    int      `json:"pruned_raw"`
	ProtectedRaw int      `json:"protected_raw"`
	DurationMS   int64    `json:"duration_ms"`
	Errors       []string `json:"errors"`
	// ProviderDown says the pass stopped charging failures because no
	// call got through.
	ProviderDown bool      `json:"provider_down,omitempty"`
	StartedAt    time.Time `json:"started_at"`
}

// ConsolidationStore keeps each owner's clusters between passes and finds
// raw rows that retention may delete.
type ConsolidationStore interface {
	// LoadClusters reads an owner's state (zero value when none).
	LoadClusters(ctx context.Context, owner string) (OwnerClusters, error)
	// SaveClusters replaces an owner's state.
	SaveClusters(ctx context.Context, owner string, c OwnerClusters) error
	// AllClusters reads every owner's state, by owner key.
	AllClusters(ctx context.Context) ([]OwnerTopics, error)
	// UncitedRaw lists up to limit live or retired raw rows created before
	// cutoff that no held relation cites and no live L1/L3 row was
	// extracted from; protected counts the old rows that are cited.
	UncitedRaw(ctx context.Context, cutoff time.Time, limit int) (ids []string, protected int, err error)
}

// OwnerClusters is an owner's consolidation state.
type OwnerClusters struct {
	Clusters    []Cluster `json:"clusters"`
	NextSeq     int       `json:"next_seq"`
	ClusteredAt time.Time `json:"clustered_at"` // when the clusters were last rebuilt
	CrossAt     time.Time `json:"cross_at"`     // the last cross-topic pass
}

// Cluster is one topic: its facts and where its calls stand.
type Cluster struct {
	ID      string   `json:"id"`
	Members []string `json:"members"`
	// Dirty: a fact joined since the last successful call.
	Dirty    bool      `json:"dirty"`
	OKAt     time.Time `json:"ok_at"`
	Fails    int       `json:"fails"`
	FailedAt time.Time `json:"failed_at"`
	LastErr  string    `json:"last_error,omitempty"`
}
