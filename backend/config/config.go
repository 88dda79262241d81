// Package config reads the HYATLAS_* environment and the OS paths into one
// Config. Environment values win over defaults; the settings store the UI
// edits (a later release) sits between them.
package config

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"hyatlas/backend/memory"
)

// Defaults.
const (
	DefaultHost = "127.0.0.1"
	DefaultPort = 19528
)

// Config is everything the engine needs to start.
type Config struct {
	Host         string   // HYATLAS_GO_HOST
	Port         int      // HYATLAS_GO_PORT; 0 picks a free port
	AllowedHosts []string // HYATLAS_ALLOWED_HOSTS, lower-case host names
	Paths        Paths    // HYATLAS_GO_DATA / HYATLAS_DATA, HYATLAS_CONFIG_DIR, HYATLAS_CACHE_DIR

	Auth  bool // HYATLAS_AUTH (on): bearer token on /api/*
	Admin bool // HYATLAS_ADMIN (off): whole-store deletes and /api/v1/admin/*

	Mode        memory.Mode // HYATLAS_MODE (ultra); an invalid value is fatal
	SyncExtract *bool       // HYATLAS_SYNC_EXTRACT; nil follows the mode; invalid is fatal
	MinScore    float64     // HYATLAS_MIN_SCORE; -1 means the embedder's default
	Aliases     memory.Aliases
	AliasesRaw  string

	LLM    LLMConfig    // HYATLAS_LLM_* and the extraction schedules
	Search SearchConfig // recall options
	// Consolidate is the slow path's schedule (ultra).
	Consolidate ConsolidateConfig
	// Strength is the strength model (HYATLAS_STRENGTH_*, the prompt block).
	Strength memory.StrengthConfig
	// CompactThreshold is HYATLAS_AUTO_COMPACT_THRESHOLD (0 off).
	CompactThreshold int
	// Snapshot is when and where snapshots are made.
	Snapshot SnapshotConfig

	Embed EmbedConfig
	// ModelsBase is HYATLAS_MODELS_BASE: where models are downloaded from
	// (a mirror of Hugging Face); the files' checksums stay pinned.
	ModelsBase string

	// Warnings lists values that could not be read and were replaced by
	// their defaults; the caller logs each once.
	Warnings []string
}

// Addr is the listen address.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// ExtractSync reports whether a write waits for its extraction: the
// HYATLAS_SYNC_EXTRACT value, else pro blocks and ultra does not.
func (c Config) ExtractSync() bool {
	if c.SyncExtract != nil {
		return *c.SyncExtract
	}
	return c.Mode == memory.ModePro
}

// Load reads the configuration from getenv (os.Getenv in production). It
// fails only for values that must not be guessed: an unknown mode or sync
// switch, a bad port or host, bad aliases, or no usable directories.
func Load(getenv func(string) string) (Config, error) {
	c := Config{MinScore: -1}
	warn := func(name string, err error) {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %v; using the default", name, err))
	}
	var err error

	if c.Mode, err = memory.ParseMode(getenv("HYATLAS_MODE"), memory.ModeUltra); err != nil {
		return Config{}, fmt.Errorf("HYATLAS_MODE: %s", memory.ErrorMessage(err))
	}
	if v := getenv("HYATLAS_SYNC_EXTRACT"); strings.TrimSpace(v) != "" {
		b, err := ParseSwitch(v, false)
		if err != nil {
			return Config{}, fmt.Errorf("HYATLAS_SYNC_EXTRACT: %v", err)
		}
		c.SyncExtract = &b
	}

	c.Host = strings.Trim(strings.TrimSpace(getenv("HYATLAS_GO_HOST")), "[]")
	if c.Host == "" {
		c.Host = DefaultHost
	}
	if ip := net.ParseIP(c.Host); ip == nil && c.Host != "localhost" {
		return Config{}, fmt.Errorf("HYATLAS_GO_HOST: %q is not an IP address or localhost", c.Host)
	}
	c.Port = DefaultPort
	if v := strings.TrimSpace(getenv("HYATLAS_GO_PORT")); v != "" {
		if c.Port, err = strconv.Atoi(v); err != nil || c.Port < 0 || c.Port > 65535 {
			return Config{}, fmt.Errorf("HYATLAS_GO_PORT: %q is not a port number (0-65535)", v)
		}
	}
	for _, h := range strings.Split(getenv("HYATLAS_ALLOWED_HOSTS"), ",") {
		if h = normalizeHost(h); h != "" {
			c.AllowedHosts = append(c.AllowedHosts, h)
		}
	}

	if c.Auth, err = ParseSwitch(getenv("HYATLAS_AUTH"), true); err != nil {
		warn("HYATLAS_AUTH", err)
	}
	if c.Admin, err = ParseSwitch(getenv("HYATLAS_ADMIN"), false); err != nil {
		warn("HYATLAS_ADMIN", err)
	}
	if v := getenv("HYATLAS_MIN_SCORE"); strings.TrimSpace(v) != "" {
		if c.MinScore, err = ParseFloat(v, -1, 0, 1); err != nil {
			warn("HYATLAS_MIN_SCORE", err)
		}
	}
	c.AliasesRaw = getenv("HYATLAS_USER_ALIASES")
	if c.Aliases, err = memory.ParseAliases(c.AliasesRaw); err != nil {
		return Config{}, fmt.Errorf("HYATLAS_USER_ALIASES: %s", memory.ErrorMessage(err))
	}
	if c.LLM, err = loadLLM(getenv, warn); err != nil {
		return Config{}, err
	}
	c.Search = loadSearch(getenv, warn)
	if c.Consolidate, err = loadConsolidate(getenv, c.Mode, warn); err != nil {
		return Config{}, err
	}
	c.Strength = loadStrength(getenv, warn)
	c.CompactThreshold = intSetting(getenv, "HYATLAS_AUTO_COMPACT_THRESHOLD", 0, 0, 10_000_000, warn)
	if c.Embed, err = loadEmbed(getenv); err != nil {
		return Config{}, err
	}
	if v := strings.TrimSpace(getenv("HYATLAS_MODELS_BASE")); v != "" {
		u, err := url.Parse(v)
		if err != nil || !httpURL(u) {
			return Config{}, fmt.Errorf("HYATLAS_MODELS_BASE: %q is not an http(s) URL", v)
		}
		c.ModelsBase = strings.TrimRight(v, "/") + "/"
	}

	if c.Paths, err = loadPaths(getenv); err != nil {
		return Config{}, err
	}
	if c.Snapshot, err = loadSnapshot(getenv, c.Paths.Data, warn); err != nil {
		return Config{}, err
	}
	return c, nil
}

func loadPaths(getenv func(string) string) (Paths, error) {
	// The OS defaults are needed only for directories not set here, so a
	// missing home directory is fatal only if one of them is left unset.
	p, defErr := DefaultPaths()
	for _, o := range []struct {
		names []string
		dst   *string
	}{
		{[]string{"HYATLAS_GO_DATA", "HYATLAS_DATA"}, &p.Data},
		{[]string{"HYATLAS_CONFIG_DIR"}, &p.Config},
		{[]string{"HYATLAS_CACHE_DIR"}, &p.Cache},
	} {
		for _, name := range o.names {
			if v := strings.TrimSpace(getenv(name)); v != "" {
				abs, err := filepath.Abs(v)
				if err != nil {
					return Paths{}, fmt.Errorf("%s: %w", name, err)
				}
				*o.dst = abs
				break
			}
		}
	}
	if defErr != nil && (p.Data == "" || p.Config == "" || p.Cache == "") {
		return Paths{}, defErr
	}
	return p, nil
}

// normalizeHost lower-cases a host name and drops a port and trailing dot.
func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.TrimSuffix(strings.Trim(h, "[]"), ".")
}
