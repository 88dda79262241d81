package engine

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SignInPage writes a page that takes a browser on to a new one-time
// sign-in link to this instance's dashboard, and returns its path (see
// api.Server.SignInPage; "" without sign-in, when DashboardURL carries no
// code). The page goes where every browser can read it: the person's
// download folder (signInPageDir). The runtime folder or a hidden one
// would be private too, but the snap and Flatpak browsers Ubuntu and
// others ship cannot read them.
func (e *Engine) SignInPage() (string, error) {
	base := e.BaseURL()
	if base == "" {
		return "", fmt.Errorf("sign-in page: HyAtlas is not listening")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("sign-in page: %w", err)
	}
	return e.API.SignInPage(signInPageDir(home, os.Getenv("XDG_CONFIG_HOME")), base)
}

// signInPageDir is the download folder XDG's user-dirs.dirs names
// (XDG_DOWNLOAD_DIR, in configHome or ~/.config), else ~/Downloads,
// else home: a folder that exists and is not hidden.
func signInPageDir(home, configHome string) string {
	if configHome == "" {
		configHome = filepath.Join(home, ".config")
	}
	for _, dir := range []string{userDirsDownload(filepath.Join(configHome, "user-dirs.dirs"), home),
		filepath.Join(home, "Downloads")} {
		if dir == "" || !filepath.IsAbs(dir) || hidden(dir) {
			continue
		}
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
	}
	return home
}

// userDirsDownload reads XDG_DOWNLOAD_DIR from a user-dirs.dirs file
// (lines like XDG_DOWNLOAD_DIR="$HOME/Downloads"); "" when it has none.
func userDirsDownload(file, home string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "XDG_DOWNLOAD_DIR=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"`)
		if rest, ok := strings.CutPrefix(v, "$HOME"); ok {
			v = home + rest
		}
		return filepath.Clean(v)
	}
	return ""
}

// hidden reports whether a folder of path starts with a dot.
func hidden(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return false
}
