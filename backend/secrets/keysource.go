package secrets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"hyatlas/backend/memory"
)

// Origin says where the key in use comes from.
type Origin string

// The origins, in order of precedence. OriginNone means no key is set.
const (
	OriginHanded  Origin = "handed"
	OriginKeyring Origin = "keyring"
	OriginFile    Origin = "file"
	OriginEnv     Origin = "env"
	OriginNone    Origin = ""
)

// MaxKeyBytes is the largest key accepted.
const MaxKeyBytes = 4096

const (
	maxFileBytes  = 64 << 10        // a key file larger than this is refused unread
	keyringRetry  = time.Minute     // after a failed keyring read, Key skips the keyring this long
	keyringLimit  = 2 * time.Minute // Save and Delete give up on the keyring after this
	maxWarnedKeys = 64              // distinct warnings remembered (then no more are emitted)
)

// KeySourceConfig configures a KeySource. File and Env hold the values of
// HYATLAS_LLM_KEY_FILE and HYATLAS_LLM_KEY (the caller reads the environment).
type KeySourceConfig struct {
	Keyring Keyring // nil: no keyring
	File    string  // path of a plain-text key file, read on every Key call; "" for none
	Env     string  // the key from HYATLAS_LLM_KEY; "" for none
	Warn    func(msg string)
}

// Format prints the config without the key in Env.
func (c KeySourceConfig) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "secrets.KeySourceConfig{Keyring:%t File:%q Env:%s}", c.Keyring != nil, c.File, setOrNot(c.Env))
}

func setOrNot(s string) string {
	if s == "" {
		return "unset"
	}
	return "[redacted]"
}

// KeySource answers "which key do we use now", in this order of precedence:
//  1. a key handed over at run time (Hand): memory only, never persisted;
//  2. the OS keyring (service "hyatlas", user "llm-key"), written by Save;
//  3. the HYATLAS_LLM_KEY_FILE file, read on every call so keys can rotate; a
//     file that looks like JSON (starts with "{") is refused with a single
//     warning for the life of the KeySource; an unreadable file falls through
//     with one warning per distinct error;
//  4. HYATLAS_LLM_KEY.
//
// A KeySource is safe for concurrent use.
type KeySource struct {
	kr   Keyring
	file string
	env  string
	warn func(string)
	user string // keyring user; tests use their own so a real key is never touched

	// Hooks and limits, replaced by tests.
	readFile     func(path string) ([]byte, error)
	now          func() time.Time
	retryAfter   time.Duration
	keyringLimit time.Duration

	krSem chan struct{} // one keyring call at a time

	mu       sync.Mutex
	handed   string
	krErr    error     // last keyring read failure
	krUntil  time.Time // Key skips the keyring until then
	jsonSeen bool
	warned   map[string]bool
	onChange []func()
}

// NewKeySource returns a KeySource for cfg.
func NewKeySource(cfg KeySourceConfig) *KeySource {
	w := cfg.Warn
	if w == nil {
		w = func(string) {}
	}
	return &KeySource{
		kr:           cfg.Keyring,
		file:         cfg.File,
		env:          cfg.Env,
		warn:         w,
		user:         LLMKeyUser,
		readFile:     readKeyFile,
		now:          time.Now,
		retryAfter:   keyringRetry,
		keyringLimit: keyringLimit,
		krSem:        make(chan struct{}, 1),
		warned:       map[string]bool{},
	}
}

// Format prints the KeySource without any key.
func (k *KeySource) Format(f fmt.State, _ rune) { redactedFormat(f, "secrets.KeySource") }

// Key returns the key to use now and where it comes from: "" and OriginNone
// when no source has one. The error is non-nil only when ctx ends first.
func (k *KeySource) Key(ctx context.Context) (key string, origin Origin, err error) {
	key, origin, _, err = k.resolve(ctx, false)
	return key, origin, err
}

// Status reports whether a key is set, where it comes from and whether the
// OS keyring can be used. It never returns the key.
func (k *KeySource) Status(ctx context.Context) (isSet bool, origin Origin, keyringOK bool, err error) {
	_, origin, keyringOK, err = k.resolve(ctx, true)
	return origin != OriginNone, origin, keyringOK, err
}

// resolve walks the sources in order. With probe, the keyring is read even
// when a handed key wins, so that keyringOK is known.
func (k *KeySource) resolve(ctx context.Context, probe bool) (string, Origin, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", OriginNone, false, err
	}
	k.mu.Lock()
	handed := k.handed
	k.mu.Unlock()
	krOK := false
	var krKey string
	if k.kr != nil && (handed == "" || probe) {
		v, err := k.keyringGet(ctx)
		if cerr := ctx.Err(); cerr != nil {
			return "", OriginNone, false, cerr
		}
		switch {
		case err == nil:
			krOK = true
			krKey = k.accept(v, "the key stored in the OS keyring")
		case errors.Is(err, ErrNotFound):
			krOK = true
		default:
			_, cause := classify(err)
			k.warnOnce("kr:"+cause, "LLM key: the OS keyring cannot be read ("+cause+"); "+EnvKeyFile+" and "+EnvKey+" are used instead")
		}
	}
	switch {
	case handed != "":
		return handed, OriginHanded, krOK, nil
	case krKey != "":
		return krKey, OriginKeyring, krOK, nil
	}
	if key := k.fileKey(); key != "" {
		return key, OriginFile, krOK, nil
	}
	if key := k.accept(k.env, EnvKey); key != "" {
		return key, OriginEnv, krOK, nil
	}
	return "", OriginNone, krOK, nil
}

// keyringGet reads the key from the keyring, at most one call at a time,
// giving up when ctx ends, and skipping the keyring for a while after a
// failure (a locked desktop keyring would otherwise prompt on every call).
func (k *KeySource) keyringGet(ctx context.Context) (string, error) {
	if err := k.recentFailure(); err != nil {
		return "", err
	}
	select {
	case k.krSem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if err := k.recentFailure(); err != nil {
		<-k.krSem
		return "", err
	}
	type result struct {
		v   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() { <-k.krSem }()
		v, err := k.kr.Get(Service, k.user)
		k.mu.Lock()
		if err != nil && !errors.Is(err, ErrNotFound) {
			k.krErr, k.krUntil = err, k.now().Add(k.retryAfter)
		} else {
			k.krErr = nil
		}
		k.mu.Unlock()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (k *KeySource) recentFailure() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.krErr != nil && k.now().Before(k.krUntil) {
		return k.krErr
	}
	return nil
}

// keyringCall runs f (a Set or Delete) with the keyring to itself, giving up
// after keyringLimit.
func (k *KeySource) keyringCall(f func() error) error {
	t := time.NewTimer(k.keyringLimit)
	defer t.Stop()
	select {
	case k.krSem <- struct{}{}:
	case <-t.C:
		return errNoAnswer
	}
	ch := make(chan error, 1)
	go func() {
		defer func() { <-k.krSem }()
		ch <- f()
	}()
	select {
	case err := <-ch:
		return err
	case <-t.C:
		return errNoAnswer
	}
}

// fileKey reads the key file, if one is configured.
func (k *KeySource) fileKey() string {
	if k.file == "" {
		return ""
	}
	b, err := k.readFile(k.file)
	if err != nil {
		k.warnOnce("file:"+err.Error(), fmt.Sprintf("LLM key: %s %q cannot be read (%v); it is skipped", EnvKeyFile, k.file, err))
		return ""
	}
	s := strings.TrimSpace(strings.TrimPrefix(string(b), "\uFEFF"))
	if strings.HasPrefix(s, "{") {
		k.mu.Lock()
		seen := k.jsonSeen
		k.jsonSeen = true
		k.mu.Unlock()
		if !seen {
			k.warn(fmt.Sprintf("LLM key: %s %q looks like another program's JSON credential file (it starts with \"{\"), so it is not used; point %s to a file that holds only the key", EnvKeyFile, k.file, EnvKeyFile))
		}
		return ""
	}
	return k.accept(s, fmt.Sprintf("%s %q", EnvKeyFile, k.file))
}

// accept trims a key read from a source and validates it; an invalid key is
// skipped with one warning per source and problem.
func (k *KeySource) accept(raw, what string) string {
	s := strings.TrimSpace(raw)
	if s == "" {
		return ""
	}
	if problem := keyProblem(s); problem != "" {
		k.warnOnce("bad:"+what+problem, fmt.Sprintf("LLM key: %s is not used: %s", what, problem))
		return ""
	}
	return s
}

// warnOnce emits msg the first time id is seen.
func (k *KeySource) warnOnce(id, msg string) {
	k.mu.Lock()
	if k.warned[id] || len(k.warned) >= maxWarnedKeys {
		k.mu.Unlock()
		return
	}
	k.warned[id] = true
	k.mu.Unlock()
	k.warn(msg)
}

// Hand makes key the key for this run, in memory only. It wins over every
// other source until Delete (or Save) or the end of the process. Spaces
// around it are dropped, as from every other source: an HTTP header drops
// them too, so an endpoint echoing the key echoes the trimmed one, and
// only that one is redacted.
func (k *KeySource) Hand(key string) error {
	key = strings.TrimSpace(key)
	if err := validate(key); err != nil {
		return err
	}
	k.mu.Lock()
	k.handed = key
	k.mu.Unlock()
	k.changed()
	return nil
}

// Handed reports whether a key was handed over for this run (it goes with
// the process: a restart forgets it). It reads no keyring.
func (k *KeySource) Handed() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.handed != ""
}

// Save stores key in the OS keyring. On success a handed key is forgotten,
// so that the saved key is the one in use. When no keyring can be used the
// error has code memory.EUNAVAILABLE and says why and what to do instead.
// Spaces around key are dropped, as by Hand.
func (k *KeySource) Save(key string) error {
	key = strings.TrimSpace(key)
	if err := validate(key); err != nil {
		return err
	}
	if k.kr == nil {
		return unavailable(kindNoneConfigured, "", altSave)
	}
	if err := k.keyringCall(func() error { return k.kr.Set(Service, k.user, key) }); err != nil {
		return keyringError(err, key, altSave)
	}
	k.mu.Lock()
	k.handed, k.krErr = "", nil
	k.mu.Unlock()
	k.changed()
	return nil
}

// Delete forgets a handed key and removes the key from the OS keyring. A
// keyring that does not exist here (no session bus, no Secret Service, an
// unsupported OS) is not an error; a keyring that exists but fails is one
// (code memory.EUNAVAILABLE), though the handed key is forgotten anyway.
func (k *KeySource) Delete() error {
	k.mu.Lock()
	k.handed = ""
	k.mu.Unlock()
	defer k.changed()
	if k.kr == nil {
		return nil
	}
	err := k.keyringCall(func() error { return k.kr.Delete(Service, k.user) })
	if err == nil || errors.Is(err, ErrNotFound) {
		k.mu.Lock()
		k.krErr = nil
		k.mu.Unlock()
		return nil
	}
	if kd, _ := classify(err); kd.absent() {
		return nil
	}
	return keyringError(err, "", altDelete)
}

// OnChange registers f, called after every Hand, successful Save and Delete
// (synchronously, without locks held).
func (k *KeySource) OnChange(f func()) {
	if f == nil {
		return
	}
	k.mu.Lock()
	k.onChange = append(k.onChange, f)
	k.mu.Unlock()
}

func (k *KeySource) changed() {
	k.mu.Lock()
	fs := append([]func(){}, k.onChange...)
	k.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// validate checks a key handed over or saved: not empty, valid UTF-8, no
// control characters (newlines included), at most MaxKeyBytes bytes. The
// error never contains the key.
func validate(key string) error {
	if p := keyProblem(key); p != "" {
		return memory.Errorf(memory.EINVALID, "invalid LLM key: %s", p)
	}
	return nil
}

func keyProblem(key string) string {
	switch {
	case key == "":
		return "it is empty"
	case len(key) > MaxKeyBytes:
		return fmt.Sprintf("it is longer than %d bytes", MaxKeyBytes)
	case !utf8.ValidString(key):
		return "it is not valid UTF-8"
	case strings.IndexFunc(key, unicode.IsControl) >= 0:
		return "it contains control characters or line breaks"
	}
	return ""
}

// readKeyFile reads path, which must be a regular file of at most
// maxFileBytes (a FIFO or device would block or never end).
func readKeyFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(f, maxFileBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d KiB", path, maxFileBytes>>10)
	}
	return buf.Bytes(), nil
}
