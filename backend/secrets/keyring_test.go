package secrets

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	dbus "github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"

	"hyatlas/backend/memory"
)

// The go-keyring mock is global: these tests do not run in parallel.

func TestSaveDeleteWithGoKeyringMock(t *testing.T) {
	keyring.MockInit()
	kr := &osKeyring{} // no bus pre-check under the mock
	if err := KeyringAvailable(kr); err != nil {
		t.Fatalf("KeyringAvailable: %v", err)
	}
	if _, err := kr.Get(Service, LLMKeyUser); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}
	ks := NewKeySource(KeySourceConfig{Keyring: kr, Env: envKey})
	if err := ks.Save(keyringKey); err != nil {
		t.Fatal(err)
	}
	if key, origin := mustKey(t, ks); key != keyringKey || origin != OriginKeyring {
		t.Fatalf("got %q %q", key, origin)
	}
	if isSet, origin, krOK, err := ks.Status(context.Background()); !isSet || origin != OriginKeyring || !krOK || err != nil {
		t.Fatalf("Status = %t %q %t %v", isSet, origin, krOK, err)
	}
	if err := ks.Delete(); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(Service, LLMKeyUser); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("key still in the keyring: %v", err)
	}
	if err := kr.Delete(Service, LLMKeyUser); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete of a missing key: %v, want ErrNotFound", err)
	}
	if key, origin := mustKey(t, ks); key != envKey || origin != OriginEnv {
		t.Fatalf("after Delete got %q %q", key, origin)
	}
}

// feasibilityErrors are the failures of feasibility.md §3, built the way
// go-keyring and godbus build them, with the words the message must contain.
func feasibilityErrors() []struct {
	name   string
	err    error
	want   string
	absent bool
} {
	dial := &net.OpError{Op: "dial", Net: "unix", Addr: &net.UnixAddr{Name: "/tmp/gone", Net: "unix"},
		Err: os.NewSyscallError("connect", syscall.ENOENT)}
	return []struct {
		name   string
		err    error
		want   string
		absent bool
	}{
		{"no bus", errNoSessionBus, "no D-Bus session bus", true},
		{"godbus no address", errors.New("dbus: couldn't determine address of session bus"), "no D-Bus session bus", true},
		{"no service", dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown",
			Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"}}, "no Secret Service", true},
		{"no service (text)", errors.New("The name org.freedesktop.secrets was not provided by any .service files"), "no Secret Service", true},
		{"missing socket", dial, "cannot be reached", false},
		{"missing socket (text)", errors.New("dial unix /tmp/gone: connect: no such file or directory"), "cannot be reached", false},
		{"locked, fresh keyring", errors.New("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'"), "locked", false},
		{"locked, wrong password", errors.New("failed to unlock correct collection '/org/freedesktop/secrets/collection/login'"), "locked", false},
		{"unsupported OS", keyring.ErrUnsupportedPlatform, "no keyring on this operating system", true},
		{"no answer", &dbus.Error{Name: "org.freedesktop.DBus.Error.NoReply"}, "did not answer", false},
	}
}

func TestSaveUnavailableWithGoKeyringMock(t *testing.T) {
	defer keyring.MockInit()
	for _, c := range feasibilityErrors() {
		t.Run(c.name, func(t *testing.T) {
			keyring.MockInitWithError(c.err)
			var w warnings
			ks := NewKeySource(KeySourceConfig{Keyring: &osKeyring{}, Env: envKey, Warn: w.add})
			err := ks.Save(keyringKey)
			if memory.ErrorCode(err) != memory.EUNAVAILABLE {
				t.Fatalf("want EUNAVAILABLE, got %v", err)
			}
			msg := memory.ErrorMessage(err)
			for _, want := range []string{c.want, "use it for this run only (memory only) or set HYATLAS_LLM_KEY_FILE"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
			if c.name != "no answer" && !strings.HasPrefix(msg, "No OS keyring is available here: ") {
				t.Errorf("message %q does not start by saying there is no keyring", msg)
			}
			if av := KeyringAvailable(&osKeyring{}); memory.ErrorCode(av) != memory.EUNAVAILABLE || memory.ErrorMessage(av) != msg {
				t.Errorf("KeyringAvailable = %v", av)
			}
			// Key falls through to the next source, with one warning.
			for i := 0; i < 3; i++ {
				if key, origin := mustKey(t, ks); key != envKey || origin != OriginEnv {
					t.Fatalf("got %q %q", key, origin)
				}
			}
			if ws := w.list(); len(ws) != 1 {
				t.Errorf("warnings: %q", ws)
			}
			_ = ks.Hand(handedKey)
			derr := ks.Delete()
			if c.absent != (derr == nil) {
				t.Errorf("Delete = %v (keyring absent: %t)", derr, c.absent)
			}
			if key, origin := mustKey(t, ks); key != envKey || origin != OriginEnv {
				t.Errorf("handed key not forgotten: %q %q", key, origin)
			}
			assertNoSecret(t, append(w.list(), msg, fmt.Sprint(derr)), keyringKey, handedKey, envKey)
		})
	}
}

func TestKeyringErrorRedactsKey(t *testing.T) {
	err := keyringError(errors.New("weird backend echoed sk-secret-99"), "sk-secret-99", altSave)
	if strings.Contains(err.Error(), "sk-secret-99") || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("not redacted: %v", err)
	}
	if err := keyringError(keyring.ErrSetDataTooBig, "", altSave); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("too big: %v", err)
	}
}

func TestKeyringAvailableNil(t *testing.T) {
	if err := KeyringAvailable(nil); memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("got %v", err)
	}
}

func TestEnsureSessionBus(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	setenv := func(k, v string) error { env[k] = v; return nil }

	env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/x"
	if err := ensureSessionBus(getenv, setenv, "/nonexistent"); err != nil || env["DBUS_SESSION_BUS_ADDRESS"] != "unix:path=/x" {
		t.Fatalf("explicit address: %v %q", err, env)
	}
	env["DBUS_SESSION_BUS_ADDRESS"] = ""
	empty := t.TempDir()
	env["XDG_RUNTIME_DIR"] = empty
	if err := ensureSessionBus(getenv, setenv, empty); !errors.Is(err, errNoSessionBus) {
		t.Fatalf("no socket: %v", err)
	}
	writeFile(t, empty, "bus", "not a socket")
	if err := ensureSessionBus(getenv, setenv, empty); !errors.Is(err, errNoSessionBus) {
		t.Fatalf("regular file taken for a socket: %v", err)
	}
	dir, err := os.MkdirTemp("", "bus") // short: socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := net.Listen("unix", filepath.Join(dir, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	env["XDG_RUNTIME_DIR"] = ""
	if err := ensureSessionBus(getenv, setenv, dir); err != nil {
		t.Fatal(err)
	}
	if got := env["DBUS_SESSION_BUS_ADDRESS"]; got != "unix:path="+dbus.EscapeBusAddressValue(filepath.Join(dir, "bus")) {
		t.Fatalf("address %q", got)
	}
}

// TestOSKeyringRealFailures runs the real OSKeyring (godbus, no mock) in a
// child process whose environment has no usable bus: it must fail fast with
// EUNAVAILABLE, without autolaunching a bus.
func TestOSKeyringRealFailures(t *testing.T) {
	if mode := os.Getenv("HYATLAS_SECRETS_CHILD"); mode != "" {
		runUserDir = func() string { return os.Getenv("HYATLAS_SECRETS_RUNDIR") }
		err := NewKeySource(KeySourceConfig{Keyring: OSKeyring()}).Save("sk-child")
		fmt.Printf("CODE=%s\nMSG=%s\n", memory.ErrorCode(err), memory.ErrorMessage(err))
		return
	}
	cases := []struct{ name, addr, want string }{
		{"no bus", "", "there is no D-Bus session bus"},
		{"missing socket", "unix:path=/nonexistent/hyatlas-test-bus", "cannot be reached"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestOSKeyringRealFailures$", "-test.count=1")
			cmd.Env = append(os.Environ(), "HYATLAS_SECRETS_CHILD=1", "HYATLAS_SECRETS_RUNDIR="+t.TempDir(),
				"DBUS_SESSION_BUS_ADDRESS="+c.addr, "XDG_RUNTIME_DIR=", "PATH=", "GORACE=atexit_sleep_ms=0") // PATH= : no dbus-launch either way
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			s := string(out)
			if !strings.Contains(s, "CODE=unavailable") || !strings.Contains(s, c.want) {
				t.Fatalf("child output:\n%s", s)
			}
			msg, _, _ := strings.Cut(strings.SplitN(s, "MSG=", 2)[1], "\n")
			t.Logf("%s", msg)
		})
	}
}
