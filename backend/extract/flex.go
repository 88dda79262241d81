package extract

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Tolerant JSON types: the reply must be a JSON object (the Completer
// rejects anything else), but inside it a field of the wrong shape is read
// as best it can be, or as empty, never as an error.

// list reads an array of T, skipping elements that do not decode; a single
// value stands for a one-element list; null is empty.
type list[T any] []T

func (l *list[T]) UnmarshalJSON(b []byte) error {
	*l = nil
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	var raws []json.RawMessage
	if b[0] == '[' {
		if json.Unmarshal(b, &raws) != nil {
			return nil
		}
	} else {
		raws = []json.RawMessage{b}
	}
	for _, r := range raws {
		var v T
		if json.Unmarshal(r, &v) == nil {
			*l = append(*l, v)
		}
	}
	return nil
}

// flexString reads a string, a number (as written) or a boolean as text; anything else
// is empty.
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	*s = flexString(scalar(b))
	return nil
}

func scalar(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // a number keeps its literal text: 0.10 stays 0.10
	var v any
	if dec.Decode(&v) != nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return ""
}

// prose reads a free text (a fact, a goal, a name, a lesson): only a JSON
// string counts. A number or a boolean in its place is no memory ("42",
// "true" were stored as facts), so it reads as empty and the item is
// dropped.
type prose string

func (s *prose) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) != nil {
		v = ""
	}
	*s = prose(v)
	return nil
}

// flexStrings reads an array of scalars, or one scalar, as strings.
type flexStrings []string

func (s *flexStrings) UnmarshalJSON(b []byte) error {
	var l list[flexString]
	_ = l.UnmarshalJSON(b)
	*s = nil
	for _, v := range l {
		*s = append(*s, string(v))
	}
	return nil
}

// flexState reads an entity's state either as the schema's array of
// {key, value} pairs or as a plain object (what local models send). A value
// that is an array of scalars is joined with ", "; an object is kept as
// compact JSON.
type flexState [][2]string

func (s *flexState) UnmarshalJSON(b []byte) error {
	*s = nil
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '[':
		var pairs list[struct {
			Key   flexString      `json:"key"`
			Value json.RawMessage `json:"value"`
		}]
		_ = pairs.UnmarshalJSON(b)
		for _, p := range pairs {
			*s = append(*s, [2]string{string(p.Key), stateValue(p.Value)})
		}
	case '{':
		dec := json.NewDecoder(bytes.NewReader(b))
		if _, err := dec.Token(); err != nil { // {
			return nil
		}
		for dec.More() { // keys in the order given
			t, err := dec.Token()
			if err != nil {
				return nil
			}
			key, _ := t.(string)
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return nil
			}
			*s = append(*s, [2]string{key, stateValue(raw)})
		}
	}
	return nil
}

func stateValue(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '[':
		var parts []string
		var l list[flexString]
		_ = l.UnmarshalJSON(raw)
		for _, v := range l {
			if v := strings.TrimSpace(string(v)); v != "" {
				parts = append(parts, v)
			}
		}
		return strings.Join(parts, ", ")
	case '{':
		var c bytes.Buffer
		if json.Compact(&c, raw) == nil {
			return c.String()
		}
		return ""
	}
	return scalar(raw)
}
