package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Paths are the app's own directories. Nothing is written elsewhere.
type Paths struct {
	Data   string // the store and workspace files
	Config string // the API token and settings
	Cache  string // downloaded models and runtime files
}

// appDirName is the folder name under the OS's per-user directories.
func appDirName() string {
	if runtime.GOOS == "linux" {
		return "hyatlas"
	}
	return "HyAtlas"
}

// DefaultPaths follows the OS conventions: XDG on Linux (data in
// $XDG_DATA_HOME or ~/.local/share, config in $XDG_CONFIG_HOME or
// ~/.config, cache in $XDG_CACHE_HOME or ~/.cache); Application Support
// and Caches on macOS; LocalAppData (data, cache) and AppData (config) on
// Windows.
func DefaultPaths() (Paths, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Paths{}, fmt.Errorf("find home directory: %w", err)
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return Paths{}, fmt.Errorf("find config directory: %w", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return Paths{}, fmt.Errorf("find cache directory: %w", err)
	}
	name := appDirName()
	p := Paths{Config: filepath.Join(cfg, name), Cache: filepath.Join(cache, name)}
	switch runtime.GOOS {
	case "windows":
		p.Data = filepath.Join(cache, name, "data") // %LOCALAPPDATA%\HyAtlas\data
		p.Cache = filepath.Join(cache, name, "cache")
	case "darwin":
		p.Data = filepath.Join(cfg, name) // ~/Library/Application Support/HyAtlas
	default:
		data := os.Getenv("XDG_DATA_HOME")
		if data == "" || !filepath.IsAbs(data) {
			data = filepath.Join(home, ".local", "share")
		}
		p.Data = filepath.Join(data, name)
	}
	return p, nil
}
