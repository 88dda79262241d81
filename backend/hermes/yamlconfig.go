package hermes

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	topMemoryLine = regexp.MustCompile(`^memory\s*:\s*(#.*)?$`)
	topMemoryAny  = regexp.MustCompile(`^memory\s*:`)
	plainValue    = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
)

// MemoryProvider reads memory.provider from a config.yaml; ok is false
// when the file does not set it.
func MemoryProvider(src []byte) (value string, ok bool, err error) {
	doc, err := decodeConfig(src)
	if err != nil {
		return "", false, err
	}
	return providerOf(doc)
}

// SetMemoryProvider returns src with memory.provider set to value: the
// line is rewritten in place (its comment kept), added under an existing
// memory block, or appended with a new block. Nothing else in the file
// changes, which is checked by parsing both.
func SetMemoryProvider(src []byte, value string) ([]byte, error) {
	return editProvider(src, &value)
}

// RemoveMemoryProvider returns src without its memory.provider line (and
// without a memory block left empty by that).
func RemoveMemoryProvider(src []byte) ([]byte, error) {
	return editProvider(src, nil)
}

// bom is the UTF-8 byte-order mark.
const bom = "\ufeff"

func editProvider(src []byte, value *string) ([]byte, error) {
	before, err := decodeConfig(src)
	if err != nil {
		return nil, err
	}
	if got, ok, err := providerOf(before); err == nil && value != nil && ok && got == *value {
		return src, nil // already so, however it is written: nothing to edit
	}
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	// A byte-order mark (some Windows editors write one) is kept in front
	// and kept out of the lines, where it would hide the first key.
	lead := ""
	if bytes.HasPrefix(src, []byte(bom)) {
		lead, src = bom, src[len(bom):]
	}
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	lines, err = editLines(lines, value)
	if err != nil {
		return nil, err
	}
	out := []byte(lead + strings.Join(lines, nl))
	if len(lines) > 0 {
		out = append(out, nl...)
	}
	if err := checkEdit(before, out, value); err != nil {
		return nil, err
	}
	return out, nil
}

// editLines finds the top-level memory block and its provider line.
func editLines(lines []string, value *string) ([]string, error) {
	start := -1
	for i, l := range lines {
		if topMemoryAny.MatchString(l) {
			if !topMemoryLine.MatchString(l) {
				todo := "set its provider to " + PluginName + " there by hand, then run the install again (uninstall cannot then put back the provider it names now)"
				if value == nil {
					todo = "remove its provider there by hand, then run the uninstall again"
				}
				return nil, fmt.Errorf("config.yaml writes memory on one line (%q): write it as a block (\"memory:\" on its own line, its keys indented below) or %s", strings.TrimSpace(l), todo)
			}
			start = i
			break
		}
	}
	if start < 0 {
		if value == nil {
			return lines, nil
		}
		return append(lines, "memory:", "  provider: "+yamlScalar(*value)), nil
	}
	end, indent, provider := start+1, "", -1
	for ; end < len(lines); end++ {
		l := lines[end]
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if lead == "" {
			break // the next top-level key
		}
		if strings.Contains(lead, "\t") {
			return nil, fmt.Errorf("config.yaml indents the memory block with tabs; set memory.provider: %s by hand", PluginName)
		}
		if indent == "" {
			indent = lead
		}
		if lead == indent && (strings.HasPrefix(trimmed, "provider:") || strings.HasPrefix(trimmed, "provider :")) {
			provider = end
		}
	}
	if indent == "" {
		indent = "  "
	}
	switch {
	case value != nil && provider >= 0:
		lines[provider] = indent + "provider: " + yamlScalar(*value) + trailingComment(lines[provider])
	case value != nil:
		lines = append(lines[:start+1], append([]string{indent + "provider: " + yamlScalar(*value)}, lines[start+1:]...)...)
	case provider >= 0:
		lines = append(lines[:provider], lines[provider+1:]...)
		// The emptied "memory:" goes too, unless a comment of the user's is
		// on it or in its block: comments stay.
		if !blockHasKeys(lines, start) && !blockHasComments(lines, start) && trailingComment(lines[start]) == "" {
			lines = append(lines[:start], lines[start+1:]...)
		}
	}
	return lines, nil
}

// blockHasKeys reports whether the block opened at lines[start] still has
// an indented key.
func blockHasKeys(lines []string, start int) bool {
	for _, l := range lines[start+1:] {
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		return l[0] == ' ' || l[0] == '\t'
	}
	return false
}

// blockHasComments reports whether the block opened at lines[start] holds
// an indented comment line.
func blockHasComments(lines []string, start int) bool {
	for _, l := range lines[start+1:] {
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "":
		case l[0] != ' ' && l[0] != '\t':
			return false // the next top-level line: the block has ended
		case strings.HasPrefix(trimmed, "#"):
			return true
		}
	}
	return false
}

// trailingComment returns the "  # ..." part of a "key: value" line (with
// the spaces before the #), if any.
func trailingComment(line string) string {
	_, rest, _ := strings.Cut(line, ":")
	var quote rune
	for i, r := range rest {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '#' && i > 0 && (rest[i-1] == ' ' || rest[i-1] == '\t'):
			j := i
			for j > 0 && (rest[j-1] == ' ' || rest[j-1] == '\t') {
				j--
			}
			return rest[j:] // the comment with the spacing before it, as the user wrote it
		}
	}
	return ""
}

func yamlScalar(s string) string {
	if plainValue.MatchString(s) && !isYAMLKeyword(s) {
		return s
	}
	return strconv.Quote(s)
}

func isYAMLKeyword(s string) bool {
	switch strings.ToLower(s) {
	case "null", "true", "false", "yes", "no", "on", "off", "y", "n", "~":
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func decodeConfig(src []byte) (map[string]any, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("config.yaml is not valid YAML (nothing changed): %w", err)
	}
	if doc == nil {
		doc = map[string]any{}
	}
	return doc, nil
}

func providerOf(doc map[string]any) (string, bool, error) {
	raw, ok := doc["memory"]
	if !ok || raw == nil {
		return "", false, nil
	}
	mem, ok := raw.(map[string]any)
	if !ok {
		return "", false, fmt.Errorf("config.yaml: memory is %T, not a mapping", raw)
	}
	p, ok := mem["provider"]
	if !ok {
		return "", false, nil
	}
	if p == nil {
		return "", true, nil
	}
	return fmt.Sprint(p), true, nil
}

// checkEdit proves the edit: the new file parses, memory.provider is what
// was asked, and every other setting is unchanged.
func checkEdit(before map[string]any, out []byte, value *string) error {
	after, err := decodeConfig(out)
	if err != nil {
		return fmt.Errorf("editing config.yaml would break it; set memory.provider by hand: %w", err)
	}
	got, ok, err := providerOf(after)
	if err != nil {
		return err
	}
	if value != nil && (!ok || got != *value) || value == nil && ok {
		return fmt.Errorf("editing config.yaml did not take (memory.provider is %q); set it by hand", got)
	}
	if !reflect.DeepEqual(withoutProvider(before), withoutProvider(after)) {
		return fmt.Errorf("editing config.yaml would change other settings; set memory.provider by hand")
	}
	return nil
}

// withoutProvider is doc without memory.provider, with an empty memory
// block counted as absent.
func withoutProvider(doc map[string]any) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		out[k] = v
	}
	if mem, ok := out["memory"].(map[string]any); ok {
		rest := make(map[string]any, len(mem))
		for k, v := range mem {
			if k != "provider" {
				rest[k] = v
			}
		}
		out["memory"] = rest
		if len(rest) == 0 {
			delete(out, "memory")
		}
	} else if out["memory"] == nil {
		delete(out, "memory")
	}
	return out
}
