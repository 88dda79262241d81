package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"hyatlas/backend/atomicfile"
)

// SettingsFile holds what the window's Settings saved, in the config
// directory. The environment wins over it; it wins over the defaults.
const SettingsFile = "settings.json"

// Setting is one value the window edits: its key in settings.json and the
// API, and the environment variable that pins it.
type Setting struct {
	Key string
	Env string
}

// Editable lists the settings the window edits, in display order.
var Editable = []Setting{
	{"llm_base", "HYATLAS_LLM_BASE"},
	{"llm_model", "HYATLAS_LLM_MODEL"},
	{"mode", "HYATLAS_MODE"},
	{"sync_extract", "HYATLAS_SYNC_EXTRACT"},
	{"consolidate_every", "HYATLAS_CONSOLIDATE_EVERY"},
	{"snapshot_every", "HYATLAS_SNAPSHOT_EVERY"},
	{"snapshot_keep", "HYATLAS_SNAPSHOT_KEEP"},
}

// envOf is the environment variable of a settings key ("" if not editable).
func envOf(key string) string {
	for _, s := range Editable {
		if s.Key == key {
			return s.Env
		}
	}
	return ""
}

// ReadSettings reads dir/settings.json; a missing file is no settings.
// Keys that are not editable are dropped.
func ReadSettings(dir string) (map[string]string, error) {
	out := map[string]string{}
	b, err := os.ReadFile(filepath.Join(dir, SettingsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("read %s: %w", SettingsFile, err)
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err = dec.Decode(&raw)
	if err == nil {
		if _, next := dec.Token(); next != io.EOF {
			err = errors.New("more follows the settings object")
		}
	}
	if err != nil {
		return out, fmt.Errorf("read %s: it is not a JSON object of settings: %w", filepath.Join(dir, SettingsFile), err)
	}
	for k, v := range raw {
		var text string
		switch v := v.(type) { // a file edited by hand may say 7 or true for "7" or "true"
		case string:
			text = v
		case json.Number:
			text = v.String()
		case bool:
			text = strconv.FormatBool(v)
		case nil:
		default:
			return map[string]string{}, fmt.Errorf("read %s: %q is not a text, number or true/false", filepath.Join(dir, SettingsFile), k)
		}
		if envOf(k) != "" && strings.TrimSpace(text) != "" {
			out[k] = strings.TrimSpace(text)
		}
	}
	return out, nil
}

// WriteSettings replaces dir/settings.json (mode 0600, atomically).
func WriteSettings(dir string, values map[string]string) error {
	clean := map[string]string{}
	for k, v := range values {
		if envOf(k) == "" {
			return fmt.Errorf("%q is not a setting the window edits", k)
		}
		if v = strings.TrimSpace(v); v != "" {
			clean[k] = v
		}
	}
	b, err := json.MarshalIndent(clean, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, SettingsFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	return nil
}

// Overlay is getenv with the saved settings under it: a variable the
// environment sets (non-empty) wins; otherwise the saved value is used.
func Overlay(getenv func(string) string, saved map[string]string) func(string) string {
	byEnv := map[string]string{}
	for k, v := range saved {
		if e := envOf(k); e != "" {
			byEnv[e] = v
		}
	}
	return func(name string) string {
		if v := getenv(name); strings.TrimSpace(v) != "" {
			return v
		}
		return byEnv[name]
	}
}

// Pinned lists the keys of editable settings that the environment sets.
func Pinned(getenv func(string) string) []string {
	var out []string
	for _, s := range Editable {
		if strings.TrimSpace(getenv(s.Env)) != "" {
			out = append(out, s.Key)
		}
	}
	sort.Strings(out)
	return out
}

// CheckSettings loads the configuration with saved under the environment
// and fails, naming the setting, when a saved value is invalid (also one
// that Load would only warn about and replace by its default).
func CheckSettings(getenv func(string) string, saved map[string]string) error {
	for k := range saved {
		if envOf(k) == "" {
			return fmt.Errorf("%q is not a setting the window edits", k)
		}
	}
	cfg, err := Load(Overlay(getenv, saved))
	if err != nil {
		return errors.New(settingsWords(err.Error()))
	}
	for _, w := range cfg.Warnings {
		for k := range saved {
			if e := envOf(k); strings.HasPrefix(w, e+":") {
				return fmt.Errorf("%s: %s", k, strings.TrimSuffix(strings.TrimPrefix(w, e+": "), "; using the default"))
			}
		}
	}
	return nil
}

// settingsWords says a configuration message in the window's terms: the
// settings' names, not their environment variables.
func settingsWords(msg string) string {
	pairs := []string{"HYATLAS_MODE=pro", "mode pro", "HYATLAS_MODE=lite", "mode lite"}
	for _, s := range Editable {
		pairs = append(pairs, s.Env, s.Key)
	}
	return strings.NewReplacer(pairs...).Replace(msg)
}

// LoadWithSettings is Load with the window's saved settings under the
// environment. A settings file that cannot be read, or whose values are
// invalid, is ignored with a warning: the app still starts, on the
// environment and the defaults.
func LoadWithSettings(getenv func(string) string) (Config, error) {
	base, err := Load(getenv)
	if err != nil {
		return Config{}, err
	}
	saved, err := ReadSettings(base.Paths.Config)
	if err != nil {
		base.Warnings = append(base.Warnings, err.Error()+"; the saved settings are ignored")
		return base, nil
	}
	usable, ignored := UsableSettings(getenv, saved)
	if len(usable) == 0 && len(ignored) == 0 {
		return base, nil
	}
	cfg, err := Load(Overlay(getenv, usable))
	if err != nil { // UsableSettings checked this very load
		return Config{}, err
	}
	for _, k := range slices.Sorted(maps.Keys(ignored)) {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("saved setting %s (%s): %s; it is ignored",
			k, filepath.Join(base.Paths.Config, SettingsFile), ignored[k]))
	}
	return cfg, nil
}

// UsableSettings splits saved into the settings a start applies under
// getenv and those it ignores, each with why. The settings are checked
// together; while they fail, the one the error names goes (or, when it
// names none, the last in Editable's order), so one bad value, or one the
// environment made bad since (HYATLAS_MODE=ultra set over a saved
// consolidate_every off), does not take the endpoint with it.
func UsableSettings(getenv func(string) string, saved map[string]string) (usable, ignored map[string]string) {
	usable, ignored = maps.Clone(saved), map[string]string{}
	for k := range usable {
		if envOf(k) == "" { // not a setting: named alone, never blamed on one
			ignored[k] = fmt.Sprintf("%q is not a setting the window edits", k)
			delete(usable, k)
		}
	}
	for len(usable) > 0 {
		err := CheckSettings(getenv, usable)
		if err == nil {
			break
		}
		k, _, _ := strings.Cut(err.Error(), ":")
		if _, named := usable[k]; !named {
			k = slices.Sorted(maps.Keys(usable))[0] // each turn drops one: the loop ends
			for i := len(Editable) - 1; i >= 0; i-- {
				if _, ok := usable[Editable[i].Key]; ok {
					k = Editable[i].Key
					break
				}
			}
		}
		ignored[k] = err.Error()
		delete(usable, k)
	}
	return usable, ignored
}

// Running is the value of each editable setting in cfg, as text.
func Running(cfg Config) map[string]string {
	sync := ""
	if cfg.SyncExtract != nil {
		sync = "off"
		if *cfg.SyncExtract {
			sync = "on"
		}
	}
	return map[string]string{
		"llm_base": cfg.LLM.Base, "llm_model": cfg.LLM.Model, "mode": string(cfg.Mode), "sync_extract": sync,
		"consolidate_every": DurationText(cfg.Consolidate.Every), "snapshot_every": DurationText(cfg.Snapshot.Every),
		"snapshot_keep": fmt.Sprint(cfg.Snapshot.Keep),
	}
}

// DurationText writes d the way a person types it ("6h", "90m", "1h30m",
// "45s"; "off" for 0), which ParseDuration reads back.
func DurationText(d time.Duration) string {
	if d <= 0 {
		return "off"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
