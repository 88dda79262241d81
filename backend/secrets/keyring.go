// Package secrets decides where the LLM extraction key comes from (see
// KeySource) and hides the OS secret store behind the tiny Keyring interface.
//
// The key itself is never logged, never put into an error message and never
// returned by Status.
package secrets

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	dbus "github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"

	"hyatlas/backend/memory"
)

// Service and LLMKeyUser name the LLM key's entry in the OS keyring.
const (
	Service    = "hyatlas"
	LLMKeyUser = "llm-key"
)

// Names of the environment variables the caller reads into KeySourceConfig.
const (
	EnvKeyFile = "HYATLAS_LLM_KEY_FILE"
	EnvKey     = "HYATLAS_LLM_KEY"
)

// ErrNotFound is returned by Keyring.Get and Keyring.Delete when no secret is
// stored under the service and user.
var ErrNotFound = errors.New("secret not found in the OS keyring")

// Keyring is the OS secret store (go-keyring behind it; a fake in tests).
type Keyring interface {
	Get(service, user string) (string, error) // ErrNotFound when absent
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// errNoSessionBus is returned by OSKeyring when no D-Bus session bus can be
// found. go-keyring is then not called at all, because godbus would
// "autolaunch" a private dbus-daemon (plus a gnome-keyring-daemon by D-Bus
// activation) that outlives the process.
var errNoSessionBus = errors.New("no D-Bus session bus")

// OSKeyring returns the OS keyring: the Secret Service over D-Bus on Linux
// and the BSDs, the Keychain on macOS, the Credential Manager on Windows.
func OSKeyring() Keyring {
	k := &osKeyring{}
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		k.check = func() error { return ensureSessionBus(os.Getenv, os.Setenv, runUserDir()) }
	}
	return k
}

// osKeyring adapts go-keyring. Calls are serialised: go-keyring's mock
// provider is not safe for concurrent use, and a Secret Service call that
// waits for an unlock prompt should not be joined by more prompts.
type osKeyring struct {
	mu    sync.Mutex
	check func() error // nil: no pre-check (tests with keyring.MockInit)
}

func (k *osKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.precheck(); err != nil {
		return "", err
	}
	v, err := keyring.Get(service, user)
	return v, mapNotFound(err)
}

func (k *osKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.precheck(); err != nil {
		return err
	}
	return keyring.Set(service, user, secret)
}

func (k *osKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.precheck(); err != nil {
		return err
	}
	return mapNotFound(keyring.Delete(service, user))
}

func (k *osKeyring) precheck() error {
	if k.check == nil {
		return nil
	}
	return k.check()
}

func mapNotFound(err error) error {
	if errors.Is(err, keyring.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// runUserDir is where godbus looks for the per-user bus socket.
var runUserDir = func() string { return "/run/user/" + strconv.Itoa(os.Getuid()) }

// ensureSessionBus makes sure godbus will find a session bus without
// autolaunching one and without reading any file. An address in
// DBUS_SESSION_BUS_ADDRESS is used as is (a dead one fails at dial time).
// Otherwise the per-user socket $XDG_RUNTIME_DIR/bus or /run/user/<uid>/bus
// is looked up with stat and exported the way godbus itself would do it.
func ensureSessionBus(getenv func(string) string, setenv func(k, v string) error, runDir string) error {
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return nil
	}
	var dirs []string
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	dirs = append(dirs, runDir)
	for _, d := range dirs {
		p := filepath.Join(d, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+dbus.EscapeBusAddressValue(p))
		}
	}
	return errNoSessionBus
}

// KeyringAvailable probes k without touching the stored key's value: it
// reads the LLM key's entry and discards the result. Nil (or ErrNotFound)
// means the keyring works. Otherwise the error has code memory.EUNAVAILABLE
// and says why in plain words. On a desktop whose keyring is locked this may
// show the system's unlock prompt.
func KeyringAvailable(k Keyring) error {
	if k == nil {
		return unavailable(kindNoneConfigured, "", altSave)
	}
	_, err := k.Get(Service, LLMKeyUser)
	if err == nil || errors.Is(err, ErrNotFound) {
		return nil
	}
	return keyringError(err, "", altSave)
}

// kind classifies keyring failures.
type kind int

const (
	kindOther          kind = iota
	kindNoneConfigured      // the KeySource has no Keyring
	kindNoBus               // no session bus at all
	kindBadBus              // a bus address is set but cannot be used
	kindNoService           // nothing provides org.freedesktop.secrets
	kindLocked              // the collection cannot be unlocked
	kindNoCollection        // no default collection to store into
	kindNoAnswer            // the service (or a prompt) did not answer in time
	kindUnsupported         // go-keyring has no backend for this OS
	kindTooBig              // the platform refuses a secret this large
)

// absent reports whether the kind means this environment has no keyring at
// all (rather than an existing keyring that failed).
func (k kind) absent() bool {
	return k == kindNoneConfigured || k == kindNoBus || k == kindNoService || k == kindUnsupported
}

// Tails of the user-facing messages: what to do instead.
const (
	altSave   = "You can use it for this run only (memory only) or set " + EnvKeyFile + "."
	altDelete = "A key handed over for this run was forgotten, but a key saved in the OS keyring earlier (if any) was not removed."
)

// classify maps the errors of go-keyring and godbus (feasibility.md §3) to a
// kind and a short explanation for people.
func classify(err error) (kind, string) {
	msg := err.Error()
	var dn string
	var de dbus.Error
	var dp *dbus.Error
	switch {
	case errors.As(err, &de):
		dn = de.Name
	case errors.As(err, &dp) && dp != nil:
		dn = dp.Name
	}
	var op *net.OpError
	switch {
	case errors.Is(err, errNoSessionBus), strings.Contains(msg, "couldn't determine address of session bus"),
		strings.Contains(msg, "dbus-launch"):
		return kindNoBus, "there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and no per-user bus socket exists, as in an SSH session, a container or on a headless server)"
	case errors.As(err, &op) && op.Op == "dial", strings.HasPrefix(msg, "dial "):
		return kindBadBus, "the D-Bus session bus cannot be reached (DBUS_SESSION_BUS_ADDRESS points to a socket that is gone or refuses connections)"
	case strings.Contains(msg, "dbus: authentication failed"):
		return kindBadBus, "the D-Bus session bus refused this process (authentication failed)"
	case dn == "org.freedesktop.DBus.Error.ServiceUnknown", dn == "org.freedesktop.DBus.Error.NameHasNoOwner",
		strings.HasPrefix(dn, "org.freedesktop.DBus.Error.Spawn."),
		strings.Contains(msg, "was not provided by any .service files"):
		return kindNoService, "no Secret Service runs on the session bus (nothing provides org.freedesktop.secrets; install and start gnome-keyring, or enable the Secret Service in KeePassXC)"
	case strings.Contains(msg, "failed to unlock correct collection"), dn == "org.freedesktop.Secret.Error.IsLocked":
		return kindLocked, "the OS keyring is locked and could not be unlocked (the unlock prompt was dismissed, the password was wrong, or no prompt can be shown without a display)"
	case dn == "org.freedesktop.Secret.Error.NoSuchObject", dn == "org.freedesktop.DBus.Error.UnknownObject":
		return kindNoCollection, "the Secret Service has no default keyring (collection) to store the key in"
	case dn == "org.freedesktop.DBus.Error.NoReply", dn == "org.freedesktop.DBus.Error.Timeout", errors.Is(err, errNoAnswer):
		return kindNoAnswer, "the OS keyring did not answer in time (an unlock prompt may be waiting)"
	case errors.Is(err, keyring.ErrUnsupportedPlatform):
		return kindUnsupported, "HyAtlas supports no keyring on this operating system"
	case errors.Is(err, keyring.ErrSetDataTooBig):
		return kindTooBig, "the key is too large for the OS keyring"
	}
	return kindOther, "the OS keyring reported: " + msg
}

// errNoAnswer is the error of a keyring call that exceeded its time limit.
var errNoAnswer = errors.New("no answer from the OS keyring")

// keyringError turns a keyring failure into a domain error. key, when not
// empty, is scrubbed from the message (no known backend puts it there; this
// is a second line of defence).
func keyringError(err error, key, alt string) *memory.Error {
	k, cause := classify(err)
	if key != "" {
		cause = strings.ReplaceAll(cause, key, "[redacted]")
	}
	if k == kindTooBig {
		return memory.Errorf(memory.EINVALID, "The OS keyring refused the key: %s. %s", cause, alt)
	}
	return unavailable(k, cause, alt)
}

func unavailable(k kind, cause, alt string) *memory.Error {
	switch {
	case k == kindNoneConfigured:
		return memory.Errorf(memory.EUNAVAILABLE, "No OS keyring is available here: none is configured for this process. %s", alt)
	case k == kindOther:
		return memory.Errorf(memory.EUNAVAILABLE, "The OS keyring failed: %s. %s", strings.TrimSuffix(cause, "."), alt)
	case k.absent() || k == kindBadBus || k == kindLocked || k == kindNoCollection:
		return memory.Errorf(memory.EUNAVAILABLE, "No OS keyring is available here: %s. %s", cause, alt)
	}
	return memory.Errorf(memory.EUNAVAILABLE, "The OS keyring is not usable right now: %s. %s", cause, alt)
}

// redactedFormat writes a fixed text for every fmt verb, so that printing a
// value that holds a key never prints the key.
func redactedFormat(f fmt.State, name string) {
	_, _ = fmt.Fprintf(f, "%s{[redacted]}", name)
}
