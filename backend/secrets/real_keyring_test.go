//go:build keyring

// Run against a real Secret Service (see the package report / Makefile):
//
//	XDG_DATA_HOME=$(mktemp -d) dbus-run-session -- sh -c \
//	  'eval "$(printf %s test-password | gnome-keyring-daemon --unlock --components=secrets)"; go test -tags keyring -count=1 ./backend/secrets/'
package secrets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
)

func TestRealKeyring(t *testing.T) {
	kr := OSKeyring()
	user := fmt.Sprintf("llm-key-test-%d", os.Getpid()) // never the real user's key
	probe := func() error {
		if _, err := kr.Get(Service, user); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	}
	if err := probe(); err != nil {
		t.Fatalf("no usable Secret Service (run this test inside dbus-run-session with an unlocked gnome-keyring): %v\n%v",
			err, keyringError(err, "", altSave))
	}
	t.Cleanup(func() { _ = kr.Delete(Service, user) })

	const secret = "sk-real-keyring-test-value"
	var changes int
	ks := NewKeySource(KeySourceConfig{Keyring: kr, Warn: func(m string) { t.Errorf("warning: %s", m) }})
	ks.user = user
	ks.OnChange(func() { changes++ })
	ctx := context.Background()

	if isSet, origin, krOK, err := ks.Status(ctx); isSet || origin != OriginNone || !krOK || err != nil {
		t.Fatalf("Status before Save = %t %q %t %v", isSet, origin, krOK, err)
	}
	if err := ks.Save(secret); err != nil {
		t.Fatalf("Save: %v", err)
	}
	if key, origin := mustKey(t, ks); key != secret || origin != OriginKeyring {
		t.Fatalf("Key = %q %q, want the saved key from the keyring", key, origin)
	}
	if got, err := kr.Get(Service, user); err != nil || got != secret {
		t.Fatalf("Get = %q %v", got, err)
	}
	if isSet, origin, krOK, err := ks.Status(ctx); !isSet || origin != OriginKeyring || !krOK || err != nil {
		t.Fatalf("Status after Save = %t %q %t %v", isSet, origin, krOK, err)
	}
	// Saving again replaces the item rather than adding a second one.
	if err := ks.Save(secret + "-2"); err != nil {
		t.Fatalf("second Save: %v", err)
	}
	if key, _ := mustKey(t, ks); key != secret+"-2" {
		t.Fatalf("Key after second Save = %q", key)
	}
	if err := ks.Delete(); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := kr.Get(Service, user); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
	}
	if isSet, origin, krOK, err := ks.Status(ctx); isSet || origin != OriginNone || !krOK || err != nil {
		t.Fatalf("Status after Delete = %t %q %t %v", isSet, origin, krOK, err)
	}
	if err := ks.Delete(); err != nil {
		t.Fatalf("Delete of a missing key: %v", err)
	}
	if changes != 4 {
		t.Fatalf("OnChange called %d times, want 4", changes)
	}
}
