package hermes

// The installer and the user's own config.yaml: a link, a byte-order
// mark, the user's notes.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config.yaml that is a symbolic link (dotfiles kept in a repository
// with GNU stow, chezmoi, yadm, home-manager) stays a link, and the file
// it points to is the one edited: the install changes one line of the
// user's config, it does not swap the link for a private copy.
func TestInstallKeepsASymlinkedConfigYAML(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	dotfiles := t.TempDir()
	target := filepath.Join(dotfiles, "hermes-config.yaml")
	if err := os.WriteFile(target, []byte(userConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "config.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Install(home); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("config.yaml was a symlink to %s; after the install it is a regular file (mode %v): the user's dotfiles link is broken", target, fi.Mode())
	}
	b, _ := os.ReadFile(target)
	if !strings.Contains(string(b), "provider: hyatlas") {
		t.Errorf("the link's target (the file the user keeps) was not edited:\n%s", b)
	}
}

// A config.yaml saved with a UTF-8 byte-order mark (some Windows editors
// write one) that starts with the memory block is valid YAML: the install
// edits that block instead of adding a second one (which the parse-back
// check would refuse).
func TestInstallAcceptsAConfigWithAByteOrderMark(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	cfg := "\ufeffmemory:\n  provider: honcho\nmodel:\n  default: m1\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := in.Install(home)
	if err != nil {
		t.Fatalf("install refused a valid config.yaml that starts with a BOM: %v", err)
	}
	if !st.Active || st.PreviousProvider != "honcho" {
		t.Errorf("after install: %+v", st)
	}
}

// Uninstall removes a config.yaml the install created only while it holds
// nothing else: notes or settings the user wrote into it as comments keep
// it (README: "unless something else is in it now").
func TestUninstallKeepsACreatedConfigTheUserWroteNotesInto(t *testing.T) {
	in := newInstaller(t)
	home := t.TempDir()
	if _, err := in.Install(home); err != nil { // creates config.yaml
		t.Fatal(err)
	}
	p := filepath.Join(home, "config.yaml")
	b, _ := os.ReadFile(p)
	notes := "# My notes: try these later\n# model:\n#   default: qwen3-coder-30b   # the fast one\n"
	if err := os.WriteFile(p, append([]byte(notes), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Uninstall(home); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("uninstall deleted config.yaml holding the user's notes %q: %v", notes, err)
	}
	if !strings.Contains(string(got), "qwen3-coder-30b") {
		t.Errorf("the user's notes are gone: %q", got)
	}
}
