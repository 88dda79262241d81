package llm

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// stripThink drops a model's reasoning: everything up to the last
// </think>, or a leading <think> tag that was never closed.
func stripThink(s string) string {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		return s[i+len("</think>"):]
	}
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "<think>") {
		return t[len("<think>"):]
	}
	return s
}

// stripFence removes a ``` or ```json fence around the whole text.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	rest := s[3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[nl+1:]
	} else {
		rest = strings.TrimLeft(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	}
	rest = strings.TrimSpace(rest)
	rest = strings.TrimSuffix(rest, "```")
	return strings.TrimSpace(rest)
}

// extractJSON finds the JSON object in a reply: after any think block and
// code fence, the text itself if it is an object, else the span from the
// first { to the last }. It returns "" when there is none.
func extractJSON(text string) string {
	s := stripFence(strings.TrimSpace(stripThink(text)))
	if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
		return s
	}
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return ""
	}
	return s[i : j+1]
}

var errNoObject = errors.New("no JSON object in the reply")

// decodeInto decodes the reply's JSON object into out (a non-nil pointer),
// leaving out untouched when it does not decode.
func decodeInto(text string, out any) error {
	obj := extractJSON(text)
	if obj == "" {
		return errNoObject
	}
	v := reflect.New(reflect.TypeOf(out).Elem())
	if err := json.Unmarshal([]byte(obj), v.Interface()); err != nil {
		return err
	}
	reflect.ValueOf(out).Elem().Set(v.Elem())
	return nil
}
