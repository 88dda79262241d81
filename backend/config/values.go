package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration setting the way every HYATLAS_* duration
// is read: a Go duration ("15m", "6h"), or a bare number of seconds; "0",
// "off", "false" and "no" turn the feature off (returned as 0, ok). An
// empty value gives def. Anything else is an error, which the caller logs
// before using def, so a typo never changes a schedule silently.
func ParseDuration(v string, def time.Duration) (time.Duration, error) {
	v = strings.TrimSpace(strings.ToLower(v))
	switch v {
	case "":
		return def, nil
	case "0", "off", "false", "no":
		return 0, nil
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n < 0 {
			return def, fmt.Errorf("negative duration %q", v)
		}
		// NaN, Inf and overflowing counts would convert to garbage.
		if math.IsNaN(n) || n*float64(time.Second) >= float64(math.MaxInt64) {
			return def, fmt.Errorf("%q is not a duration (write 15m, 6h or a number of seconds)", v)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return def, fmt.Errorf("%q is not a duration (write 15m, 6h or a number of seconds)", v)
	}
	if d < 0 {
		return def, fmt.Errorf("negative duration %q", v)
	}
	return d, nil
}

// ParseInterval is ParseDuration for how often a job runs: a value other
// than off that is shorter than min would run the job almost without
// pause (a snapshot every nanosecond), so it is an error and def is used.
func ParseInterval(v string, def, min time.Duration) (time.Duration, error) {
	d, err := ParseDuration(v, def)
	if err == nil && d > 0 && d < min {
		return def, fmt.Errorf("%q is too often: at least %s, or off", strings.TrimSpace(v), DurationText(min))
	}
	return d, err
}

// ParseSwitch reads an on/off setting: on, true, 1, yes or off, false, 0,
// no (any case). An empty value gives def.
func ParseSwitch(v string, def bool) (bool, error) {
	switch strings.TrimSpace(strings.ToLower(v)) {
	case "":
		return def, nil
	case "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	default:
		return def, fmt.Errorf("%q is not on or off", v)
	}
}

// ParseFloat reads a number in [lo, hi]; empty gives def.
func ParseFloat(v string, def, lo, hi float64) (float64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < lo || f > hi {
		return def, fmt.Errorf("%q is not a number between %g and %g", v, lo, hi)
	}
	return f, nil
}
