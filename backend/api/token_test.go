package api

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestLoadOrCreateToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config")
	toks := make([]string, 8)
	var wg sync.WaitGroup
	for i := range toks {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			tok, err := LoadOrCreateToken(dir)
			if err != nil {
				t.Error(err)
			}
			toks[i] = tok
		}(i)
	}
	wg.Wait()
	for _, tok := range toks {
		if tok != toks[0] || len(tok) != 64 {
			t.Fatalf("concurrent first starts disagree: %q", toks)
		}
	}
	path := filepath.Join(dir, TokenFile)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, TokenFile+".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	// A readable-by-others file is tightened.
	_ = os.Chmod(path, 0o644)
	if tok, err := LoadOrCreateToken(dir); err != nil || tok != toks[0] {
		t.Fatalf("reload: %q %v", tok, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after reload %v, want 0600", fi.Mode().Perm())
	}
	// A damaged file is reported, not silently replaced.
	_ = os.WriteFile(path, []byte("short\n"), 0o600)
	if _, err := LoadOrCreateToken(dir); err == nil {
		t.Error("a damaged token file was accepted")
	}
}
