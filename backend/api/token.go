package api

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
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
	// Write a complete file under a temporary name, then link it into
	// place: a reader never sees a half-written token, and of two
	// processes creating it at once one wins and the other reads it.
	tmp, tok, err := writeTokenTemp(dir)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		return ReadToken(dir) // another process created it first
	} else if err != nil {
		return "", fmt.Errorf("create %s: %w", path, err)
	}
	return tok, nil
}

// ReadToken reads the token file; a missing file is fs.ErrNotExist.
func ReadToken(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, TokenFile))
	if err != nil {
		return "", err
	}
	return parseToken(b, dir)
}

// parseToken is the token in the bytes of dir's token file.
func parseToken(b []byte, dir string) (string, error) {
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

// SignIns holds the dashboard's one-time sign-in codes and the sessions
// they became. A code works once, within codeTTL of being made (a link
// printed to a log or seen on a command line does not stand for long); a
// session is a random id (never the API
// token), valid until the token changes or the process stops; the
// composition root hands the same SignIns to the server a restart builds,
// and a restart that replaces the process hands them over (Handover), so
// an open dashboard stays signed in. At most maxSignIns of each are kept,
// the oldest dropped first. Sessions and the token are kept as SHA-256
// hashes: what is handed over opens nothing by itself.
type SignIns struct {
	mu        sync.Mutex
	codes     []signInCode
	sessions  []string // hashes of the session ids
	tokenHash string   // of the API token the sessions were opened under
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// under ties the sessions to the token in force: a server built with
// another one (a new token made while HyAtlas was stopping) ends them.
func (c *SignIns) under(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := hashOf(token)
	if c.tokenHash != "" && !tokenEqual(c.tokenHash, h) {
		c.codes, c.sessions = nil, nil
	}
	c.tokenHash = h
}

// Handover is the sessions as text, for the process a restart starts
// (which passes it to Receive): the token's hash, then the sessions'.
func (c *SignIns) Handover() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tokenHash == "" || len(c.sessions) == 0 {
		return ""
	}
	return c.tokenHash + " " + strings.Join(c.sessions, ",")
}

// Receive takes the sessions a Handover gave; they stay valid if the new
// server runs under the same token. Text of another shape is ignored.
func (c *SignIns) Receive(text string) {
	token, list, ok := strings.Cut(text, " ")
	if !ok || !isHash(token) {
		return
	}
	var sessions []string
	for _, h := range strings.Split(list, ",") {
		if !isHash(h) {
			return
		}
		sessions = pushBounded(sessions, h)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tokenHash, c.sessions = token, sessions
}

func isHash(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == 64 && err == nil
}

const maxSignIns = 64

// CodeTTL is how long a sign-in code (a dashboard link) works unused.
const CodeTTL = 10 * time.Minute

// signInCode is an unused sign-in code, when it was made, and the page
// holding it (SignInPage), if any.
type signInCode struct {
	code string
	at   time.Time
	page string
}

// forget drops k's page: a code that is used, stale or ended leaves no
// file behind.
func (k signInCode) forget() {
	if k.page != "" {
		_ = os.Remove(k.page)
	}
}

// issueCode makes a code; page is the file that will hold it ("" none).
func (c *SignIns) issueCode(page string) string {
	code := randomHex(16)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropStale()
	c.codes = append(c.codes, signInCode{code, time.Now(), page})
	if len(c.codes) > maxSignIns {
		c.codes[0].forget()
		c.codes = c.codes[1:]
	}
	return code
}

// dropStale forgets the codes older than CodeTTL (c.mu held).
func (c *SignIns) dropStale() {
	fresh := c.codes[:0]
	for _, k := range c.codes {
		if time.Since(k.at) < CodeTTL {
			fresh = append(fresh, k)
		} else {
			k.forget()
		}
	}
	c.codes = fresh
}

// sweepLater drops the stale codes (and their pages) once a code made now
// is stale, so a page nobody opened does not outlive its code.
func (c *SignIns) sweepLater() {
	time.AfterFunc(CodeTTL+time.Second, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.dropStale()
	})
}

// ForgetCodes drops every unused code and its page (HyAtlas is stopping:
// its codes end with it).
func (c *SignIns) ForgetCodes() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.codes {
		k.forget()
	}
	c.codes = nil
}

// redeem turns a valid code into a new session id ("" if the code is
// unknown, used or older than CodeTTL).
func (c *SignIns) redeem(code string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropStale()
	for i, k := range c.codes {
		if tokenEqual(k.code, code) {
			k.forget()
			c.codes = append(c.codes[:i], c.codes[i+1:]...)
			session := randomHex(32)
			c.sessions = pushBounded(c.sessions, hashOf(session))
			return session
		}
	}
	return ""
}

func (c *SignIns) validSession(id string) bool {
	h := hashOf(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.sessions {
		if tokenEqual(s, h) {
			return true
		}
	}
	return false
}

// endSessions ends every session but keep ("" ends all) and drops the
// unused sign-in codes: the token is now token.
func (c *SignIns) endSessions(keep, token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.codes {
		k.forget()
	}
	c.codes, c.tokenHash = nil, hashOf(token)
	var kept []string
	for _, s := range c.sessions {
		if keep != "" && tokenEqual(s, hashOf(keep)) {
			kept = append(kept, s)
		}
	}
	c.sessions = kept
}

func pushBounded(list []string, v string) []string {
	list = append(list, v)
	if len(list) > maxSignIns {
		list = list[1:]
	}
	return list
}

// writeTokenTemp writes a new token to a synced temporary file (mode 0600)
// in dir and returns its name and the token.
func writeTokenTemp(dir string) (name, tok string, err error) {
	f, err := os.CreateTemp(dir, TokenFile+".*")
	if err != nil {
		return "", "", fmt.Errorf("create token: %w", err)
	}
	tok = randomHex(32)
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.WriteString(tok + "\n")
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", "", fmt.Errorf("write token: %w", err)
	}
	return f.Name(), tok, nil
}
