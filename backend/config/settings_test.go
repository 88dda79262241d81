package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestSettingsRoundTripAndOverlay(t *testing.T) {
	dir := t.TempDir()
	saved := map[string]string{"llm_base": "http://127.0.0.1:11434/v1", "llm_model": "qwen3:8b", "mode": "pro", "snapshot_keep": " "}
	if err := WriteSettings(dir, saved); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, SettingsFile)); fi.Mode().Perm() != 0o600 {
		t.Errorf("settings file mode %v", fi.Mode().Perm())
	}
	got, err := ReadSettings(dir)
	if err != nil || len(got) != 3 || got["mode"] != "pro" {
		t.Fatalf("read back %v %v", got, err)
	}
	env := envMap(map[string]string{"HYATLAS_CONFIG_DIR": dir, "HYATLAS_DATA": filepath.Join(dir, "data"),
		"HYATLAS_LLM_MODEL": "pinned-model"})
	cfg, err := LoadWithSettings(env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LLM.Base != "http://127.0.0.1:11434/v1" || cfg.LLM.Model != "pinned-model" || cfg.Mode != "pro" {
		t.Errorf("base %q model %q mode %q: want the saved base and mode, the environment's model", cfg.LLM.Base, cfg.LLM.Model, cfg.Mode)
	}
	if p := Pinned(env); len(p) != 1 || p[0] != "llm_model" {
		t.Errorf("pinned = %v", p)
	}
	if r := Running(cfg); r["mode"] != "pro" || r["snapshot_keep"] != "7" || r["sync_extract"] != "" {
		t.Errorf("running = %v", r)
	}
	if err := WriteSettings(dir, map[string]string{"HYATLAS_GO_PORT": "1"}); err == nil {
		t.Error("a setting the window does not edit was saved")
	}
}

func TestCheckSettingsNamesTheBadValue(t *testing.T) {
	dir := t.TempDir()
	env := envMap(map[string]string{"HYATLAS_CONFIG_DIR": dir, "HYATLAS_DATA": filepath.Join(dir, "data")})
	for _, c := range []struct {
		saved map[string]string
		want  string
	}{
		{map[string]string{"mode": "turbo"}, "mode"},
		{map[string]string{"sync_extract": "sometimes"}, "sync_extract"},
		{map[string]string{"snapshot_every": "often"}, "snapshot_every"},
		{map[string]string{"snapshot_every": "1ns"}, "snapshot_every: \"1ns\" is too often: at least 10m, or off"},
		{map[string]string{"consolidate_every": "1ns"}, "consolidate_every: \"1ns\" is too often"},
		{map[string]string{"snapshot_keep": "0"}, "snapshot_keep"},
		{map[string]string{"consolidate_every": "0"}, "consolidate_every: \"0\" would never consolidate; ultra mode needs an interval such as 6h (or use mode pro)"},
		{map[string]string{"port": "1"}, "not a setting"},
		{map[string]string{"llm_base": "http://127.0.0.1:99999/v1"}, "llm_base: \"http://127.0.0.1:99999/v1\" is not an http(s) URL"},
	} {
		err := CheckSettings(env, c.saved)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to name %s", c.saved, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "HYATLAS_") {
			t.Errorf("%v: the window's message names an environment variable: %v", c.saved, err)
		}
	}
	if err := CheckSettings(env, map[string]string{"mode": "lite", "snapshot_every": "12h"}); err != nil {
		t.Errorf("good settings refused: %v", err)
	}
}

func TestLoadWithSettingsIgnoresABadFile(t *testing.T) {
	dir := t.TempDir()
	env := envMap(map[string]string{"HYATLAS_CONFIG_DIR": dir, "HYATLAS_DATA": filepath.Join(dir, "data")})
	for _, body := range []string{"{not json", `{"mode": "turbo"}`} {
		if err := os.WriteFile(filepath.Join(dir, SettingsFile), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadWithSettings(env)
		if err != nil || cfg.Mode != "ultra" || len(cfg.Warnings) == 0 || !strings.Contains(strings.Join(cfg.Warnings, " "), "ignored") {
			t.Errorf("%s: mode %q, warnings %v, err %v", body, cfg.Mode, cfg.Warnings, err)
		}
	}
}

func TestDurationTextReadsBack(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "off", 6 * time.Hour: "6h", 90 * time.Minute: "1h30m",
		20 * time.Minute: "20m", 45 * time.Second: "45s", 24 * time.Hour: "24h", time.Hour + 30*time.Second: "1h0m30s"} {
		got := DurationText(d)
		if got != want {
			t.Errorf("DurationText(%v) = %q, want %q", d, got, want)
		}
		if back, err := ParseDuration(got, -1); err != nil || back != d {
			t.Errorf("%q reads back as %v, %v", got, back, err)
		}
	}
}

// A start applies every saved setting it can: one the environment made
// invalid since goes alone, with a warning naming it, and the endpoint
// saved beside it still applies.
func TestLoadWithSettingsIgnoresOnlyTheBadSetting(t *testing.T) {
	dir := t.TempDir()
	saved := map[string]string{"mode": "pro", "consolidate_every": "off",
		"llm_base": "http://127.0.0.1:11434/v1", "llm_model": "qwen3:8b"}
	if err := WriteSettings(dir, saved); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"HYATLAS_CONFIG_DIR": dir, "HYATLAS_DATA": filepath.Join(dir, "data")}
	cfg, err := LoadWithSettings(envMap(base))
	if err != nil || cfg.Mode != "pro" || cfg.Consolidate.Every != 0 || len(cfg.Warnings) != 0 {
		t.Fatalf("together they are valid: mode %q every %v warnings %v err %v", cfg.Mode, cfg.Consolidate.Every, cfg.Warnings, err)
	}
	base["HYATLAS_MODE"] = "ultra" // ultra needs consolidation
	cfg, err = LoadWithSettings(envMap(base))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mode != "ultra" || cfg.Consolidate.Every == 0 || cfg.LLM.Base != saved["llm_base"] || cfg.LLM.Model != saved["llm_model"] {
		t.Errorf("mode %q every %v base %q model %q: want ultra with its interval and the saved endpoint",
			cfg.Mode, cfg.Consolidate.Every, cfg.LLM.Base, cfg.LLM.Model)
	}
	if w := strings.Join(cfg.Warnings, " "); !strings.Contains(w, "consolidate_every") || !strings.Contains(w, "ignored") || strings.Contains(w, "llm_base") {
		t.Errorf("warnings %q: want consolidate_every alone named as ignored", w)
	}
	usable, ignored := UsableSettings(envMap(base), map[string]string{"snapshot_keep": "0", "snapshot_every": "often", "llm_model": "m"})
	if len(usable) != 1 || usable["llm_model"] != "m" || len(ignored) != 2 || ignored["snapshot_keep"] == "" || ignored["snapshot_every"] == "" {
		t.Errorf("usable %v ignored %v", usable, ignored)
	}
	usable, ignored = UsableSettings(envMap(base), map[string]string{"old_key": "x", "llm_model": "m"})
	if len(usable) != 1 || usable["llm_model"] != "m" || len(ignored) != 1 || !strings.Contains(ignored["old_key"], "not a setting") {
		t.Errorf("a key that is no setting: usable %v ignored %v, want the model kept", usable, ignored)
	}
}

// A settings file edited by hand may write a number or true/false without
// quotes; it reads as the text it stands for. Anything else is an error.
func TestReadSettingsTakesNumbersAndBooleans(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, SettingsFile), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"snapshot_keep": 7, "sync_extract": true, "llm_model": null, "port": 1}`)
	got, err := ReadSettings(dir)
	if err != nil || len(got) != 2 || got["snapshot_keep"] != "7" || got["sync_extract"] != "true" {
		t.Errorf("read %v %v", got, err)
	}
	for _, body := range []string{`{"snapshot_keep": [7]}`, `[1]`, `{"mode": {"a": 1}}`, `{"mode": "pro"} {"mode": "lite"`,
		`{"mode": "pro"}}`, `{"mode": "pro"}]`} {
		write(body)
		if got, err := ReadSettings(dir); err == nil || len(got) != 0 {
			t.Errorf("%s: read %v %v, want an error", body, got, err)
		}
	}
}
