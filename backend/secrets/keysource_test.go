package secrets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

const (
	handedKey  = "sk-handed-0001"
	keyringKey = "sk-keyring-0002"
	fileKey    = "sk-file-0003"
	envKey     = "sk-env-0004"
)

func TestPrecedence(t *testing.T) {
	cases := []struct {
		handed, keyring, file, env bool
		want                       Origin
	}{
		{true, true, true, true, OriginHanded},
		{false, true, true, true, OriginKeyring},
		{true, false, true, true, OriginHanded},
		{false, false, true, true, OriginFile},
		{true, true, false, true, OriginHanded},
		{false, true, false, true, OriginKeyring},
		{false, false, false, true, OriginEnv},
		{true, true, true, false, OriginHanded},
		{false, true, true, false, OriginKeyring},
		{false, false, true, false, OriginFile},
		{false, false, false, false, OriginNone},
	}
	want := map[Origin]string{OriginHanded: handedKey, OriginKeyring: keyringKey, OriginFile: fileKey, OriginEnv: envKey, OriginNone: ""}
	for _, c := range cases {
		name := fmt.Sprintf("h%t_k%t_f%t_e%t", c.handed, c.keyring, c.file, c.env)
		t.Run(name, func(t *testing.T) {
			kr := newFakeKeyring()
			if c.keyring {
				kr.data[Service+"/"+LLMKeyUser] = keyringKey
			}
			cfg := KeySourceConfig{Keyring: kr}
			if c.file {
				cfg.File = writeFile(t, t.TempDir(), "key", "  "+fileKey+"\n")
			} else {
				cfg.File = filepath.Join(t.TempDir(), "missing")
			}
			if c.env {
				cfg.Env = envKey
			}
			ks := NewKeySource(cfg)
			if c.handed {
				if err := ks.Hand(handedKey); err != nil {
					t.Fatal(err)
				}
			}
			key, origin := mustKey(t, ks)
			if origin != c.want || key != want[c.want] {
				t.Fatalf("got (%q, %q), want (%q, %q)", key, origin, want[c.want], c.want)
			}
			isSet, sOrigin, krOK, err := ks.Status(context.Background())
			if err != nil || isSet != (c.want != OriginNone) || sOrigin != c.want || !krOK {
				t.Fatalf("Status = %t %q %t %v", isSet, sOrigin, krOK, err)
			}
		})
	}
}

func TestNoKeyringConfigured(t *testing.T) {
	ks := NewKeySource(KeySourceConfig{Env: envKey})
	if key, origin := mustKey(t, ks); key != envKey || origin != OriginEnv {
		t.Fatalf("got %q %q", key, origin)
	}
	_, _, krOK, _ := ks.Status(context.Background())
	if krOK {
		t.Fatal("keyringOK with no keyring")
	}
	err := ks.Save("sk-x")
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(err.Error(), "No OS keyring is available here") {
		t.Fatalf("Save: %v", err)
	}
	if err := ks.Delete(); err != nil {
		t.Fatalf("Delete: %v", err)
	}
}

func TestFileReadOnEveryCall(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "key", "sk-first\n")
	ks := NewKeySource(KeySourceConfig{File: p, Env: envKey})
	if key, origin := mustKey(t, ks); key != "sk-first" || origin != OriginFile {
		t.Fatalf("got %q %q", key, origin)
	}
	writeFile(t, dir, "key", "sk-second")
	if key, _ := mustKey(t, ks); key != "sk-second" {
		t.Fatalf("rotated key not seen: %q", key)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if key, origin := mustKey(t, ks); key != envKey || origin != OriginEnv {
		t.Fatalf("after removal got %q %q", key, origin)
	}
	writeFile(t, dir, "key", "sk-third")
	if key, origin := mustKey(t, ks); key != "sk-third" || origin != OriginFile {
		t.Fatalf("after re-creation got %q %q", key, origin)
	}
}

func TestJSONFileRefusedOnce(t *testing.T) {
	secret := `"private_key": "-----BEGIN PRIVATE KEY-----abc"`
	p := writeFile(t, t.TempDir(), "creds.json", "\n  {"+secret+"}\n")
	var w warnings
	ks := NewKeySource(KeySourceConfig{File: p, Env: envKey, Warn: w.add})
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				key, origin, err := ks.Key(context.Background())
				if err != nil || key != envKey || origin != OriginEnv {
					t.Errorf("got %q %q %v", key, origin, err)
				}
			}
		}()
	}
	wg.Wait()
	ws := w.list()
	if len(ws) != 1 {
		t.Fatalf("want exactly one warning, got %d: %q", len(ws), ws)
	}
	if !strings.Contains(ws[0], p) || !strings.Contains(ws[0], "JSON") {
		t.Errorf("warning does not name the file: %q", ws[0])
	}
	assertNoSecret(t, ws, "private_key", "BEGIN", envKey)
	// Still one warning after the file changes to other JSON and back.
	writeFile(t, filepath.Dir(p), "creds.json", `{"other": 1}`)
	mustKey(t, ks)
	if n := len(w.list()); n != 1 {
		t.Fatalf("warnings after change: %d", n)
	}
}

func TestUnreadableFileFallsThrough(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	var w warnings
	for _, p := range []string{missing, dir} { // absent, then not a regular file
		ks := NewKeySource(KeySourceConfig{File: p, Env: envKey, Warn: w.add})
		for i := 0; i < 5; i++ {
			if key, origin := mustKey(t, ks); key != envKey || origin != OriginEnv {
				t.Fatalf("%s: got %q %q", p, key, origin)
			}
		}
	}
	ws := w.list()
	if len(ws) != 2 {
		t.Fatalf("want one warning per distinct error, got %q", ws)
	}
	for _, m := range ws {
		if !strings.Contains(m, EnvKeyFile) {
			t.Errorf("warning does not say which setting: %q", m)
		}
	}
	// One KeySource, two distinct errors over time: two warnings.
	var w2 warnings
	ks := NewKeySource(KeySourceConfig{File: missing, Env: envKey, Warn: w2.add})
	ks.readFile = func(string) ([]byte, error) { return nil, errors.New("disk on fire") }
	mustKey(t, ks)
	mustKey(t, ks)
	ks.readFile = readKeyFile
	mustKey(t, ks)
	mustKey(t, ks)
	if n := len(w2.list()); n != 2 {
		t.Fatalf("want 2 warnings, got %q", w2.list())
	}
}

func TestBadFileContentFallsThrough(t *testing.T) {
	dir := t.TempDir()
	var w warnings
	for _, content := range []string{"", "  \n", "sk-line1\nsk-line2", strings.Repeat("k", MaxKeyBytes+1)} {
		p := writeFile(t, dir, "key", content)
		ks := NewKeySource(KeySourceConfig{File: p, Env: envKey, Warn: w.add})
		if key, origin := mustKey(t, ks); key != envKey || origin != OriginEnv {
			t.Fatalf("content %.20q: got %q %q", content, key, origin)
		}
	}
	assertNoSecret(t, w.list(), "sk-line1", "kkkk")
}

func TestHandValidation(t *testing.T) {
	bad := map[string]string{
		"empty":     "",
		"newline":   "sk-a\nbc",
		"spaces":    "  \t ",
		"cr":        "sk-a\rbc",
		"tab":       "sk-a\tbc",
		"nul":       "sk-a\x00bc",
		"del":       "sk-a\x7fbc",
		"c1":        "sk-a\u0085bc",
		"too long":  strings.Repeat("a", MaxKeyBytes+1),
		"bad utf-8": "sk-a\xffbc",
	}
	ks := NewKeySource(KeySourceConfig{})
	for name, key := range bad {
		err := ks.Hand(key)
		if memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%s: want EINVALID, got %v", name, err)
			continue
		}
		if k := strings.TrimSpace(key); k != "" && strings.Contains(err.Error(), k) {
			t.Errorf("%s: error leaks the key: %v", name, err)
		}
		if err := ks.Save(key); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%s: Save: want EINVALID, got %v", name, err)
		}
	}
	if _, origin := mustKey(t, ks); origin != OriginNone {
		t.Fatalf("an invalid key was kept: %q", origin)
	}
	// Spaces around a pasted key go, as from a file or the environment.
	if err := ks.Hand(" sk-pasted\n"); err != nil {
		t.Fatal(err)
	}
	if key, _ := mustKey(t, ks); key != "sk-pasted" {
		t.Errorf("a key handed with spaces around it is %q, want it trimmed", key)
	}
	for _, good := range []string{"x", "sk-proj-AbC_123-xyz", strings.Repeat("a", MaxKeyBytes), "clé spéciale"} {
		if err := ks.Hand(good); err != nil {
			t.Errorf("Hand(%.10q): %v", good, err)
		}
		if key, origin := mustKey(t, ks); key != good || origin != OriginHanded {
			t.Errorf("got %q %q", key, origin)
		}
	}
}

func TestDeleteForgetsHandedAndKeyring(t *testing.T) {
	kr := newFakeKeyring()
	ks := NewKeySource(KeySourceConfig{Keyring: kr, Env: envKey})
	if err := ks.Save(keyringKey); err != nil {
		t.Fatal(err)
	}
	if err := ks.Hand(handedKey); err != nil {
		t.Fatal(err)
	}
	if _, origin := mustKey(t, ks); origin != OriginHanded {
		t.Fatalf("origin %q", origin)
	}
	if err := ks.Delete(); err != nil {
		t.Fatal(err)
	}
	if key, origin := mustKey(t, ks); key != envKey || origin != OriginEnv {
		t.Fatalf("after Delete got %q %q", key, origin)
	}
	if err := ks.Delete(); err != nil { // nothing left: still fine
		t.Fatalf("second Delete: %v", err)
	}
}

func TestSaveForgetsHandedKey(t *testing.T) {
	ks := NewKeySource(KeySourceConfig{Keyring: newFakeKeyring()})
	_ = ks.Hand(handedKey)
	if err := ks.Save(keyringKey); err != nil {
		t.Fatal(err)
	}
	if key, origin := mustKey(t, ks); key != keyringKey || origin != OriginKeyring {
		t.Fatalf("got %q %q", key, origin)
	}
}

func TestOnChange(t *testing.T) {
	ks := NewKeySource(KeySourceConfig{Keyring: newFakeKeyring()})
	var n atomic.Int32
	ks.OnChange(func() { n.Add(1) })
	ks.OnChange(nil)
	_ = ks.Hand(handedKey)
	if n.Load() != 1 {
		t.Fatalf("after Hand: %d", n.Load())
	}
	_ = ks.Hand("") // refused: no call
	_ = ks.Save(keyringKey)
	if n.Load() != 2 {
		t.Fatalf("after Save: %d", n.Load())
	}
	// OnChange may call back into the KeySource without deadlocking.
	ks.OnChange(func() { _, _, _ = ks.Key(context.Background()) })
	_ = ks.Delete()
	if n.Load() != 3 {
		t.Fatalf("after Delete: %d", n.Load())
	}
}

func TestNeverLeaksKey(t *testing.T) {
	var w warnings
	kr := newFakeKeyring()
	cfg := KeySourceConfig{Keyring: kr, Env: envKey, Warn: w.add}
	ks := NewKeySource(cfg)
	_ = ks.Hand(handedKey)
	_ = ks.Save(keyringKey)
	_ = ks.Hand(handedKey)
	kr.err = errors.New("boom")
	saveErr := ks.Save(keyringKey)
	delErr := ks.Delete()
	isSet, origin, krOK, err := ks.Status(context.Background())
	texts := []string{
		fmt.Sprint(isSet, origin, krOK, err), saveErr.Error(), delErr.Error(),
		fmt.Sprintf("%v %+v %#v %s", ks, ks, ks, ks), fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg),
		fmt.Sprintf("%v", &cfg),
	}
	texts = append(texts, w.list()...)
	assertNoSecret(t, texts, handedKey, keyringKey, envKey)
}

func TestKeyringErrorFallsThrough(t *testing.T) {
	kr := newFakeKeyring()
	kr.err = fmt.Errorf("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'")
	var w warnings
	now := time.Unix(1000, 0)
	ks := NewKeySource(KeySourceConfig{Keyring: kr, Env: envKey, Warn: w.add})
	ks.now = func() time.Time { return now }
	for i := 0; i < 10; i++ {
		if key, origin := mustKey(t, ks); key != envKey || origin != OriginEnv {
			t.Fatalf("got %q %q", key, origin)
		}
	}
	if kr.callCount() != 1 {
		t.Fatalf("keyring asked %d times within the back-off", kr.callCount())
	}
	if ws := w.list(); len(ws) != 1 || !strings.Contains(ws[0], "locked") {
		t.Fatalf("warnings: %q", ws)
	}
	_, _, krOK, _ := ks.Status(context.Background())
	if krOK {
		t.Fatal("keyringOK with a locked keyring")
	}
	now = now.Add(2 * keyringRetry)
	mustKey(t, ks)
	if kr.callCount() != 2 {
		t.Fatalf("keyring not retried after the back-off: %d calls", kr.callCount())
	}
}

func TestKeyHonoursContext(t *testing.T) {
	kr := newFakeKeyring()
	kr.block = make(chan struct{})
	defer close(kr.block)
	ks := NewKeySource(KeySourceConfig{Keyring: kr, Env: envKey})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := ks.Key(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want deadline error, got %v", err)
	}
	ks.keyringLimit = 50 * time.Millisecond
	err := ks.Save(keyringKey)
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("Save on a hung keyring: %v", err)
	}
	cancelled, c2 := context.WithCancel(context.Background())
	c2()
	if _, _, err := ks.Key(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("want canceled, got %v", err)
	}
}

// TestOnlyConfiguredFileIsRead checks by construction (every file access of
// a KeySource goes through readFile) that only the configured path is read,
// and that no File means no filesystem access at all.
func TestOnlyConfiguredFileIsRead(t *testing.T) {
	var mu sync.Mutex
	var opened []string
	hook := func(p string) ([]byte, error) {
		mu.Lock()
		opened = append(opened, p)
		mu.Unlock()
		return readKeyFile(p)
	}
	ks := NewKeySource(KeySourceConfig{Keyring: newFakeKeyring(), Env: envKey})
	ks.readFile = hook
	mustKey(t, ks)
	_ = ks.Hand(handedKey)
	_ = ks.Save(keyringKey)
	_, _, _, _ = ks.Status(context.Background())
	_ = ks.Delete()
	mustKey(t, ks)
	if len(opened) != 0 {
		t.Fatalf("a KeySource without File read %q", opened)
	}
	p := writeFile(t, t.TempDir(), "key", fileKey)
	ks = NewKeySource(KeySourceConfig{File: p, Env: envKey})
	ks.readFile = hook
	for i := 0; i < 3; i++ {
		mustKey(t, ks)
		_, _, _, _ = ks.Status(context.Background())
	}
	if len(opened) != 6 {
		t.Fatalf("want 6 reads, got %d", len(opened))
	}
	for _, o := range opened {
		if o != p {
			t.Fatalf("read %q, want only %q", o, p)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	p := writeFile(t, t.TempDir(), "key", fileKey)
	ks := NewKeySource(KeySourceConfig{Keyring: newFakeKeyring(), File: p, Env: envKey, Warn: func(string) {}})
	ks.OnChange(func() {})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				switch (i + j) % 5 {
				case 0:
					_ = ks.Hand(handedKey)
				case 1:
					_ = ks.Save(keyringKey)
				case 2:
					_ = ks.Delete()
				case 3:
					_, _, _, _ = ks.Status(context.Background())
				default:
					if key, _ := mustKey(t, ks); key == "" {
						t.Error("no key although file and env are set")
					}
				}
			}
		}(i)
	}
	wg.Wait()
}
