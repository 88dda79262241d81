//go:build e2e

package app_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/config"
	"hyatlas/backend/engine"
	"hyatlas/backend/memory"
	"hyatlas/backend/secrets"
)

// emptyKeyring holds no key and takes none: this test never needs one.
type emptyKeyring struct{}

func (emptyKeyring) Get(string, string) (string, error) { return "", secrets.ErrNotFound }
func (emptyKeyring) Set(string, string, string) error   { return secrets.ErrNotFound }
func (emptyKeyring) Delete(string, string) error        { return nil }

// TestSignInPageInChromium is the tray's Open in browser, but for the
// opener: the engine writes the sign-in page in the download folder, the
// browser opens that file, lands on the dashboard signed in, and the page
// is gone once its code is used (frontend/e2e/signin-page.e2e.mjs).
func TestSignInPageInChromium(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "Downloads"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	dir := t.TempDir()
	cfg := config.Config{Host: "127.0.0.1", Port: 0, Auth: true, Mode: memory.ModeLite, MinScore: -1,
		Paths: config.Paths{Data: filepath.Join(dir, "data"), Config: filepath.Join(dir, "config"), Cache: filepath.Join(dir, "cache")},
		Embed: config.EmbedConfig{Choice: config.EmbedLocal}}
	eng, err := engine.Open(context.Background(), cfg, engine.Options{Assets: os.DirFS("../frontend/dist/app"),
		Keyring: emptyKeyring{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	if _, err := eng.Listen(); err != nil {
		t.Fatal(err)
	}
	page, err := eng.SignInPage()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(page) != filepath.Join(home, "Downloads") {
		t.Fatalf("the page is at %s, not in the download folder", page)
	}
	out, err := runNode("signin-page.e2e.mjs", "file://"+page)
	t.Logf("signin-page.e2e.mjs: %s", out)
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("signin-page.e2e.mjs failed: %v", err)
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Errorf("the page outlived its code (%v)", err)
	}
}
