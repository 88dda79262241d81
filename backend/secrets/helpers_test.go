package secrets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeKeyring is an in-memory Keyring whose calls can fail or block.
type fakeKeyring struct {
	mu    sync.Mutex
	data  map[string]string
	err   error         // returned by every call when set
	block chan struct{} // when set, calls wait until it is closed
	calls int
}

func newFakeKeyring() *fakeKeyring { return &fakeKeyring{data: map[string]string{}} }

func (f *fakeKeyring) enter() error {
	f.mu.Lock()
	f.calls++
	b, err := f.block, f.err
	f.mu.Unlock()
	if b != nil {
		<-b
	}
	return err
}

func (f *fakeKeyring) Get(service, user string) (string, error) {
	if err := f.enter(); err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.data[service+"/"+user]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

func (f *fakeKeyring) Set(service, user, secret string) error {
	if err := f.enter(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.data[service+"/"+user] = secret
	return nil
}

func (f *fakeKeyring) Delete(service, user string) error {
	if err := f.enter(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.data[service+"/"+user]; !ok {
		return ErrNotFound
	}
	delete(f.data, service+"/"+user)
	return nil
}

func (f *fakeKeyring) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// warnings collects the warnings of a KeySource.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(m string) {
	w.mu.Lock()
	w.msgs = append(w.msgs, m)
	w.mu.Unlock()
}

func (w *warnings) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// mustKey calls Key and fails the test on error.
func mustKey(t *testing.T, ks *KeySource) (string, Origin) {
	t.Helper()
	key, origin, err := ks.Key(context.Background())
	if err != nil {
		t.Fatalf("Key: %v", err)
	}
	return key, origin
}

// assertNoSecret fails if any of the texts contains one of the secrets.
func assertNoSecret(t *testing.T, texts []string, secrets ...string) {
	t.Helper()
	for _, s := range texts {
		for _, sec := range secrets {
			if sec != "" && strings.Contains(s, sec) {
				t.Errorf("text leaks a secret: %q", s)
			}
		}
	}
}
