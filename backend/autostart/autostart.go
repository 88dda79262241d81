// Package autostart turns "launch HyAtlas at login" on and off by writing
// the operating system's own autostart entry. On Linux (and the BSDs) that
// is an XDG autostart file, $XDG_CONFIG_HOME/autostart/hyatlas.desktop
// (~/.config/autostart by default), which every freedesktop session reads.
// macOS (a LaunchAgent) and Windows (the Run key) are not written by this
// build: Enable reports that, and the README says how to do it by hand.
package autostart

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"hyatlas/backend/memory"
)

// FileName is the autostart entry's name.
const FileName = "hyatlas.desktop"

// Entry manages one user's autostart entry.
type Entry struct {
	dir  string // the autostart folder
	exec string // the program to start
}

// New returns the entry for the current user, starting exec (the running
// binary). getenv reads XDG_CONFIG_HOME and HOME.
func New(getenv func(string) string, exec string) Entry {
	base := getenv("XDG_CONFIG_HOME")
	if base == "" {
		base = filepath.Join(getenv("HOME"), ".config")
	}
	return Entry{dir: filepath.Join(base, "autostart"), exec: exec}
}

// Supported reports whether this system's autostart can be written here.
func Supported() bool { return runtime.GOOS != "darwin" && runtime.GOOS != "windows" }

// Path is the entry's file.
func (e Entry) Path() string { return filepath.Join(e.dir, FileName) }

// Enabled reports whether the entry exists (and is not hidden).
func (e Entry) Enabled() (bool, error) {
	b, err := os.ReadFile(e.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !strings.Contains(string(b), "\nHidden=true"), nil
}

// Set writes (on) or removes (off) the entry.
func (e Entry) Set(on bool) error {
	if !Supported() {
		return memory.Errorf(memory.EUNAVAILABLE, "launch at login is not set by this build on %s; see the README", runtime.GOOS)
	}
	if !on {
		if err := os.Remove(e.Path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the autostart entry: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		return fmt.Errorf("create the autostart folder: %w", err)
	}
	body := "[Desktop Entry]\nType=Application\nName=HyAtlas\nComment=Local memory for AI agents\n" +
		"Exec=" + quoteExec(e.exec) + "\nIcon=hyatlas\nTerminal=false\nX-GNOME-Autostart-enabled=true\n"
	tmp := e.Path() + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		return fmt.Errorf("write the autostart entry: %w", err)
	}
	return os.Rename(tmp, e.Path())
}

// quoteExec quotes a path for a desktop entry's Exec key when it needs it.
func quoteExec(p string) string {
	if !strings.ContainsAny(p, " \t\"'\\$`") {
		return p
	}
	r := strings.NewReplacer(`\`, `\\\\`, `"`, `\\"`, "`", "\\\\`", "$", `\\$`)
	return `"` + r.Replace(p) + `"`
}
