// Package proctest runs the hyatlas binary as a separate process, with its
// own data, config and port, for end-to-end tests (the CLI's and the
// desktop window's). Only tests import it.
package proctest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
)

// Instance is one install of HyAtlas: a home with its own data, config
// and cache directories, and a free loopback port.
type Instance struct {
	t      testing.TB
	Binary string
	Home   string
	Port   int
	Env    []string
	Cmd    *exec.Cmd // the background process, once Start ran
	Out    *Buffer   // its stdout and stderr
}

// New prepares an instance; extraEnv is added to a minimal environment
// (PATH, HOME and the HYATLAS_* directories and port).
func New(t testing.TB, binary string, extraEnv ...string) *Instance {
	t.Helper()
	home := t.TempDir()
	port := FreePort(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "HYATLAS_ORT_LIB=" + ORTLib(),
		"HYATLAS_DATA=" + filepath.Join(home, "data"), "HYATLAS_CONFIG_DIR=" + filepath.Join(home, "config"),
		"HYATLAS_CACHE_DIR=" + filepath.Join(home, "cache"), fmt.Sprintf("HYATLAS_GO_PORT=%d", port)}
	return &Instance{t: t, Binary: binary, Home: home, Port: port, Env: append(env, extraEnv...)}
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Build compiles the hyatlas main package into dir and returns the path.
func Build(dir, mainPkg string, tags ...string) (string, error) {
	bin := filepath.Join(dir, "hyatlas")
	args := []string{"build", "-o", bin}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, mainPkg)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build hyatlas: %w", err)
	}
	return bin, nil
}

// Base is the instance's API address.
func (in *Instance) Base() string { return fmt.Sprintf("http://127.0.0.1:%d", in.Port) }

// Start runs `hyatlas args...` in the background, waits until /readyz
// answers, and kills the process at the end of the test if it still runs.
func (in *Instance) Start(args ...string) {
	in.t.Helper()
	in.start(func(c *client.Client) error { return c.Ready(context.Background()) }, args)
}

// StartLive is Start for an instance that serves but is not ready (it
// cannot store, say): it waits until /healthz answers.
func (in *Instance) StartLive(args ...string) {
	in.t.Helper()
	in.start(func(c *client.Client) error { return c.Health(context.Background()) }, args)
}

func (in *Instance) start(up func(*client.Client) error, args []string) {
	in.t.Helper()
	in.Cmd = exec.Command(in.Binary, args...)
	in.Cmd.Env = in.Env
	in.Out = &Buffer{}
	in.Cmd.Stdout, in.Cmd.Stderr = in.Out, in.Out
	if err := in.Cmd.Start(); err != nil {
		in.t.Fatal(err)
	}
	cmd := in.Cmd
	in.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	c := client.New(in.Base(), "")
	for deadline := time.Now().Add(30 * time.Second); up(c) != nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			in.t.Fatalf("hyatlas did not become ready; output:\n%s", in.Out.String())
		}
	}
}

// Client returns an API client with the instance's token.
func (in *Instance) Client() *client.Client {
	in.t.Helper()
	tok, err := api.ReadToken(filepath.Join(in.Home, "config"))
	if err != nil {
		in.t.Fatal(err)
	}
	return client.New(in.Base(), tok)
}

// Run runs a command to completion and returns its output and exit code.
func (in *Instance) Run(args ...string) (string, int) {
	in.t.Helper()
	return in.RunStdin("", args...)
}

// RunStdin is Run with stdin.
func (in *Instance) RunStdin(stdin string, args ...string) (string, int) {
	in.t.Helper()
	cmd := exec.Command(in.Binary, args...)
	cmd.Env = in.Env
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		in.t.Fatal(err)
	}
	return string(out), 0
}

// Wait waits for the background process to exit and returns its code; it
// fails the test after timeout.
func (in *Instance) Wait(timeout time.Duration) int {
	in.t.Helper()
	done := make(chan error, 1)
	go func() { done <- in.Cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			in.t.Fatal(err)
		}
		return 0
	case <-time.After(timeout):
		_ = in.Cmd.Process.Kill()
		in.t.Fatalf("process did not exit within %v; output:\n%s", timeout, in.Out.String())
		return -1
	}
}

// Buffer collects a process's output; safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// WaitFor reports whether want appears in the output within timeout: a
// server answers as soon as it listens, a moment before it prints where.
func (b *Buffer) WaitFor(want string, timeout time.Duration) bool {
	return b.WaitForCount(want, 1, timeout)
}

// WaitForCount reports whether want appears n times within timeout.
func (b *Buffer) WaitForCount(want string, n int, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); ; time.Sleep(20 * time.Millisecond) {
		if strings.Count(b.String(), want) >= n {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// ORTLib is the ONNX Runtime library tests load: HYATLAS_ORT_LIB, else the
// copy `make` keeps in the repository's build cache.
func ORTLib() string {
	if lib := os.Getenv("HYATLAS_ORT_LIB"); lib != "" {
		return lib
	}
	dir, err := os.Getwd()
	for err == nil {
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			return filepath.Join(dir, "build", "cache", "ort", "lib", ortLibName())
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ortLibName()
}

func ortLibName() string {
	switch runtime.GOOS {
	case "windows":
		return "onnxruntime.dll"
	case "darwin":
		return "libonnxruntime.1.dylib"
	default:
		return "libonnxruntime.so.1"
	}
}
