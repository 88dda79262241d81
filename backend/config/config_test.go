package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// env returns a getenv backed by m.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// isolate points HOME and the XDG variables at a temporary directory so
// Load never depends on the real environment. It returns the home.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	for _, k := range []string{"XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(k, "")
	}
	return home
}

func mustLoad(t *testing.T, m map[string]string) Config {
	t.Helper()
	c, err := Load(env(m))
	if err != nil {
		t.Fatalf("Load(%v): %v", m, err)
	}
	return c
}

func TestLoadDefaults(t *testing.T) {
	isolate(t)
	c := mustLoad(t, nil)
	if c.Mode != memory.ModeUltra {
		t.Errorf("Mode = %q, want ultra", c.Mode)
	}
	if c.Host != "127.0.0.1" {
		t.Errorf("Host = %q, want 127.0.0.1", c.Host)
	}
	if c.Port != 19528 {
		t.Errorf("Port = %d, want 19528", c.Port)
	}
	if c.Addr() != "127.0.0.1:19528" {
		t.Errorf("Addr = %q", c.Addr())
	}
	if !c.Auth {
		t.Error("Auth off by default")
	}
	if c.Admin {
		t.Error("Admin on by default")
	}
	if c.MinScore != -1 {
		t.Errorf("MinScore = %v, want -1", c.MinScore)
	}
	if c.SyncExtract != nil || c.ExtractSync() {
		t.Errorf("SyncExtract = %v, ExtractSync = %v; want nil, false for ultra", c.SyncExtract, c.ExtractSync())
	}
	if len(c.Warnings) != 0 || len(c.AllowedHosts) != 0 || c.Aliases.Len() != 0 {
		t.Errorf("Warnings %v, AllowedHosts %v, aliases %d; want none", c.Warnings, c.AllowedHosts, c.Aliases.Len())
	}
	if c.Paths.Data == "" || c.Paths.Config == "" || c.Paths.Cache == "" {
		t.Errorf("Paths = %+v, want all set", c.Paths)
	}
}

func TestLoadModeAndSyncExtract(t *testing.T) {
	isolate(t)
	tests := []struct {
		mode, sync string
		wantMode   memory.Mode
		wantSync   bool
	}{
		{"", "", memory.ModeUltra, false},
		{"ultra", "", memory.ModeUltra, false},
		{"pro", "", memory.ModePro, true},
		{" PRO ", "", memory.ModePro, true},
		{"lite", "", memory.ModeLite, false},
		{"ultra", "on", memory.ModeUltra, true},
		{"ultra", "TRUE", memory.ModeUltra, true},
		{"pro", "off", memory.ModePro, false},
		{"pro", "0", memory.ModePro, false},
		{"pro", "  ", memory.ModePro, true}, // blank follows the mode
	}
	for _, tt := range tests {
		c := mustLoad(t, map[string]string{"HYATLAS_MODE": tt.mode, "HYATLAS_SYNC_EXTRACT": tt.sync})
		if c.Mode != tt.wantMode || c.ExtractSync() != tt.wantSync {
			t.Errorf("mode %q sync %q: Mode %q ExtractSync %v, want %q %v",
				tt.mode, tt.sync, c.Mode, c.ExtractSync(), tt.wantMode, tt.wantSync)
		}
	}
}

func TestLoadFatal(t *testing.T) {
	isolate(t)
	tests := []struct{ name, value string }{
		{"HYATLAS_MODE", "turbo"},
		{"HYATLAS_SYNC_EXTRACT", "maybe"},
		{"HYATLAS_GO_PORT", "abc"},
		{"HYATLAS_GO_PORT", "70000"},
		{"HYATLAS_GO_PORT", "65536"},
		{"HYATLAS_GO_PORT", "-1"},
		{"HYATLAS_GO_PORT", "80.5"},
		{"HYATLAS_GO_HOST", "example.com"},
		{"HYATLAS_GO_HOST", "0.0.0.0:80"},
		{"HYATLAS_USER_ALIASES", "a"},
		{"HYATLAS_USER_ALIASES", "a,b;c"},
		{"HYATLAS_CONSOLIDATE_EVERY", "0"},
		{"HYATLAS_CONSOLIDATE_EVERY", "off"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			c, err := Load(env(map[string]string{tt.name: tt.value}))
			if err == nil {
				t.Fatalf("no error; config %+v", c)
			}
			if !strings.HasPrefix(err.Error(), tt.name+":") {
				t.Errorf("error %q does not name %s", err, tt.name)
			}
			if !reflect.DeepEqual(c, Config{}) {
				t.Errorf("config not zero on error: %+v", c)
			}
		})
	}
}

func TestLoadWarnings(t *testing.T) {
	isolate(t)
	tests := []struct {
		name, value string
		check       func(Config) bool
	}{
		{"HYATLAS_AUTH", "perhaps", func(c Config) bool { return c.Auth }},
		{"HYATLAS_ADMIN", "sure", func(c Config) bool { return !c.Admin }},
		{"HYATLAS_MIN_SCORE", "2", func(c Config) bool { return c.MinScore == -1 }},
		{"HYATLAS_MIN_SCORE", "-0.5", func(c Config) bool { return c.MinScore == -1 }},
		{"HYATLAS_MIN_SCORE", "x", func(c Config) bool { return c.MinScore == -1 }},
		{"HYATLAS_MIN_SCORE", "NaN", func(c Config) bool { return c.MinScore == -1 }},
		{"HYATLAS_EXTRACT_TIMEOUT", "soon", func(c Config) bool { return c.LLM.Timeout == 300*time.Second }},
		{"HYATLAS_EXTRACT_TIMEOUT", "0", func(c Config) bool { return c.LLM.Timeout == 300*time.Second }},
		{"HYATLAS_CATCHUP_EVERY", "-5", func(c Config) bool { return c.LLM.CatchupEvery == 10*time.Minute }},
		{"HYATLAS_CATCHUP_MAX_AGE", "a week", func(c Config) bool { return c.LLM.CatchupMaxAge == 168*time.Hour }},
		{"HYATLAS_EPISODE_GAP", "x", func(c Config) bool { return c.LLM.EpisodeGap == 30*time.Minute }},
		{"HYATLAS_NOW_EVERY", "x", func(c Config) bool { return c.LLM.NowEvery == 15*time.Minute }},
		{"HYATLAS_DEDUPE_SCORE", "1.5", func(c Config) bool { return c.LLM.DedupeScore == 0.92 }},
		{"HYATLAS_RECONCILE", "maybe", func(c Config) bool { return !c.LLM.Reconcile }},
		{"HYATLAS_EXTRACT_WORKERS", "99", func(c Config) bool { return c.LLM.Workers == 2 }},
		{"HYATLAS_CONSOLIDATE_EVERY", "often", func(c Config) bool { return c.Consolidate.Every == 6*time.Hour }},
		{"HYATLAS_CONSOLIDATE_CATCHUP", "-1m", func(c Config) bool { return c.Consolidate.Catchup == 20*time.Minute }},
		{"HYATLAS_CONSOLIDATE_BATCH", "1", func(c Config) bool { return c.Consolidate.Batch == 50 }},
		{"HYATLAS_CONSOLIDATE_PARALLEL", "5", func(c Config) bool { return c.Consolidate.Parallel == 2 }},
		{"HYATLAS_CONSOLIDATE_PARALLEL", "two", func(c Config) bool { return c.Consolidate.Parallel == 2 }},
		{"HYATLAS_CONSOLIDATE_GRAPH", "maybe", func(c Config) bool { return c.Consolidate.Graph }},
		{"HYATLAS_CROSS_SCHEMA_EVERY", "daily", func(c Config) bool { return c.Consolidate.CrossEvery == 24*time.Hour }},
		{"HYATLAS_RAW_RETENTION", "90d", func(c Config) bool { return c.Consolidate.RawRetention == 0 }},
		{"HYATLAS_STRENGTH_STEP", "0", func(c Config) bool { return c.Strength.Step == 0.1 }},
		{"HYATLAS_STRENGTH_BUMP", "big", func(c Config) bool { return c.Strength.Bump == 0.02 }},
		{"HYATLAS_STRENGTH_DECAY_AFTER", "a fortnight", func(c Config) bool { return c.Strength.DecayAfter == 336*time.Hour }},
		{"HYATLAS_INJECT_THRESHOLD", "1.2", func(c Config) bool { return c.Strength.InjectAt == 0.75 }},
		{"HYATLAS_PROMPT_LIMIT", "0", func(c Config) bool { return c.Strength.PromptLimit == 40 }},
		{"HYATLAS_SNAPSHOT_EVERY", "daily", func(c Config) bool { return c.Snapshot.Every == 24*time.Hour }},
		// Intervals so short the job would run without pause.
		{"HYATLAS_SNAPSHOT_EVERY", "1ns", func(c Config) bool { return c.Snapshot.Every == 24*time.Hour }},
		{"HYATLAS_SNAPSHOT_EVERY", "5m", func(c Config) bool { return c.Snapshot.Every == 24*time.Hour }},
		{"HYATLAS_CONSOLIDATE_EVERY", "1s", func(c Config) bool { return c.Consolidate.Every == 6*time.Hour }},
		{"HYATLAS_CONSOLIDATE_CATCHUP", "10s", func(c Config) bool { return c.Consolidate.Catchup == 20*time.Minute }},
		{"HYATLAS_CROSS_SCHEMA_EVERY", "1m", func(c Config) bool { return c.Consolidate.CrossEvery == 24*time.Hour }},
		{"HYATLAS_CATCHUP_EVERY", "1ms", func(c Config) bool { return c.LLM.CatchupEvery == 10*time.Minute }},
		{"HYATLAS_NOW_EVERY", "5s", func(c Config) bool { return c.LLM.NowEvery == 15*time.Minute }},
		{"HYATLAS_EXTRACT_TIMEOUT", "0.001", func(c Config) bool { return c.LLM.Timeout == 300*time.Second }},
		{"HYATLAS_SNAPSHOT_KEEP", "0", func(c Config) bool { return c.Snapshot.Keep == 7 }},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			c := mustLoad(t, map[string]string{tt.name: tt.value})
			if !tt.check(c) {
				t.Errorf("default not kept: %+v", c)
			}
			if len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], tt.name+":") ||
				!strings.Contains(c.Warnings[0], tt.value) {
				t.Errorf("Warnings = %q, want one naming %s and %q", c.Warnings, tt.name, tt.value)
			}
		})
	}
}

func TestLoadSnapshot(t *testing.T) {
	home := isolate(t)
	c := mustLoad(t, map[string]string{"HYATLAS_DATA": filepath.Join(home, "d")})
	if c.Snapshot.Every != 24*time.Hour || c.Snapshot.Keep != 7 || c.Snapshot.Dir != filepath.Join(home, "d-snapshots") {
		t.Fatalf("defaults = %+v", c.Snapshot)
	}
	c = mustLoad(t, map[string]string{"HYATLAS_DATA": filepath.Join(home, "d"), "HYATLAS_SNAPSHOT_EVERY": "off",
		"HYATLAS_SNAPSHOT_KEEP": "3", "HYATLAS_SNAPSHOT_DIR": filepath.Join(home, "backups")})
	if c.Snapshot.Every != 0 || c.Snapshot.Keep != 3 || c.Snapshot.Dir != filepath.Join(home, "backups") {
		t.Fatalf("set = %+v", c.Snapshot)
	}
	for _, inside := range []string{filepath.Join(home, "d"), filepath.Join(home, "d", "snaps"), filepath.Join(home, "d", "..snaps"),
		filepath.Join(home, "d", "...")} {
		if _, err := Load(env(map[string]string{"HYATLAS_DATA": filepath.Join(home, "d"), "HYATLAS_SNAPSHOT_DIR": inside})); err == nil ||
			!strings.HasPrefix(err.Error(), "HYATLAS_SNAPSHOT_DIR:") {
			t.Errorf("%s: %v, want a fatal error", inside, err)
		}
	}
	// Beside it, even with a name that starts with dots, is fine.
	for _, beside := range []string{filepath.Join(home, "..d-snapshots"), filepath.Join(home, "d", "..", "backups")} {
		if _, err := Load(env(map[string]string{"HYATLAS_DATA": filepath.Join(home, "d"), "HYATLAS_SNAPSHOT_DIR": beside})); err != nil {
			t.Errorf("%s: %v, want it taken", beside, err)
		}
	}
}

func TestLoadStrength(t *testing.T) {
	isolate(t)
	if c := mustLoad(t, nil); c.Strength != memory.DefaultStrengthConfig() {
		t.Fatalf("defaults = %+v", c.Strength)
	}
	c := mustLoad(t, map[string]string{"HYATLAS_STRENGTH_STEP": "0.05", "HYATLAS_STRENGTH_BUMP": "0", "HYATLAS_STRENGTH_DECAY_AFTER": "off",
		"HYATLAS_STRENGTH_DECAY": "0.1", "HYATLAS_STRENGTH_FLOOR": "0.2", "HYATLAS_INJECT_THRESHOLD": "0.6", "HYATLAS_PROMPT_LIMIT": "10"})
	want := memory.StrengthConfig{Step: 0.05, Decay: 0.1, Floor: 0.2, InjectAt: 0.6, PromptLimit: 10}
	if c.Strength != want || len(c.Warnings) != 0 {
		t.Fatalf("set = %+v (%q), want %+v", c.Strength, c.Warnings, want)
	}
}

func TestLoadConsolidate(t *testing.T) {
	isolate(t)
	c := mustLoad(t, nil)
	want := ConsolidateConfig{Every: 6 * time.Hour, Catchup: 20 * time.Minute, Batch: 50, Parallel: 2, Graph: true,
		CrossEvery: 24 * time.Hour}
	if c.Consolidate != want {
		t.Fatalf("defaults = %+v, want %+v", c.Consolidate, want)
	}
	c = mustLoad(t, map[string]string{"HYATLAS_CONSOLIDATE_EVERY": "2h", "HYATLAS_CONSOLIDATE_CATCHUP": "5m",
		"HYATLAS_CONSOLIDATE_BATCH": "25", "HYATLAS_CONSOLIDATE_PARALLEL": "4", "HYATLAS_CONSOLIDATE_RECLUSTER": "168h",
		"HYATLAS_CONSOLIDATE_GRAPH": "off", "HYATLAS_CROSS_SCHEMA_EVERY": "off", "HYATLAS_RAW_RETENTION": "2160h"})
	want = ConsolidateConfig{Every: 2 * time.Hour, Catchup: 5 * time.Minute, Batch: 25, Parallel: 4,
		Recluster: 168 * time.Hour, RawRetention: 2160 * time.Hour}
	if c.Consolidate != want || len(c.Warnings) != 0 {
		t.Fatalf("set = %+v (%q), want %+v", c.Consolidate, c.Warnings, want)
	}
	// Off is fatal only in ultra, where it would stop the slow path.
	c = mustLoad(t, map[string]string{"HYATLAS_MODE": "pro", "HYATLAS_CONSOLIDATE_EVERY": "off"})
	if c.Consolidate.Every != 0 {
		t.Fatalf("pro: %+v", c.Consolidate)
	}
}

func TestLoadValidSwitchesAndScore(t *testing.T) {
	isolate(t)
	c := mustLoad(t, map[string]string{
		"HYATLAS_AUTH": "off", "HYATLAS_ADMIN": "ON", "HYATLAS_MIN_SCORE": " 0.4 ",
		"HYATLAS_LLM_BASE": " http://127.0.0.1:11434/v1 ", "HYATLAS_LLM_MODEL": " qwen ",
		"HYATLAS_USER_ALIASES": "alice, al ;bob,robert",
	})
	if c.Auth || !c.Admin || c.MinScore != 0.4 || len(c.Warnings) != 0 {
		t.Errorf("Auth %v Admin %v MinScore %v Warnings %v", c.Auth, c.Admin, c.MinScore, c.Warnings)
	}
	if c.LLM.Base != "http://127.0.0.1:11434/v1" || c.LLM.Model != "qwen" || !c.LLM.Configured() {
		t.Errorf("LLM.Base %q LLM.Model %q", c.LLM.Base, c.LLM.Model)
	}
	if got := c.Aliases.Expand("al"); !reflect.DeepEqual(got, []string{"al", "alice"}) {
		t.Errorf("Expand(al) = %v", got)
	}
	if c.AliasesRaw != "alice, al ;bob,robert" {
		t.Errorf("AliasesRaw = %q", c.AliasesRaw)
	}
}

func TestLoadLLM(t *testing.T) {
	isolate(t)
	c := mustLoad(t, map[string]string{
		"HYATLAS_LLM_BASE": "https://llm.example/v1", "HYATLAS_LLM_MODEL": "m", "HYATLAS_LLM_KEY": "sk-secret-env-1",
		"HYATLAS_LLM_FALLBACK_BASE": "http://127.0.0.1:8080/v1", "HYATLAS_LLM_FALLBACK_KEY": "sk-secret-fb-2",
		"HYATLAS_CATCHUP_EVERY": "off", "HYATLAS_EPISODE_GAP": "600", "HYATLAS_RECONCILE": "on",
		"HYATLAS_NOW_PAGE": "off", "HYATLAS_EXTRACT_WORKERS": "4",
	})
	l := c.LLM
	if l.CatchupEvery != 0 || l.EpisodeGap != 10*time.Minute || !l.Reconcile || !l.NowOff || l.Workers != 4 || len(c.Warnings) != 0 {
		t.Errorf("LLM = %+v warnings %v", l, c.Warnings)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, c); strings.Contains(out, "sk-secret") {
			t.Errorf("%s of the config prints a key: %s", verb, out)
		}
	}
	for _, bad := range []map[string]string{{"HYATLAS_LLM_BASE": "llm.example/v1"}, {"HYATLAS_LLM_FALLBACK_BASE": "ftp://x"},
		{"HYATLAS_LLM_BASE": "http://127.0.0.1:9/v1 with space"}, {"HYATLAS_LLM_BASE": "https://user:pass@llm.example/v1"},
		{"HYATLAS_LLM_MODEL": strings.Repeat("m", 5000)}, {"HYATLAS_LLM_MODEL": "qwen\x00"},
		// A port no address can have: saved, it failed at every call.
		{"HYATLAS_LLM_BASE": "http://127.0.0.1:99999/v1"}, {"HYATLAS_LLM_BASE": "http://127.0.0.1:0/v1"},
		{"HYATLAS_LLM_BASE": "http://127.0.0.1:/v1"}, {"HYATLAS_EMBED_BASE": "http://127.0.0.1:70000/v1"},
		{"HYATLAS_MODELS_BASE": "http://127.0.0.1:65536/"}} {
		if _, err := Load(env(bad)); err == nil {
			t.Errorf("Load(%.80v) accepted a bad endpoint or model", bad)
		}
	}
	for _, good := range []string{"http://127.0.0.1:65535/v1", "http://[::1]:8080/v1", "https://llm.example/v1"} {
		if _, err := Load(env(map[string]string{"HYATLAS_LLM_BASE": good})); err != nil {
			t.Errorf("a good endpoint %s: %v", good, err)
		}
	}
	if _, err := Load(env(map[string]string{"HYATLAS_LLM_BASE": "https://user:pass@llm.example/v1"})); err == nil ||
		strings.Contains(err.Error(), "user:pass") {
		t.Errorf("a URL with a password: %v (it must be refused without repeating it)", err)
	}
}

func TestLoadHostAndAddr(t *testing.T) {
	isolate(t)
	tests := []struct {
		host, port string
		wantHost   string
		wantAddr   string
	}{
		{"", "", "127.0.0.1", "127.0.0.1:19528"},
		{" 0.0.0.0 ", "8080", "0.0.0.0", "0.0.0.0:8080"},
		{"localhost", "0", "localhost", "localhost:0"},
		{"::1", "", "::1", "[::1]:19528"},
		{"[::1]", "9000", "::1", "[::1]:9000"},
		{"[fe80::1]", "65535", "fe80::1", "[fe80::1]:65535"},
		{"::", " 1 ", "::", "[::]:1"},
	}
	for _, tt := range tests {
		c := mustLoad(t, map[string]string{"HYATLAS_GO_HOST": tt.host, "HYATLAS_GO_PORT": tt.port})
		if c.Host != tt.wantHost || c.Addr() != tt.wantAddr {
			t.Errorf("host %q port %q: Host %q Addr %q, want %q %q",
				tt.host, tt.port, c.Host, c.Addr(), tt.wantHost, tt.wantAddr)
		}
	}
}

func TestLoadAllowedHosts(t *testing.T) {
	isolate(t)
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"Example.COM:8080, foo.local.", []string{"example.com", "foo.local"}},
		{"[::1]:80,::1,[FE80::1]", []string{"::1", "::1", "fe80::1"}},
		{"LOCALHOST.", []string{"localhost"}},
	}
	for _, tt := range tests {
		c := mustLoad(t, map[string]string{"HYATLAS_ALLOWED_HOSTS": tt.in})
		if !reflect.DeepEqual(c.AllowedHosts, tt.want) {
			t.Errorf("HYATLAS_ALLOWED_HOSTS=%q: %q, want %q", tt.in, c.AllowedHosts, tt.want)
		}
	}
}

// A timeout too short, or off, is said in a timeout's words: it is not
// "too often", and it cannot be off.
func TestLoadExtractTimeoutWords(t *testing.T) {
	isolate(t)
	for value, want := range map[string]string{"500ms": `"500ms" is too short: at least 1s`, "off": `"off" would let a call run forever`} {
		c := mustLoad(t, map[string]string{"HYATLAS_EXTRACT_TIMEOUT": value})
		if c.LLM.Timeout != 300*time.Second || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], want) {
			t.Errorf("%s: timeout %v, warnings %q; want the default and %q", value, c.LLM.Timeout, c.Warnings, want)
		}
	}
}
