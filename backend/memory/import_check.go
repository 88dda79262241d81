package memory

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// checkImported validates one memory record.
func checkImported(l exportLine) (ExportRow, error) {
	m := l.Memory
	if m == nil {
		return ExportRow{}, fmt.Errorf("a memory record without its memory")
	}
	switch {
	case strings.TrimSpace(m.ID) != m.ID:
		return ExportRow{}, fmt.Errorf("memory %q: an id must not begin or end with spaces (it could not be reached by it)", m.ID)
	case m.ID == "" || checkLabel("id", m.ID) != nil || m.ID == "." || m.ID == ".." || strings.ContainsAny(m.ID, "/\\"):
		return ExportRow{}, fmt.Errorf("a memory needs an id (at most 256 bytes, no control characters, no / or \\, not . or ..)")
	case checkLabel("category", m.Category) != nil || len(m.Category) > maxCategoryLen:
		return ExportRow{}, fmt.Errorf("memory %s: category must be at most %d bytes of plain text", m.ID, maxCategoryLen)
	case checkLabelLen("source", m.Source, maxSourceLen) != nil:
		return ExportRow{}, fmt.Errorf("memory %s: source must be at most %d bytes of plain text", m.ID, maxSourceLen)
	case !m.Layer.Valid():
		return ExportRow{}, fmt.Errorf("memory %s: unknown layer %q", m.ID, m.Layer)
	case strings.TrimSpace(m.Content) == "" || !utf8.ValidString(m.Content):
		return ExportRow{}, fmt.Errorf("memory %s: content must be non-empty UTF-8 text", m.ID)
	case m.Owner.UserID == "" || checkLabel("user_id", m.Owner.UserID) != nil || checkLabel("agent_id", m.Owner.AgentID) != nil:
		return ExportRow{}, fmt.Errorf("memory %s: a user_id is required (and ids are at most 256 bytes)", m.ID)
	case m.Owner.UserID != strings.TrimSpace(m.Owner.UserID) || m.Owner.AgentID != strings.TrimSpace(m.Owner.AgentID):
		return ExportRow{}, fmt.Errorf("memory %s: user_id and agent_id must not begin or end with spaces", m.ID)
	case checkLabel("session_id", m.SessionID) != nil || checkLabel("retired_by", m.RetiredBy) != nil:
		return ExportRow{}, fmt.Errorf("memory %s: session_id and retired_by are at most %d bytes of plain text", m.ID, maxIDLen)
	case len(m.RetireReason) > maxReasonLen || !utf8.ValidString(m.RetireReason):
		return ExportRow{}, fmt.Errorf("memory %s: retire_reason must be at most %d bytes of UTF-8", m.ID, maxReasonLen)
	case m.UseCount < 0 || m.ExtractTries < 0 || m.UseCount > MaxUseCount || m.ExtractTries > MaxUseCount:
		return ExportRow{}, fmt.Errorf("memory %s: use_count and extract_tries must be between 0 and %d", m.ID, MaxUseCount)
	case !utf8.ValidString(m.ExtractError):
		return ExportRow{}, fmt.Errorf("memory %s: extract_error must be UTF-8 text", m.ID)
	case math.IsNaN(m.Strength) || m.Strength < 0 || m.Strength > 1:
		return ExportRow{}, fmt.Errorf("memory %s: strength must be between 0 and 1", m.ID)
	case m.CreatedAt.IsZero():
		return ExportRow{}, fmt.Errorf("memory %s: created_at is required", m.ID)
	case !ValidTime(m.CreatedAt) || !ValidTime(m.UpdatedAt) || !ValidTime(m.EventAt) || !ValidTime(m.ValidTo) ||
		!ValidTime(m.DueAt) || !ValidTime(m.RetiredAt) || !ValidTime(m.LastUsedAt) || !ValidTime(l.DecayedAt):
		return ExportRow{}, fmt.Errorf("memory %s: its times must fall within the years 1 to 9999", m.ID)
	case !m.RetiredAt.IsZero() && !retireHows[m.RetiredHow]:
		return ExportRow{}, fmt.Errorf("memory %s: retired with an unknown kind %q", m.ID, m.RetiredHow)
	}
	// The engine's own records (entity pages) may be longer than what a
	// client may send; an export always imports.
	if err := checkStoredMetadata(m.Metadata, maxStoredMetadataVal); err != nil {
		return ExportRow{}, fmt.Errorf("memory %s: %s", m.ID, ErrorMessage(err))
	}
	for _, id := range m.SourceIDs {
		if id == "" || checkLabel("source_ids", id) != nil {
			return ExportRow{}, fmt.Errorf("memory %s: source_ids must be ids of at most %d bytes", m.ID, maxIDLen)
		}
	}
	for i, h := range l.History {
		if err := checkImportedHistory(m.ID, h); err != nil {
			return ExportRow{}, fmt.Errorf("memory %s: history entry %d: %v", m.ID, i+1, err)
		}
	}
	switch m.Extraction {
	case "":
		m.Extraction = ExtractSkipped
	case ExtractSkipped, ExtractPending, ExtractDone, ExtractFailed:
	default:
		return ExportRow{}, fmt.Errorf("memory %s: unknown extraction state %q", m.ID, m.Extraction)
	}
	if m.Extraction == ExtractPending && m.ExtractTries >= MaxExtractTries {
		// Out of tries is failed (as extraction marks it): left pending, it
		// would count as waiting in status while no run picks it up.
		m.Extraction = ExtractFailed
	}
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = m.CreatedAt
	}
	row := ExportRow{Memory: *m, History: l.History, DecayedAt: l.DecayedAt}
	if l.Vector != nil {
		v, err := l.Vector.unpack()
		if err != nil {
			return ExportRow{}, fmt.Errorf("memory %s: %v", m.ID, err)
		}
		row.Vector = &v
	}
	return row, nil
}

// checkImportedFile validates one workspace record.
func checkImportedFile(l exportLine) (WorkspaceDoc, error) {
	agent, err := ParseAgent(l.Agent)
	if err != nil {
		return WorkspaceDoc{}, errors.New(ErrorMessage(err))
	}
	f, err := ParseWorkspaceFile(string(l.File))
	if err != nil {
		return WorkspaceDoc{}, errors.New(ErrorMessage(err))
	}
	if l.Content == nil {
		return WorkspaceDoc{}, fmt.Errorf("workspace file %s/%s without content", agent, f)
	}
	// Any size a line holds: what an export carries is the file as it was,
	// also one edited past MaxWorkspaceBytes on disk.
	if !utf8.ValidString(*l.Content) {
		return WorkspaceDoc{}, fmt.Errorf("workspace file %s/%s is not UTF-8 text", agent, f)
	}
	return WorkspaceDoc{Agent: agent, File: f, Content: *l.Content}, nil
}

// checkImportedHistory validates one history entry of memory id.
func checkImportedHistory(id string, h HistoryEntry) error {
	switch {
	case h.MemoryID != "" && h.MemoryID != id:
		return fmt.Errorf("it belongs to memory %q", h.MemoryID)
	case h.At.IsZero() || !ValidTime(h.At):
		return errors.New("at is required, within the years 1 to 9999")
	case h.Action != HistoryRetired && h.Action != HistoryRestored && h.Action != HistoryEdited:
		return fmt.Errorf("unknown action %q", h.Action)
	case h.How != "" && !retireHows[h.How]:
		return fmt.Errorf("unknown retirement kind %q", h.How)
	case len(h.Reason) > maxReasonLen || !utf8.ValidString(h.Reason):
		return fmt.Errorf("reason must be at most %d bytes of UTF-8", maxReasonLen)
	case checkLabel("by", h.By) != nil:
		return fmt.Errorf("by must be an id of at most %d bytes", maxIDLen)
	case !utf8.ValidString(h.OldContent) || !utf8.ValidString(h.Detail):
		return errors.New("old_content and detail must be UTF-8 text")
	}
	return nil
}
