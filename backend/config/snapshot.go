package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// SnapshotConfig is when and where snapshots are made.
type SnapshotConfig struct {
	Every time.Duration // HYATLAS_SNAPSHOT_EVERY (24h; the first a minute after start; 0 off)
	Keep  int           // HYATLAS_SNAPSHOT_KEEP (7): scheduled snapshots kept
	Dir   string        // HYATLAS_SNAPSHOT_DIR (default: <data>-snapshots, next to the data dir)
}

// loadSnapshot reads the snapshot settings. A folder inside the data dir is
// fatal: a snapshot must survive the data dir being replaced or lost.
func loadSnapshot(getenv func(string) string, data string, warn func(string, error)) (SnapshotConfig, error) {
	c := SnapshotConfig{Keep: 7}
	var err error
	if c.Every, err = ParseInterval(getenv("HYATLAS_SNAPSHOT_EVERY"), 24*time.Hour, 10*time.Minute); err != nil {
		warn("HYATLAS_SNAPSHOT_EVERY", err)
	}
	c.Keep = intSetting(getenv, "HYATLAS_SNAPSHOT_KEEP", 7, 1, 1000, warn)
	c.Dir = strings.TrimSpace(getenv("HYATLAS_SNAPSHOT_DIR"))
	if c.Dir == "" {
		c.Dir = filepath.Clean(data) + "-snapshots"
	}
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return c, fmt.Errorf("HYATLAS_SNAPSHOT_DIR: %v", err)
	}
	c.Dir = abs
	// Inside unless the way there goes up first: a folder in the data dir
	// named "..snaps" is inside it too.
	if rel, err := filepath.Rel(data, c.Dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return c, fmt.Errorf("HYATLAS_SNAPSHOT_DIR: %q is inside the data directory %q; snapshots must live outside it", c.Dir, data)
	}
	return c, nil
}
