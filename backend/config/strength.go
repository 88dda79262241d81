package config

import (
	"time"

	"hyatlas/backend/memory"
)

// loadStrength reads the strength model's settings; a bad value is a
// warning and the default is used.
func loadStrength(getenv func(string) string, warn func(string, error)) memory.StrengthConfig {
	c := memory.DefaultStrengthConfig()
	floats := []struct {
		name   string
		dst    *float64
		lo, hi float64
	}{
		{"HYATLAS_STRENGTH_STEP", &c.Step, 0.01, 1},
		{"HYATLAS_STRENGTH_BUMP", &c.Bump, 0, 0.5},
		{"HYATLAS_STRENGTH_DECAY", &c.Decay, 0, 0.5},
		{"HYATLAS_STRENGTH_FLOOR", &c.Floor, 0, 1},
		{"HYATLAS_INJECT_THRESHOLD", &c.InjectAt, 0, 1},
	}
	for _, f := range floats {
		v, err := ParseFloat(getenv(f.name), *f.dst, f.lo, f.hi)
		if err != nil {
			warn(f.name, err)
		}
		*f.dst = v
	}
	var err error
	if c.DecayAfter, err = ParseDuration(getenv("HYATLAS_STRENGTH_DECAY_AFTER"), 14*24*time.Hour); err != nil {
		warn("HYATLAS_STRENGTH_DECAY_AFTER", err)
	}
	c.PromptLimit = intSetting(getenv, "HYATLAS_PROMPT_LIMIT", c.PromptLimit, 1, 200, warn)
	return c
}
