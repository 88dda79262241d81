package config

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestDefaultPathsLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG layout is Linux-only")
	}
	home := t.TempDir()
	xdg := t.TempDir()
	tests := []struct {
		name           string
		data, cfg, cch string // XDG_*_HOME values
		want           Paths
	}{
		{"home only", "", "", "", Paths{
			Data:   filepath.Join(home, ".local", "share", "hyatlas"),
			Config: filepath.Join(home, ".config", "hyatlas"),
			Cache:  filepath.Join(home, ".cache", "hyatlas"),
		}},
		{"absolute XDG", filepath.Join(xdg, "d"), filepath.Join(xdg, "c"), filepath.Join(xdg, "k"), Paths{
			Data:   filepath.Join(xdg, "d", "hyatlas"),
			Config: filepath.Join(xdg, "c", "hyatlas"),
			Cache:  filepath.Join(xdg, "k", "hyatlas"),
		}},
		{"relative XDG ignored", "rel/data", "rel/config", "rel/cache", Paths{
			Data:   filepath.Join(home, ".local", "share", "hyatlas"),
			Config: filepath.Join(home, ".config", "hyatlas"),
			Cache:  filepath.Join(home, ".cache", "hyatlas"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", home)
			t.Setenv("XDG_DATA_HOME", tt.data)
			t.Setenv("XDG_CONFIG_HOME", tt.cfg)
			t.Setenv("XDG_CACHE_HOME", tt.cch)
			got, err := DefaultPaths()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("DefaultPaths = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDefaultPathsNoHome(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("HOME is the home directory only on Unix")
	}
	t.Setenv("HOME", "")
	if _, err := DefaultPaths(); err == nil {
		t.Fatal("no error without HOME")
	}
	// Without a home Load fails unless every directory is given.
	if _, err := Load(env(map[string]string{"HYATLAS_GO_DATA": "/d"})); err == nil {
		t.Error("Load succeeded with Config and Cache unknown")
	}
	c, err := Load(env(map[string]string{
		"HYATLAS_GO_DATA": "/d", "HYATLAS_CONFIG_DIR": "/c", "HYATLAS_CACHE_DIR": "/k",
	}))
	if err != nil {
		t.Fatalf("Load with every directory set: %v", err)
	}
	if want := (Paths{Data: "/d", Config: "/c", Cache: "/k"}); c.Paths != want {
		t.Errorf("Paths = %+v, want %+v", c.Paths, want)
	}
}

func TestLoadPathOverrides(t *testing.T) {
	isolate(t)
	def, err := DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	abs := t.TempDir()
	tests := []struct {
		name string
		env  map[string]string
		want Paths
	}{
		{"none", nil, def},
		{"HYATLAS_DATA", map[string]string{"HYATLAS_DATA": abs},
			Paths{Data: abs, Config: def.Config, Cache: def.Cache}},
		{"GO_DATA wins", map[string]string{"HYATLAS_GO_DATA": filepath.Join(abs, "go"), "HYATLAS_DATA": abs},
			Paths{Data: filepath.Join(abs, "go"), Config: def.Config, Cache: def.Cache}},
		{"blank GO_DATA falls through", map[string]string{"HYATLAS_GO_DATA": "  ", "HYATLAS_DATA": abs},
			Paths{Data: abs, Config: def.Config, Cache: def.Cache}},
		{"relative", map[string]string{"HYATLAS_GO_DATA": "store/./x/.."},
			Paths{Data: filepath.Join(wd, "store"), Config: def.Config, Cache: def.Cache}},
		{"config and cache", map[string]string{
			"HYATLAS_CONFIG_DIR": filepath.Join(abs, "cfg"), "HYATLAS_CACHE_DIR": " cache "},
			Paths{Data: def.Data, Config: filepath.Join(abs, "cfg"), Cache: filepath.Join(wd, "cache")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, tt.env)
			if c.Paths != tt.want {
				t.Errorf("Paths = %+v, want %+v", c.Paths, tt.want)
			}
			for _, p := range []string{c.Paths.Data, c.Paths.Config, c.Paths.Cache} {
				if !filepath.IsAbs(p) {
					t.Errorf("%q is not absolute", p)
				}
			}
		})
	}
}
