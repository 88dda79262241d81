package api

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// TokenFile is the name of the API token file in the config directory.
const TokenFile = "api-token"

// LoadOrCreateToken returns the per-install API token from dir, creating it
// (256 random bits, hex, file mode 0600) on first use. A token file that is
// readable by others is tightened to 0600.
func LoadOrCreateToken(dir string) (string, error) {
	path := filepath.Join(dir, TokenFile)
	tok, err := ReadToken(dir)
	if err == nil {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(path, 0o600); err != nil {
				return "", fmt.Errorf("restrict %s to 0600: %w", path, err)
			}
		}
		return tok, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create config dir: %w", err)
	}
	tok = randomHex(32)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return ReadToken(dir) // another process created it first
	}
	if err != nil {
		return "", fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tok, f.Close()
}

// ReadToken reads the token file; a missing file is fs.ErrNotExist.
func ReadToken(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, TokenFile))
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 {
		return "", fmt.Errorf("the token file %s is damaged: delete it and restart HyAtlas", filepath.Join(dir, TokenFile))
	}
	return tok, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

func tokenEqual(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// signInCodes are one-time codes that turn a dashboard link into a session
// cookie. A code works once; at most maxCodes are outstanding, the oldest
// dropped first.
type signInCodes struct {
	mu    sync.Mutex
	codes []string
}

const maxCodes = 16

func (c *signInCodes) issue() string {
	code := randomHex(16)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.codes = append(c.codes, code)
	if len(c.codes) > maxCodes {
		c.codes = c.codes[1:]
	}
	return code
}

func (c *signInCodes) redeem(code string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range c.codes {
		if tokenEqual(k, code) {
			c.codes = append(c.codes[:i], c.codes[i+1:]...)
			return true
		}
	}
	return false
}
