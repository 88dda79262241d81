package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hyatlas/backend/config"
	"hyatlas/backend/secrets"
)

// TestKeyForCall_NoKeyNoCallElsewhere: with the key file gone, a call to an
// endpoint on another machine is not made at all (the write's text stays
// here) and the state says a key is awaited at once; an endpoint on this
// machine needs none.
func TestKeyForCall_NoKeyNoCallElsewhere(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte("sk-test-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	x := &extraction{cfg: config.LLMConfig{Base: "https://llm.example/v1", KeyFile: file}}
	x.keys = secrets.NewKeySource(secrets.KeySourceConfig{File: file})
	x.keySet.Store(true)
	if k, err := x.keyForCall(ctx); k != "sk-test-123" || err != nil {
		t.Fatalf("with the file: %q, %v", k, err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if _, err := x.keyForCall(ctx); !errors.Is(err, errNoKey) {
		t.Fatalf("without the file: %v, want errNoKey", err)
	}
	if x.keySet.Load() {
		t.Error("the key is still counted as set")
	}
	x.cfg.Base = "http://127.0.0.1:11434/v1"
	if k, err := x.keyForCall(ctx); k != "" || err != nil {
		t.Errorf("a local endpoint without a key: %q, %v", k, err)
	}
}

// TestRefreshKey_ArrivalQueuesWaitingWrites: whichever check first sees a
// key where there was none calls keyArrived, once.
func TestRefreshKey_ArrivalQueuesWaitingWrites(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "key")
	x := &extraction{cfg: config.LLMConfig{Base: "https://llm.example/v1", Model: "m", KeyFile: file}}
	x.keys = secrets.NewKeySource(secrets.KeySourceConfig{File: file})
	arrived := 0
	x.keyArrived = func() { arrived++ }
	x.refreshKey(ctx, time.Second)
	if arrived != 0 || x.keySet.Load() {
		t.Fatalf("no key yet: arrived %d, set %v", arrived, x.keySet.Load())
	}
	if err := os.WriteFile(file, []byte("sk-test-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	x.refreshKey(ctx, time.Second)
	x.refreshKey(ctx, time.Second)
	if arrived != 1 || !x.keySet.Load() {
		t.Errorf("after the key came: arrived %d times, set %v; want once, true", arrived, x.keySet.Load())
	}
}

// countingKeyring counts reads of the keyring.
type countingKeyring struct{ gets int }

func (k *countingKeyring) Get(string, string) (string, error) {
	k.gets++
	return "", secrets.ErrNotFound
}
func (k *countingKeyring) Set(string, string, string) error { return nil }
func (k *countingKeyring) Delete(string, string) error      { return nil }

// TestRefreshKey_NoEndpointReadsNoKeyring: with no endpoint set there is no
// call to make, so the minute's key check leaves the keyring alone (a
// locked desktop keyring would ask to be unlocked for nothing).
func TestRefreshKey_NoEndpointReadsNoKeyring(t *testing.T) {
	kr := &countingKeyring{}
	x := &extraction{}
	x.keys = secrets.NewKeySource(secrets.KeySourceConfig{Keyring: kr})
	x.refreshKey(context.Background(), time.Second)
	if kr.gets != 0 {
		t.Errorf("the keyring was read %d times with no endpoint set", kr.gets)
	}
	x.cfg = config.LLMConfig{Base: "https://llm.example/v1", Model: "m"}
	x.refreshKey(context.Background(), time.Second)
	if kr.gets == 0 {
		t.Error("with an endpoint the keyring was not read: the test proves nothing")
	}
}

// An endpoint on this machine needs no key, however its address is
// written; any other gets none of the calls a key is missing for.
func TestIsLocal(t *testing.T) {
	for base, want := range map[string]bool{
		"http://localhost:11434/v1":       true,
		"http://LocalHost:11434/v1":       true,
		"http://localhost.:8080/v1":       true,
		"http://127.0.0.1:8080/v1":        true,
		"http://127.1.2.3/v1":             true,
		"http://[::1]:8080/v1":            true,
		"http://0.0.0.0:11434/v1":         true,
		"http://[::]:11434/v1":            true,
		"https://api.provider.example/v1": false,
		"http://localhost.example/v1":     false,
		"http://192.168.1.20:11434/v1":    false,
		"http://10.0.0.1/v1":              false,
		"://bad":                          false,
	} {
		if got := isLocal(base); got != want {
			t.Errorf("isLocal(%q) = %v, want %v", base, got, want)
		}
	}
}
