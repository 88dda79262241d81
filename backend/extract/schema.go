package extract

import "sort"

// The schemas are strict-mode compatible (OpenAI structured outputs): every
// object lists all its properties as required and allows no others; a
// nullable value is type ["string","null"]. Each call builds a fresh map,
// so a Completer may change it freely.

func object(props map[string]any) map[string]any {
	req := make([]string, 0, len(props))
	for _, k := range sortedKeys(props) {
		req = append(req, k)
	}
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             req,
		"additionalProperties": false,
	}
}

func arrayOf(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}

func str() map[string]any         { return map[string]any{"type": "string"} }
func nullableStr() map[string]any { return map[string]any{"type": []any{"string", "null"}} }
func enum(vals ...string) map[string]any {
	v := make([]any, len(vals))
	for i, s := range vals {
		v[i] = s
	}
	return map[string]any{"type": "string", "enum": v}
}

// Labels and kinds, in the order the schema lists them.
var (
	labels = []string{"user_preferences", "project_state", "technical_lesson", "decision", "negative_knowledge"}
	kinds  = []string{"person", "project", "tool", "place", "organization", "concept", "other"}
)

// ExtractSchema is the JSON schema of the extraction reply.
func ExtractSchema() map[string]any {
	return object(map[string]any{
		"facts": arrayOf(object(map[string]any{
			"text":     str(),
			"label":    enum(labels...),
			"event_at": nullableStr(),
			"replaces": arrayOf(str()),
			"updates":  nullableStr(),
		})),
		"intentions": arrayOf(object(map[string]any{
			"goal":   str(),
			"due_at": nullableStr(),
		})),
		"intentions_done": arrayOf(str()),
		"entities": arrayOf(object(map[string]any{
			"name":    str(),
			"kind":    enum(kinds...),
			"state":   arrayOf(object(map[string]any{"key": str(), "value": str()})),
			"summary": str(),
		})),
		"experiences": arrayOf(object(map[string]any{
			"task":   str(),
			"lesson": str(),
		})),
	})
}

// ReconcileSchema is the JSON schema of the reconcile reply.
func ReconcileSchema() map[string]any {
	return object(map[string]any{
		"decisions": arrayOf(object(map[string]any{
			"new_id": str(),
			"old_id": str(),
			"action": enum("UPDATE", "SUPERSEDE", "LINK", "NONE"),
		})),
	})
}

// ConsolidateSchema is the JSON schema of the consolidation reply; with
// graph off it asks for neither edges nor the arc.
func ConsolidateSchema(graph bool) map[string]any {
	props := map[string]any{
		"merges":  arrayOf(object(map[string]any{"ids": arrayOf(str()), "text": str()})),
		"drops":   arrayOf(object(map[string]any{"id": str(), "reason": str()})),
		"schemas": arrayOf(object(map[string]any{"text": str(), "evidence": arrayOf(str())})),
	}
	if graph {
		props["edges"] = arrayOf(object(map[string]any{
			"from":       str(),
			"from_type":  enum(kinds...),
			"relation":   str(),
			"to":         str(),
			"to_type":    enum(kinds...),
			"exclusive":  map[string]any{"type": "boolean"},
			"valid_from": nullableStr(),
			"evidence":   arrayOf(str()),
		}))
		props["arc"] = nullableStr()
	}
	return object(props)
}

// CrossSchema is the JSON schema of the cross-topic reply.
func CrossSchema() map[string]any {
	return object(map[string]any{
		"patterns": arrayOf(object(map[string]any{"text": str(), "schemas": arrayOf(str())})),
	})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
