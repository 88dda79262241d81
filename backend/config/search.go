package config

import "time"

// SearchConfig tunes recall.
type SearchConfig struct {
	Recency       bool          // HYATLAS_RECENCY (on)
	UsageLearning bool          // HYATLAS_USAGE_LEARNING (on)
	MMRLambda     float64       // HYATLAS_MMR_LAMBDA (0.75; 1 turns the diversity pass off)
	IntentionTTL  time.Duration // HYATLAS_INTENTION_TTL (168h; 0 keeps undated intentions)
}

// loadSearch reads the recall settings; a bad value is a warning that
// falls back to the default.
func loadSearch(getenv func(string) string, warn func(string, error)) SearchConfig {
	c := SearchConfig{}
	var err error
	if c.Recency, err = ParseSwitch(getenv("HYATLAS_RECENCY"), true); err != nil {
		warn("HYATLAS_RECENCY", err)
	}
	if c.UsageLearning, err = ParseSwitch(getenv("HYATLAS_USAGE_LEARNING"), true); err != nil {
		warn("HYATLAS_USAGE_LEARNING", err)
	}
	if c.MMRLambda, err = ParseFloat(getenv("HYATLAS_MMR_LAMBDA"), 0.75, 0.01, 1); err != nil {
		warn("HYATLAS_MMR_LAMBDA", err)
	}
	if c.IntentionTTL, err = ParseDuration(getenv("HYATLAS_INTENTION_TTL"), 168*time.Hour); err != nil {
		warn("HYATLAS_INTENTION_TTL", err)
	}
	return c
}

// DefaultSearch is the recall configuration with every default.
func DefaultSearch() SearchConfig {
	return loadSearch(func(string) string { return "" }, func(string, error) {})
}
