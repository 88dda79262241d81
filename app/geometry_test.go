package app

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGeometry(t *testing.T) {
	dir := t.TempDir()
	if g := loadGeometry(dir); g.Width != defaultWidth || g.Height != defaultHeight || g.Placed {
		t.Fatalf("no file: %+v", g)
	}
	saveGeometry(dir, geometry{Width: 900, Height: 600, X: 40, Y: 30, Placed: true})
	if g := loadGeometry(dir); g != (geometry{Width: 900, Height: 600, X: 40, Y: 30, Placed: true}) {
		t.Fatalf("round trip: %+v", g)
	}
	for _, bad := range []string{`{"Width": 100, "Height": 100}`, `{"Width": 99999, "Height": 600}`, `not json`} {
		if err := os.WriteFile(filepath.Join(dir, geometryFile), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if g := loadGeometry(dir); g.Width != defaultWidth {
			t.Errorf("%s: %+v", bad, g)
		}
	}
	saveGeometry(dir, geometry{Width: 10, Height: 10}) // a collapsed window is not remembered
	if g := loadGeometry(dir); g.Width != defaultWidth {
		t.Errorf("after a collapsed save: %+v", g)
	}
}
