package memory

import "strings"

// Mode is how much the engine reasons: lite stores and searches raw turns
// only; pro adds per-write extraction; ultra adds background consolidation.
type Mode string

// The modes.
const (
	ModeLite  Mode = "lite"
	ModePro   Mode = "pro"
	ModeUltra Mode = "ultra"
)

// ParseMode validates a mode name; "" gives def.
func ParseMode(s string, def Mode) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return def, nil
	case ModeLite, ModePro, ModeUltra:
		return m, nil
	default:
		return "", Errorf(EINVALID, "unknown mode %q (valid: lite, pro, ultra)", s)
	}
}

// UsesLLM reports whether the mode extracts with an LLM.
func (m Mode) UsesLLM() bool { return m == ModePro || m == ModeUltra }

// Detail is the one-line description shown in status.
func (m Mode) Detail() string {
	switch m {
	case ModeLite:
		return "raw turns only (L2), no LLM calls"
	case ModePro:
		return "per-write extraction (L1, L2, L3, L4, L7, L8)"
	default:
		return "per-write extraction (L1, L2, L3, L4, L7, L8); background consolidation (L5, L6)"
	}
}

// LLMState is the extraction endpoint's state as reported by status.
type LLMState string

// LLM states (wire values of the public contract).
const (
	LLMOK           LLMState = "ok"
	LLMUnconfigured LLMState = "unconfigured"
	LLMAwaitingKey  LLMState = "awaiting_key"
	LLMUnused       LLMState = "unused"
)

// ExtractionStatus is what a write reports about its extraction.
type ExtractionStatus string

// Extraction statuses (wire values of the public contract).
const (
	StatusDone         ExtractionStatus = "done"
	StatusFailed       ExtractionStatus = "failed"
	StatusPending      ExtractionStatus = "pending"
	StatusUnconfigured ExtractionStatus = "unconfigured"
	StatusSkipped      ExtractionStatus = "skipped"
	StatusAwaitingKey  ExtractionStatus = "awaiting_key"
)
