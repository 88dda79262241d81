package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// The sign-in page goes to a folder every browser can read, snap and
// Flatpak ones included: the download folder, never a hidden one.
func TestSignInPageDir(t *testing.T) {
	tests := []struct {
		name     string
		userDirs string   // user-dirs.dirs ("" none)
		make     []string // folders under home
		want     string   // under home ("" home itself)
	}{
		{"the folder user-dirs names", `XDG_DOWNLOAD_DIR="$HOME/Téléchargements"` + "\n", []string{"Téléchargements", "Downloads"}, "Téléchargements"},
		{"a relative folder", `XDG_DOWNLOAD_DIR="HOME/dl"` + "\n", []string{"dl", "Downloads"}, "Downloads"},
		{"a named folder that is missing", `XDG_DOWNLOAD_DIR="$HOME/Gone"` + "\n", []string{"Downloads"}, "Downloads"},
		{"a hidden named folder", `XDG_DOWNLOAD_DIR="$HOME/.cache/dl"` + "\n", []string{".cache/dl", "Downloads"}, "Downloads"},
		{"no user-dirs", "", []string{"Downloads"}, "Downloads"},
		{"no download folder at all", "", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			config := filepath.Join(home, ".config")
			for _, d := range append([]string{".config"}, tc.make...) {
				if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if tc.userDirs != "" {
				if err := os.WriteFile(filepath.Join(config, "user-dirs.dirs"), []byte("# written by xdg-user-dirs-update\n"+tc.userDirs), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want := filepath.Join(home, tc.want)
			if got := signInPageDir(home, ""); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
			if got := signInPageDir(home, config); got != want {
				t.Errorf("with XDG_CONFIG_HOME: got %s, want %s", got, want)
			}
		})
	}
}
