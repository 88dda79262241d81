package api

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"hyatlas/backend/atomicfile"
)

// tokenSource is the API token the server checks requests against: the
// token file's, read again whenever the file changes (one stat per checked
// request), so a token made by `hyatlas token --new` takes effect in a
// running instance at its next request, and the old one stops working
// then. A token file that goes missing or is damaged leaves the last good
// token in force. With no directory (tests) the token is fixed.
type tokenSource struct {
	dir string
	mu  sync.Mutex
	tok string
	fi  os.FileInfo // the file the token was read from
}

// current returns the token in force and whether it changed since the
// last call (the caller ends the dashboard sessions then).
func (t *tokenSource) current() (tok string, changed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir == "" {
		return t.tok, false
	}
	fi, err := os.Stat(filepath.Join(t.dir, TokenFile))
	if err != nil || t.fi != nil && sameFileState(t.fi, fi) {
		return t.tok, false
	}
	read, fi, err := readTokenFile(t.dir)
	if err != nil {
		return t.tok, false
	}
	changed = read != t.tok
	t.tok, t.fi = read, fi
	return t.tok, changed
}

// replace writes a new token to the file and puts in force the token the
// file holds afterwards: its own, or, when `hyatlas token --new` replaced
// the file at the same moment, that one, so the server never holds a
// token the file does not (the CLI and the Hermes plugin read the file).
func (t *tokenSource) replace() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir == "" {
		return "", errors.New("this server has no token file")
	}
	if _, err := NewToken(t.dir); err != nil {
		return "", err
	}
	tok, fi, err := readTokenFile(t.dir)
	if err != nil {
		return "", fmt.Errorf("read the new token file: %w", err)
	}
	t.tok, t.fi = tok, fi
	return tok, nil
}

// readTokenFile reads the token and the state of the file it came from,
// through one open file, so the two always belong together.
func readTokenFile(dir string) (string, os.FileInfo, error) {
	f, err := os.Open(filepath.Join(dir, TokenFile))
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", nil, err
	}
	tok, err := parseToken(b, dir)
	return tok, fi, err
}

// sameFileState reports whether b is the file a was, unchanged: the same
// file (a rename over it makes another) with the same size and time.
func sameFileState(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// NewToken replaces the token file in dir with a new token (256 random
// bits, hex, mode 0600), written in full and renamed over the old one
// (atomicfile), so a reader sees the old token or the new, never half of
// one. It returns the new token.
func NewToken(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create config dir: %w", err)
	}
	tok := randomHex(32)
	if err := atomicfile.Write(filepath.Join(dir, TokenFile), []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("replace the token file: %w", err)
	}
	return tok, nil
}
