package memory

import (
	"encoding/json"
	"reflect"
	"strings"
)

// InexactField returns the first top-level key of the JSON object obj
// that is not spelt exactly as a field of dst (a pointer to a struct)
// names it: encoding/json matches "STRENGTH" to "strength", so a strict
// reader (unknown fields refused) checks with it too, and refuses the key
// as unknown. It returns "" when every key is exact, or when dst is not a
// struct (a map takes any key) or obj is not an object.
func InexactField(obj []byte, dst any) string {
	t := reflect.TypeOf(dst)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(obj, &keys) != nil {
		return ""
	}
	names := map[string]bool{}
	jsonNames(t, names)
	for k := range keys {
		if !names[k] {
			return k
		}
	}
	return ""
}

// jsonNames adds the JSON names of t's fields, those of embedded structs
// included, as encoding/json reads them.
func jsonNames(t reflect.Type, names map[string]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case f.Anonymous && name == "" && ft.Kind() == reflect.Struct:
			jsonNames(ft, names)
		case !f.IsExported():
		case name != "":
			names[name] = true
		default:
			names[f.Name] = true
		}
	}
}
