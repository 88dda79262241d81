package memory

import "time"

// Memory is one row of memory, in any layer.
//
// Time runs on two axes. Valid time says when the content was true in the
// world: EventAt (valid from), ValidTo, and DueAt for intentions. Recorded
// time says when the app learned it (CreatedAt) and when it stopped believing
// it (RetiredAt). A zero time.Time means "not set".
//
// Retirement never deletes: a retired row keeps its content and embedding,
// records how and why it was retired and, if another row replaced it, which
// one (RetiredBy). Restore reverses exactly that and records that it did.
type Memory struct {
	ID        string            `json:"id"`
	Layer     Layer             `json:"layer"`
	Content   string            `json:"content"`
	Owner     Owner             `json:"owner"`
	SessionID string            `json:"session_id,omitempty"`
	Category  string            `json:"category,omitempty"`
	Strength  float64           `json:"strength"`
	Source    string            `json:"source,omitempty"`
	SourceIDs []string          `json:"source_ids,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`

	EventAt time.Time `json:"event_at"`
	ValidTo time.Time `json:"valid_to"`
	DueAt   time.Time `json:"due_at"`

	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`

	RetiredAt    time.Time `json:"retired_at"`
	RetiredBy    string    `json:"retired_by,omitempty"`
	RetiredHow   RetireHow `json:"retired_how,omitempty"`
	RetireReason string    `json:"retire_reason,omitempty"`

	UseCount   int       `json:"use_count"` // at most MaxUseCount: counting stops there
	LastUsedAt time.Time `json:"last_used_at"`

	Extraction   ExtractState `json:"extraction"`
	ExtractTries int          `json:"extract_tries,omitempty"`
	ExtractError string       `json:"extract_error,omitempty"`
}

// Live reports whether the row is not retired.
func (m Memory) Live() bool { return m.RetiredAt.IsZero() }

// DefaultStrength is the strength of a new curated memory.
const DefaultStrength = 0.5

// RetireHow says how a row was retired.
type RetireHow string

// The ways a row can be retired.
const (
	RetiredReplaced  RetireHow = "replaced"  // a newer row says the value changed
	RetiredUpdated   RetireHow = "updated"   // a newer row folds in new detail
	RetiredMerged    RetireHow = "merged"    // consolidation merged it into another
	RetiredRestated  RetireHow = "restated"  // a near-identical row superseded it
	RetiredDropped   RetireHow = "dropped"   // judged no longer useful, with a reason
	RetiredDone      RetireHow = "done"      // an intention that was completed
	RetiredForgotten RetireHow = "forgotten" // the user or agent asked to forget it
	RetiredCompacted RetireHow = "compacted" // folded into a compacted summary
	// RetiredWrong: the person says it was never true. Taking back the last
	// fact of a relation this way reopens what the relation ended.
	RetiredWrong RetireHow = "wrong"
)

var retireHows = map[RetireHow]bool{
	RetiredReplaced: true, RetiredUpdated: true, RetiredMerged: true, RetiredRestated: true,
	RetiredDropped: true, RetiredDone: true, RetiredForgotten: true, RetiredCompacted: true, RetiredWrong: true,
}

// ParseRetireHow validates a retirement kind; "" means def.
func ParseRetireHow(s string, def RetireHow) (RetireHow, error) {
	if s == "" {
		return def, nil
	}
	h := RetireHow(s)
	if !retireHows[h] {
		return "", Errorf(EINVALID, "unknown retirement kind %q (valid: replaced, updated, merged, restated, dropped, done, forgotten, compacted, wrong)", s)
	}
	return h, nil
}

// ExtractState is where a raw row stands with LLM extraction. Rows are
// queued in the store, so a crash or a missing key never loses the work.
type ExtractState string

// Extraction states.
const (
	ExtractSkipped ExtractState = "skipped" // lite mode, or not a raw row
	ExtractPending ExtractState = "pending" // waiting for the extractor
	ExtractDone    ExtractState = "done"
	ExtractFailed  ExtractState = "failed"
)

// Retirement describes one retire operation.
type Retirement struct {
	How    RetireHow
	Reason string
	By     string // the id of the row that replaced it, if any
	At     time.Time
}

// HistoryAction names an entry in a memory's history.
type HistoryAction string

// History actions.
const (
	HistoryRetired  HistoryAction = "retired"
	HistoryRestored HistoryAction = "restored"
	HistoryEdited   HistoryAction = "edited"
)

// HistoryEntry is one recorded change to a memory: every retire, restore and
// edit writes one, in the same transaction as the change.
type HistoryEntry struct {
	MemoryID   string        `json:"memory_id"`
	At         time.Time     `json:"at"`
	Action     HistoryAction `json:"action"`
	How        RetireHow     `json:"how,omitempty"`
	Reason     string        `json:"reason,omitempty"`
	By         string        `json:"by,omitempty"`
	OldContent string        `json:"old_content,omitempty"`
	Detail     string        `json:"detail,omitempty"`
}

// MaxUseCount bounds a memory's use count (and an import's extract
// tries): counting stops there, so the column never outgrows an integer.
const MaxUseCount = 1_000_000_000
