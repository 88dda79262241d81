package memory

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what a write may carry. The HTTP body limit (8 MiB) bounds the
// text; these bound the parts that are indexed or shown as labels.
const (
	maxIDLen        = 256
	maxMetadataKeys = 64
	maxMetadataKey  = 128
	maxMetadataVal  = 8192
)

// AddInput is one incoming memory: a conversation turn, a note, anything an
// agent wants remembered. Only Text is required.
type AddInput struct {
	Text      string
	Owner     Owner
	SessionID string
	Metadata  map[string]string
	Source    string // "" means conversation:<session> or "api"
	// RequestID names the write: the same owner's write with the same id
	// is stored once (a write sent again because its answer was lost).
	RequestID string
}

// MetaRequestID holds a raw row's request id (AddInput.RequestID); a
// client's metadata may not set it.
const MetaRequestID = "hyatlas_request_id"

// AddResult is what a write reports.
type AddResult struct {
	Memory           Memory
	ExtractionStatus ExtractionStatus
}

// Add stores a raw (L2) row with its embedding and full-text entry and puts
// it in the vector index. It returns only after the row is durable. In pro
// and ultra the row is queued for extraction in the store, so it is
// extracted once an extractor is configured; the result says why it was
// not extracted now.
func (s *Service) Add(ctx context.Context, in AddInput) (AddResult, error) {
	if strings.TrimSpace(in.Text) == "" {
		return AddResult{}, Errorf(EBADREQUEST, "text required")
	}
	if !utf8.ValidString(in.Text) {
		return AddResult{}, Errorf(EINVALID, "text is not valid UTF-8")
	}
	owner, err := cleanOwner(in.Owner)
	if err != nil {
		return AddResult{}, err
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return AddResult{}, err
	}
	if err := checkRequestID(in.Metadata, in.RequestID); err != nil {
		return AddResult{}, err
	}
	if in.RequestID != "" {
		if prev, ok, err := s.store.RawByRequest(ctx, owner, in.RequestID); err != nil || ok {
			return s.sentBefore(ctx, prev, in, err)
		}
		in.Metadata = withRequestID(in.Metadata, in.RequestID)
	}
	session := strings.TrimSpace(in.SessionID)
	if session == "" {
		session = in.Metadata["session_id"]
	}
	if err := checkLabel("session_id", session); err != nil {
		return AddResult{}, err
	}

	now := s.now().UTC()
	m := Memory{
		ID:        NewID(now),
		Layer:     LayerRaw,
		Content:   in.Text,
		Owner:     owner,
		SessionID: session,
		Strength:  DefaultStrength,
		Source:    sourceOf(in.Source, session),
		Metadata:  in.Metadata,
		EventAt:   now,
		CreatedAt: now,
		UpdatedAt: now,
	}
	status := s.extractionStatus()
	m.Extraction = ExtractSkipped
	if s.cfg.Mode.UsesLLM() {
		m.Extraction = ExtractPending
	}

	vec, err := s.embedOne(ctx, m.Content, PurposeDocument)
	if err != nil {
		return AddResult{}, err
	}
	if in.RequestID != "" {
		// The same request sent twice at once: one of them writes.
		s.requests.Lock()
		prev, ok, err := s.store.RawByRequest(ctx, owner, in.RequestID)
		if err == nil && !ok {
			err = s.insertRaw(ctx, m, vec)
		}
		s.requests.Unlock()
		if err != nil || ok {
			return s.sentBefore(ctx, prev, in, err)
		}
	} else if err := s.insertRaw(ctx, m, vec); err != nil {
		return AddResult{}, err
	}
	if status == StatusPending {
		if s.cfg.Extraction.Sync && (s.paused == nil || !s.paused()) {
			status = s.extractNow(ctx, m.ID)
		} else {
			s.enqueue(m.ID)
		}
	}
	return AddResult{Memory: m, ExtractionStatus: status}, nil
}

// sentBefore answers a write whose request id the owner sent before
// with the row that write stored (prev, as it is now) and how its
// extraction stands, storing nothing; err is the lookup's. The repeat is
// of the text the row was stored with, which an edit in the Atlas may
// have changed since. A request id used before for another text is an
// ECONFLICT error: that is no repeat.
func (s *Service) sentBefore(ctx context.Context, prev Memory, in AddInput, err error) (AddResult, error) {
	if err == nil {
		err = s.sameRequest(ctx, prev, in.Text, in.RequestID)
	}
	if err != nil {
		return AddResult{}, err
	}
	st := s.extractionStatus() // pending, or why it cannot run now
	switch prev.Extraction {
	case ExtractDone:
		st = StatusDone
	case ExtractFailed:
		st = StatusFailed
	case ExtractSkipped:
		st = StatusSkipped
	}
	return AddResult{Memory: prev, ExtractionStatus: st}, nil
}

// checkRequestID checks a write's request id and the metadata it is to
// be kept in (as MetaRequestID, a key of HyAtlas's own, one more than the
// client's: a row has at most maxMetadataKeys, or its export would not
// import).
func checkRequestID(md map[string]string, req string) error {
	if _, ok := md[MetaRequestID]; ok {
		return Errorf(EINVALID, "metadata key %s is HyAtlas's own: give request_id", MetaRequestID)
	}
	if err := checkLabel("request_id", req); err != nil {
		return err
	}
	if req != "" && len(md) >= maxMetadataKeys {
		return Errorf(EINVALID, "metadata has %d keys; with request_id at most %d are allowed", len(md), maxMetadataKeys-1)
	}
	return nil
}

// withRequestID is a copy of md that also holds the request id.
func withRequestID(md map[string]string, req string) map[string]string {
	md = maps.Clone(md)
	if md == nil {
		md = map[string]string{}
	}
	md[MetaRequestID] = req
	return md
}

// sameRequest refuses, as ECONFLICT, a repeat of request req (whose row
// prev a write stored before) that is no repeat: another text than the
// one prev was stored with (an edit in the Atlas may have changed it
// since).
func (s *Service) sameRequest(ctx context.Context, prev Memory, text, req string) error {
	stored, err := s.storedText(ctx, prev)
	if err != nil {
		return err
	}
	if stored != text {
		return Errorf(ECONFLICT, "request_id %q was sent before with another text", req)
	}
	return nil
}

// storedText is the text a row was first stored with: the text before
// its first edit, or its content when it was never edited.
func (s *Service) storedText(ctx context.Context, m Memory) (string, error) {
	hist, err := s.store.History(ctx, m.ID)
	if err != nil {
		return "", fmt.Errorf("read the history of %s: %w", m.ID, err)
	}
	for _, h := range hist { // oldest first
		if h.Action == HistoryEdited && h.OldContent != "" {
			return h.OldContent, nil
		}
	}
	return m.Content, nil
}

// insertRaw commits a raw row and indexes it.
func (s *Service) insertRaw(ctx context.Context, m Memory, vec Vector) error {
	s.indexSync.RLock()
	defer s.indexSync.RUnlock()
	vec, err := s.currentVector(ctx, vec, m.Content)
	if err != nil {
		return err
	}
	if err := s.store.Insert(ctx, NewRow{Memory: m, Vector: vec}); err != nil {
		return fmt.Errorf("store raw row: %w", err)
	}
	s.indexRow(m, vec)
	s.publish("memory.added", m)
	s.noteEpisode(ctx, m)
	return nil
}

// extractionStatus is what a write reports before its extraction: lite
// skips it; pro and ultra queue every write (so nothing is lost), and say
// pending when an extractor can run, else why it cannot yet.
func (s *Service) extractionStatus() ExtractionStatus {
	if !s.cfg.Mode.UsesLLM() {
		return StatusSkipped
	}
	switch s.llmState() {
	case LLMOK:
		if s.extractor != nil {
			return StatusPending
		}
		return StatusUnconfigured
	case LLMAwaitingKey:
		return StatusAwaitingKey
	default:
		return StatusUnconfigured
	}
}

// conversationSource prefixes a session id to make a row's source; a
// source is therefore at most maxSourceLen bytes.
const (
	conversationSource = "conversation:"
	maxSourceLen       = len(conversationSource) + maxIDLen
)

func sourceOf(source, session string) string {
	switch {
	case source != "":
		return source
	case session != "":
		return conversationSource + session
	default:
		return "api"
	}
}

// cleanOwner trims the owner ids, fills in the default user and checks them
// ("all" is reserved).
func cleanOwner(o Owner) (Owner, error) {
	o.UserID = strings.TrimSpace(o.UserID)
	o.AgentID = strings.TrimSpace(o.AgentID)
	if o.UserID == "" {
		o.UserID = DefaultUserID
	}
	if err := checkLabel("user_id", o.UserID); err != nil {
		return Owner{}, err
	}
	if err := checkLabel("agent_id", o.AgentID); err != nil {
		return Owner{}, err
	}
	if o.UserID == reservedOwner || o.AgentID == reservedOwner {
		return Owner{}, Errorf(EINVALID, "%q is reserved: in graph views it means every user or agent; choose another id", reservedOwner)
	}
	return o, nil
}

// reservedOwner is no user's or agent's id: graph reads take it as "every".
// Writes refuse it; an import takes it (an export of data written before
// it was reserved must import).
const reservedOwner = "all"

// checkLabel validates an identifier-like field: at most 256 bytes of
// valid UTF-8 without control characters.
func checkLabel(field, v string) error { return checkLabelLen(field, v, maxIDLen) }

// checkLabelLen is checkLabel with a length of its own.
func checkLabelLen(field, v string, max int) error {
	if len(v) > max {
		return Errorf(EINVALID, "%s is longer than %d bytes", field, max)
	}
	if !utf8.ValidString(v) || strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return Errorf(EINVALID, "%s has invalid characters", field)
	}
	return nil
}

// checkMetadata checks metadata a client gives (values of at most
// maxMetadataVal bytes); checkStoredMetadata, with maxVal, checks metadata
// the engine wrote itself (an entity page's record), as an import does.
func checkMetadata(md map[string]string) error { return checkStoredMetadata(md, maxMetadataVal) }

func checkStoredMetadata(md map[string]string, maxVal int) error {
	if len(md) > maxMetadataKeys {
		return Errorf(EINVALID, "metadata has %d keys; at most %d are allowed", len(md), maxMetadataKeys)
	}
	for k, v := range md {
		if k == "" || len(k) > maxMetadataKey || !utf8.ValidString(k) {
			return Errorf(EINVALID, "metadata key %q must be 1-%d bytes of UTF-8", k, maxMetadataKey)
		}
		if len(v) > maxVal || !utf8.ValidString(v) {
			return Errorf(EINVALID, "metadata value of %q must be at most %d bytes of UTF-8", k, maxVal)
		}
	}
	return nil
}
