package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"hyatlas/backend/memory"
)

// ConsolidateConfig is the slow path's schedule (ultra only).
type ConsolidateConfig struct {
	Every        time.Duration // HYATLAS_CONSOLIDATE_EVERY (6h); 0 is fatal in ultra
	Catchup      time.Duration // HYATLAS_CONSOLIDATE_CATCHUP (20m): between passes while clusters are due
	Batch        int           // HYATLAS_CONSOLIDATE_BATCH (50): facts per cluster, one call each
	Parallel     int           // HYATLAS_CONSOLIDATE_PARALLEL (2; 1-4): calls at once
	Recluster    time.Duration // HYATLAS_CONSOLIDATE_RECLUSTER (0 = never)
	Graph        bool          // HYATLAS_CONSOLIDATE_GRAPH (on): relations and the arc
	CrossEvery   time.Duration // HYATLAS_CROSS_SCHEMA_EVERY (24h; 0 off)
	RawRetention time.Duration // HYATLAS_RAW_RETENTION (0 = never delete)
}

// loadConsolidate reads the slow path's settings. In ultra mode an
// interval of 0 or off is fatal: it would silently stop the slow path,
// which is what ultra is for. Other bad values are warnings that fall
// back to the defaults.
func loadConsolidate(getenv func(string) string, mode memory.Mode, warn func(string, error)) (ConsolidateConfig, error) {
	c := ConsolidateConfig{}
	durations := []struct {
		name     string
		dst      *time.Duration
		def, min time.Duration // min: the shortest interval a job may run at
	}{
		{"HYATLAS_CONSOLIDATE_EVERY", &c.Every, 6 * time.Hour, 5 * time.Minute},
		{"HYATLAS_CONSOLIDATE_CATCHUP", &c.Catchup, 20 * time.Minute, time.Minute},
		{"HYATLAS_CONSOLIDATE_RECLUSTER", &c.Recluster, 0, 0},
		{"HYATLAS_CROSS_SCHEMA_EVERY", &c.CrossEvery, 24 * time.Hour, 10 * time.Minute},
		{"HYATLAS_RAW_RETENTION", &c.RawRetention, 0, 0},
	}
	for _, d := range durations {
		v, err := ParseInterval(getenv(d.name), d.def, d.min)
		if err != nil {
			warn(d.name, err)
		}
		*d.dst = v
	}
	if c.Every == 0 && mode == memory.ModeUltra {
		return c, fmt.Errorf("HYATLAS_CONSOLIDATE_EVERY: %q would never consolidate; ultra mode needs an interval such as 6h (or use HYATLAS_MODE=pro)",
			getenv("HYATLAS_CONSOLIDATE_EVERY"))
	}
	if c.Catchup == 0 {
		c.Catchup = c.Every
	}
	c.Batch = intSetting(getenv, "HYATLAS_CONSOLIDATE_BATCH", 50, 2, 500, warn)
	c.Parallel = intSetting(getenv, "HYATLAS_CONSOLIDATE_PARALLEL", 2, 1, 4, warn)
	var err error
	if c.Graph, err = ParseSwitch(getenv("HYATLAS_CONSOLIDATE_GRAPH"), true); err != nil {
		warn("HYATLAS_CONSOLIDATE_GRAPH", err)
	}
	return c, nil
}

// intSetting reads a whole number in [lo, hi]; empty or bad gives def.
func intSetting(getenv func(string) string, name string, def, lo, hi int, warn func(string, error)) int {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		warn(name, fmt.Errorf("%q is not a number from %d to %d", v, lo, hi))
		return def
	}
	return n
}
