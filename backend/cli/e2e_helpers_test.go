package cli_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
)

// binary is the hyatlas binary built once for the end-to-end tests (a
// plain build: no desktop window, so it always serves headless).
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hyatlas-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "hyatlas")
	build := exec.Command("go", "build", "-o", binary, "../..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build hyatlas:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// instance is one install: its own data, config and port.
type instance struct {
	t    *testing.T
	home string
	port int
	env  []string
	cmd  *exec.Cmd
	out  *syncBuffer
}

func newInstance(t *testing.T, extraEnv ...string) *instance {
	t.Helper()
	home := t.TempDir()
	port := freePort(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"HYATLAS_DATA=" + filepath.Join(home, "data"), "HYATLAS_CONFIG_DIR=" + filepath.Join(home, "config"),
		"HYATLAS_CACHE_DIR=" + filepath.Join(home, "cache"), fmt.Sprintf("HYATLAS_GO_PORT=%d", port)}
	return &instance{t: t, home: home, port: port, env: append(env, extraEnv...)}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (in *instance) base() string { return fmt.Sprintf("http://127.0.0.1:%d", in.port) }

// start runs `hyatlas args...` in the background and waits until /readyz
// answers.
func (in *instance) start(args ...string) {
	in.t.Helper()
	in.cmd = exec.Command(binary, args...)
	in.cmd.Env = in.env
	in.out = &syncBuffer{}
	in.cmd.Stdout, in.cmd.Stderr = in.out, in.out
	if err := in.cmd.Start(); err != nil {
		in.t.Fatal(err)
	}
	cmd := in.cmd
	in.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	c := client.New(in.base(), "")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c.Ready(context.Background()) == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	in.t.Fatalf("hyatlas did not become ready; output:\n%s", in.out.String())
}

// client returns an API client with this install's token.
func (in *instance) client() *client.Client {
	in.t.Helper()
	tok, err := api.ReadToken(filepath.Join(in.home, "config"))
	if err != nil {
		in.t.Fatal(err)
	}
	return client.New(in.base(), tok)
}

// run runs a CLI command to completion.
func (in *instance) run(args ...string) (string, int) {
	in.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = in.env
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		in.t.Fatal(err)
	}
	return string(out), 0
}

// wait waits for the background process to exit and returns its code.
func (in *instance) wait(timeout time.Duration) int {
	in.t.Helper()
	done := make(chan error, 1)
	go func() { done <- in.cmd.Wait() }()
	select {
	case err := <-done:
		if exit, ok := err.(*exec.ExitError); ok {
			return exit.ExitCode()
		}
		if err != nil {
			in.t.Fatal(err)
		}
		return 0
	case <-time.After(timeout):
		_ = in.cmd.Process.Kill()
		in.t.Fatalf("process did not exit within %v; output:\n%s", timeout, in.out.String())
		return -1
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) lines() []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s.String()))
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func runWithStdin(t *testing.T, in *instance, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = in.env
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}
