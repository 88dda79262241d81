package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// maxModelName bounds a model name (the longest hosted ids are about 100).
const maxModelName = 256

// CheckEndpoint refuses an endpoint that is not a plain http(s) URL, or
// that holds a user name or password (Settings and the ledger show the
// URL; a key belongs in the keyring). name prefixes the error.
func CheckEndpoint(name, v string) error {
	u, err := url.Parse(v)
	switch {
	case err != nil || !httpURL(u) || strings.ContainsFunc(v, unicode.IsSpace):
		return fmt.Errorf("%s: %q is not an http(s) URL (a host, and a port from 1 to 65535 if any)", name, v)
	case u.User != nil:
		return fmt.Errorf("%s: the URL holds a user name or password; give the key with `hyatlas key set` instead", name)
	}
	return nil
}

// httpURL reports whether u is an http(s) URL that can be dialled: a
// host, and a port, if it has one, from 1 to 65535.
func httpURL(u *url.URL) bool {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return false
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		return err == nil && n >= 1 && n <= 65535
	}
	return !strings.HasSuffix(u.Host, ":") // "host:" names no port
}

// extractTimeout reads HYATLAS_EXTRACT_TIMEOUT (300s): a timeout, not how
// often something runs, so one under 1s is too short, and 0 or off would
// let a call run forever; either is warned of and the default used.
func extractTimeout(v string, warn func(string, error)) time.Duration {
	const def, least = 300 * time.Second, time.Second
	d, err := ParseDuration(v, def)
	switch {
	case err != nil:
	case d == 0:
		err = fmt.Errorf("%q would let a call run forever", v)
	case d < least:
		err = fmt.Errorf("%q is too short: at least %s", strings.TrimSpace(v), DurationText(least))
	}
	if err != nil {
		warn("HYATLAS_EXTRACT_TIMEOUT", err)
		return def
	}
	return d
}

// SecretEnv names the variables that carry keys: read once into the
// configuration, then withheld from every program HyAtlas starts.
var SecretEnv = []string{"HYATLAS_LLM_KEY", "HYATLAS_LLM_FALLBACK_KEY", "HYATLAS_EMBED_KEY"}

// LLMConfig is the extraction endpoint and its schedules. The keys it
// holds (from the environment) never print: Format redacts them.
type LLMConfig struct {
	Base          string // HYATLAS_LLM_BASE: an OpenAI-compatible endpoint; "" means no LLM call at all
	Model         string // HYATLAS_LLM_MODEL
	Key           string // HYATLAS_LLM_KEY (lowest precedence)
	KeyFile       string // HYATLAS_LLM_KEY_FILE: a plain-text key read on every call
	FallbackModel string // HYATLAS_LLM_FALLBACK_MODEL: tried when the primary fails
	FallbackBase  string // HYATLAS_LLM_FALLBACK_BASE ("" = the primary's)
	FallbackKey   string // HYATLAS_LLM_FALLBACK_KEY; a fallback on another host never gets the primary key

	Timeout       time.Duration // HYATLAS_EXTRACT_TIMEOUT (300s): one call, retries included
	CatchupEvery  time.Duration // HYATLAS_CATCHUP_EVERY (10m; 0 off)
	CatchupMaxAge time.Duration // HYATLAS_CATCHUP_MAX_AGE (168h; 0 no limit)
	EpisodeGap    time.Duration // HYATLAS_EPISODE_GAP (30m; 0 off)
	NowEvery      time.Duration // HYATLAS_NOW_EVERY (15m; 0 after every write)
	NowOff        bool          // HYATLAS_NOW_PAGE=off
	DedupeScore   float64       // HYATLAS_DEDUPE_SCORE (0.92; 0 off)
	Reconcile     bool          // HYATLAS_RECONCILE (off)
	Workers       int           // HYATLAS_EXTRACT_WORKERS (2): background extractions at once
}

// Configured reports whether an endpoint and a model are set (the key may
// still be missing).
func (c LLMConfig) Configured() bool { return c.Base != "" && c.Model != "" }

// Format prints the configuration without its keys.
func (c LLMConfig) Format(f fmt.State, _ rune) {
	set := func(s string) string {
		if s == "" {
			return "unset"
		}
		return "[redacted]"
	}
	_, _ = fmt.Fprintf(f, "config.LLMConfig{Base:%q Model:%q Key:%s KeyFile:%q FallbackModel:%q FallbackBase:%q FallbackKey:%s}",
		c.Base, c.Model, set(c.Key), c.KeyFile, c.FallbackModel, c.FallbackBase, set(c.FallbackKey))
}

// loadLLM reads the LLM settings. A malformed endpoint URL is fatal (it
// would silently disable extraction); bad schedules and numbers are
// warnings that fall back to the defaults.
func loadLLM(getenv func(string) string, warn func(string, error)) (LLMConfig, error) {
	c := LLMConfig{
		Base:          strings.TrimSpace(getenv("HYATLAS_LLM_BASE")),
		Model:         strings.TrimSpace(getenv("HYATLAS_LLM_MODEL")),
		Key:           strings.TrimSpace(getenv("HYATLAS_LLM_KEY")),
		KeyFile:       strings.TrimSpace(getenv("HYATLAS_LLM_KEY_FILE")),
		FallbackModel: strings.TrimSpace(getenv("HYATLAS_LLM_FALLBACK_MODEL")),
		FallbackBase:  strings.TrimSpace(getenv("HYATLAS_LLM_FALLBACK_BASE")),
		FallbackKey:   strings.TrimSpace(getenv("HYATLAS_LLM_FALLBACK_KEY")),
	}
	for name, v := range map[string]string{"HYATLAS_LLM_BASE": c.Base, "HYATLAS_LLM_FALLBACK_BASE": c.FallbackBase} {
		if v == "" {
			continue
		}
		if err := CheckEndpoint(name, v); err != nil {
			return LLMConfig{}, err
		}
	}
	for name, v := range map[string]string{"HYATLAS_LLM_MODEL": c.Model, "HYATLAS_LLM_FALLBACK_MODEL": c.FallbackModel} {
		if len(v) > maxModelName || strings.ContainsFunc(v, unicode.IsControl) {
			return LLMConfig{}, fmt.Errorf("%s: a model name is at most %d bytes of plain text", name, maxModelName)
		}
	}
	durations := []struct {
		name     string
		dst      *time.Duration
		def, min time.Duration // min: the shortest interval a job may run at
	}{
		{"HYATLAS_CATCHUP_EVERY", &c.CatchupEvery, 10 * time.Minute, 30 * time.Second},
		{"HYATLAS_CATCHUP_MAX_AGE", &c.CatchupMaxAge, 168 * time.Hour, 0},
		{"HYATLAS_EPISODE_GAP", &c.EpisodeGap, 30 * time.Minute, 0},
		{"HYATLAS_NOW_EVERY", &c.NowEvery, 15 * time.Minute, time.Minute},
	}
	for _, d := range durations {
		v, err := ParseInterval(getenv(d.name), d.def, d.min)
		if err != nil {
			warn(d.name, err)
		}
		*d.dst = v
	}
	c.Timeout = extractTimeout(getenv("HYATLAS_EXTRACT_TIMEOUT"), warn)
	var err error
	now, err := ParseSwitch(getenv("HYATLAS_NOW_PAGE"), true)
	if err != nil {
		warn("HYATLAS_NOW_PAGE", err)
	}
	c.NowOff = !now
	if c.DedupeScore, err = ParseFloat(getenv("HYATLAS_DEDUPE_SCORE"), 0.92, 0, 1); err != nil {
		warn("HYATLAS_DEDUPE_SCORE", err)
	}
	if c.Reconcile, err = ParseSwitch(getenv("HYATLAS_RECONCILE"), false); err != nil {
		warn("HYATLAS_RECONCILE", err)
	}
	c.Workers = 2
	if v := strings.TrimSpace(getenv("HYATLAS_EXTRACT_WORKERS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 16 {
			warn("HYATLAS_EXTRACT_WORKERS", fmt.Errorf("%q is not a number from 1 to 16", v))
		} else {
			c.Workers = n
		}
	}
	return c, nil
}
