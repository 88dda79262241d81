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
	name := appDirName()
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
		// XDG: a relative value is invalid and ignored (os.UserConfigDir
		// would fail instead).
		return Paths{
			Data:   filepath.Join(xdgDir("XDG_DATA_HOME", home, ".local", "share"), name),
			Config: filepath.Join(xdgDir("XDG_CONFIG_HOME", home, ".config"), name),
			Cache:  filepath.Join(xdgDir("XDG_CACHE_HOME", home, ".cache"), name),
		}, nil
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return Paths{}, fmt.Errorf("find config directory: %w", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return Paths{}, fmt.Errorf("find cache directory: %w", err)
	}
	if runtime.GOOS == "windows" {
		return Paths{
			Data:   filepath.Join(cache, name, "data"), // %LOCALAPPDATA%\HyAtlas\data
			Config: filepath.Join(cfg, name),
			Cache:  filepath.Join(cache, name, "cache"),
		}, nil
	}
	return Paths{
		Data:   filepath.Join(cfg, name), // ~/Library/Application Support/HyAtlas
		Config: filepath.Join(cfg, name),
		Cache:  filepath.Join(cache, name),
	}, nil
}

// xdgDir returns $env if it is an absolute path, else home joined with def.
func xdgDir(env, home string, def ...string) string {
	if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(append([]string{home}, def...)...)
}
