package engine

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
)

// ListenFDEnv names the descriptor of the listening socket a restart hands
// to the process it starts in place of this one (exec keeps a descriptor
// open when told to), so the port is never free between the two: no
// other program can take it meanwhile and receive the agents' token or a
// dashboard session from a client that is still sure of the address.
// Connections that come meanwhile wait in the socket's queue for the new
// process. Listen takes the socket and removes the variable.
const ListenFDEnv = "HYATLAS_LISTEN_FD"

// heldListener is the duplicate of the listener Close keeps when a restart
// was asked for (nil: none).
var heldListener struct {
	sync.Mutex
	f *os.File
}

// holdListener keeps a duplicate of ln, which stays listening once the
// server closes ln, for the process a restart starts.
func holdListener(ln net.Listener) error {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return fmt.Errorf("hold the listener: a %T", ln)
	}
	f, err := tl.File()
	if err != nil {
		return fmt.Errorf("hold the listener: %w", err)
	}
	heldListener.Lock()
	defer heldListener.Unlock()
	if heldListener.f != nil {
		heldListener.f.Close()
	}
	heldListener.f = f
	return nil
}

// ListenerForRestart is the listening socket Close kept for a restart
// (nil when none): the caller passes it on (Unix exec, with close-on-exec
// cleared) and names its descriptor in ListenFDEnv.
func ListenerForRestart() *os.File {
	heldListener.Lock()
	defer heldListener.Unlock()
	return heldListener.f
}

// inheritedListener is the listening socket a restart handed over (nil
// when none, or when it is not on this instance's port), taken once.
func inheritedListener(port int) (net.Listener, error) {
	v, ok := os.LookupEnv(ListenFDEnv)
	if !ok {
		return nil, nil
	}
	_ = os.Unsetenv(ListenFDEnv) // nothing this process starts gets it
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s=%q is not a descriptor", ListenFDEnv, v)
	}
	f := os.NewFile(uintptr(fd), "hyatlas-listener")
	defer f.Close() // FileListener made its own duplicate
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("the listener a restart handed over: %w", err)
	}
	if a, ok := ln.Addr().(*net.TCPAddr); !ok || port != 0 && a.Port != port {
		ln.Close() // the port was changed for this start: listen afresh
		return nil, nil
	}
	return ln, nil
}

// ReleaseInheritedListener closes the listening socket a restart handed
// over when this process did not take it (a start that failed before
// Listen): left open, it would hold the port with nobody answering, and
// clients would wait instead of being refused. After Listen it does
// nothing.
func ReleaseInheritedListener() {
	v, ok := os.LookupEnv(ListenFDEnv)
	if !ok {
		return
	}
	_ = os.Unsetenv(ListenFDEnv)
	if fd, err := strconv.Atoi(v); err == nil && fd >= 3 {
		_ = os.NewFile(uintptr(fd), "hyatlas-listener").Close()
	}
}
