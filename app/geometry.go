package app

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// geometryFile keeps the window's size and position between runs, in the
// config directory.
const geometryFile = "window.json"

// geometry is the window's last size and position.
type geometry struct {
	Width, Height int
	X, Y          int
	Placed        bool // X and Y are known
}

// Window size bounds.
const (
	defaultWidth, defaultHeight = 1100, 760
	minWidth, minHeight         = 720, 480
	maxSide                     = 10000
)

// loadGeometry reads the last geometry, or the defaults when there is
// none or it makes no sense.
func loadGeometry(dir string) geometry {
	g := geometry{Width: defaultWidth, Height: defaultHeight}
	b, err := os.ReadFile(filepath.Join(dir, geometryFile))
	if err != nil {
		return g
	}
	var saved geometry
	if json.Unmarshal(b, &saved) != nil || saved.Width < minWidth || saved.Height < minHeight ||
		saved.Width > maxSide || saved.Height > maxSide {
		return g
	}
	return saved
}

// saveGeometry writes the geometry (best effort: a window that does not
// remember its size is no reason to fail a quit).
func saveGeometry(dir string, g geometry) {
	if g.Width < minWidth || g.Height < minHeight {
		return
	}
	b, _ := json.Marshal(g)
	tmp := filepath.Join(dir, geometryFile+".tmp")
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, filepath.Join(dir, geometryFile))
	}
}
