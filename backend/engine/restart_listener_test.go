//go:build unix

package engine

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"testing"
)

// A restart keeps the port: the engine that stops for it keeps its
// listening socket open (no other program can take the port meanwhile,
// and receive the agents' token), and the one that starts in its place
// serves on that very socket.
func TestRestart_ThePortIsNeverFree(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	first, err := Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	addr, err := first.Listen()
	if err != nil {
		t.Fatal(err)
	}
	first.restart.Store(true) // as POST /api/v1/restart does
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	held := ListenerForRestart()
	if held == nil {
		t.Fatal("no listener held for the restart")
	}
	t.Cleanup(func() {
		heldListener.Lock()
		heldListener.f = nil
		heldListener.Unlock()
		held.Close()
	})
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close()
		t.Fatalf("another program could take %s between the two", addr)
	}
	// The process the restart starts gets the descriptor (exec keeps it).
	fd, err := syscall.Dup(int(held.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(ListenFDEnv, strconv.Itoa(fd))
	_, port, _ := net.SplitHostPort(addr)
	cfg.Port, _ = strconv.Atoi(port)
	second, err := Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Close() })
	got, err := second.Listen()
	if err != nil || got != addr {
		t.Fatalf("the restarted engine listens on %s (%v), want %s", got, err, addr)
	}
	res, err := http.Get(fmt.Sprintf("http://%s/healthz", addr))
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("healthz on the handed-over socket: %v %v", res, err)
	}
	res.Body.Close()
}

// A start that fails before it listens frees the port a restart handed
// over, so clients are refused at once instead of waiting on a socket
// nobody answers.
func TestRestart_AStartThatFailsFreesThePort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Dup(int(f.Fd())) // the descriptor the restart handed over
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	f.Close()
	ln.Close() // only the handed-over descriptor holds the port now
	t.Setenv(ListenFDEnv, strconv.Itoa(fd))
	ReleaseInheritedListener()
	if _, ok := os.LookupEnv(ListenFDEnv); ok {
		t.Error("the variable is still set")
	}
	again, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the port is still held after the release: %v", err)
	}
	again.Close()
}
