//go:build e2e

// End-to-end tests of the built desktop binary (HYATLAS_BIN): its window
// under a virtual X server and its dashboard in Chromium. `make test` runs
// them under xvfb-run and dbus-run-session; they need xdotool, node and
// /usr/bin/chromium, which build/scripts/deps.sh installs.
package app_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
)

type proc struct {
	t    *testing.T
	home string
	port int
	env  []string
	cmd  *exec.Cmd
	out  *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func binary(t *testing.T) string {
	bin := os.Getenv("HYATLAS_BIN")
	if bin == "" {
		t.Fatal("HYATLAS_BIN must name the built desktop binary (make test sets it)")
	}
	return bin
}

// start runs the binary with its own data and port; display "" removes the
// display from the environment.
func start(t *testing.T, display string, args ...string) *proc {
	t.Helper()
	home := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	p := &proc{t: t, home: home, port: port, out: &lockedBuffer{}}
	p.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"DBUS_SESSION_BUS_ADDRESS=" + os.Getenv("DBUS_SESSION_BUS_ADDRESS"),
		"HYATLAS_DATA=" + filepath.Join(home, "data"), "HYATLAS_CONFIG_DIR=" + filepath.Join(home, "config"),
		"HYATLAS_CACHE_DIR=" + filepath.Join(home, "cache"), fmt.Sprintf("HYATLAS_GO_PORT=%d", port)}
	if display != "" {
		p.env = append(p.env, "DISPLAY="+display, "XAUTHORITY="+os.Getenv("XAUTHORITY"))
	}
	p.cmd = exec.Command(binary(t), args...)
	p.cmd.Env = p.env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	p.waitFor("serving at", 30*time.Second)
	return p
}

func (p *proc) waitFor(text string, d time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(p.out.String(), text) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("no %q within %v; output:\n%s", text, d, p.out.String())
}

func (p *proc) client() *client.Client {
	p.t.Helper()
	tok, err := api.ReadToken(filepath.Join(p.home, "config"))
	if err != nil {
		p.t.Fatal(err)
	}
	return client.New(fmt.Sprintf("http://127.0.0.1:%d", p.port), tok)
}

func (p *proc) add(text string) {
	p.t.Helper()
	if _, err := p.client().Add(context.Background(), api.AddRequest{Text: &text}); err != nil {
		p.t.Fatal(err)
	}
}

// windowTitle returns the title of the window whose name starts with
// "HyAtlas", as the window manager sees it.
func windowTitle() string {
	ids, err := exec.Command("xdotool", "search", "--name", "^HyAtlas").Output()
	if err != nil {
		return ""
	}
	for _, id := range strings.Fields(string(ids)) {
		name, err := exec.Command("xdotool", "getwindowname", id).Output()
		if err == nil && strings.HasPrefix(string(name), "HyAtlas") {
			return strings.TrimSpace(string(name))
		}
	}
	return ""
}

func waitTitle(t *testing.T, p *proc, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if got = windowTitle(); got == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("window title %q, want %q; output:\n%s", got, want, p.out.String())
}

// TestWindowShowsLiveCounts opens the real window and reads its title,
// which the page sets from the live memory count: it proves the window
// loaded the frontend, which read the API through the in-process handler
// and keeps polling it.
func TestWindowShowsLiveCounts(t *testing.T) {
	display := os.Getenv("DISPLAY")
	if display == "" {
		t.Fatal("DISPLAY is not set: run under xvfb-run (make test does)")
	}
	p := start(t, display)
	waitTitle(t, p, "HyAtlas · 0 memories")
	p.add("the window should count this")
	waitTitle(t, p, "HyAtlas · 1 memory")
	p.add("and this one too")
	waitTitle(t, p, "HyAtlas · 2 memories")
	if strings.Contains(p.out.String(), "running headless") {
		t.Errorf("the app ran headless with a display:\n%s", p.out.String())
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, p.out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the window did not close on SIGTERM:\n%s", p.out.String())
	}
}

func TestNoDisplayRunsHeadless(t *testing.T) {
	p := start(t, "")
	if !strings.Contains(p.out.String(), "No display found: running headless.") {
		t.Errorf("output:\n%s", p.out.String())
	}
	p.add("headless write")
	st, err := p.client().Status(context.Background())
	if err != nil || st.Total != 1 {
		t.Errorf("status %+v %v", st, err)
	}
}

// TestDashboardInChromium runs frontend/e2e/status.e2e.mjs: the browser
// signs in with a one-time link, shows the counts, and updates them live
// when a memory is added.
func TestDashboardInChromium(t *testing.T) {
	p := start(t, "", "serve")
	c := p.client()
	link, err := c.DashboardLink(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p.add("a memory before the browser opens")
	cmd := exec.Command("node", "e2e/status.e2e.mjs")
	cmd.Dir = "../frontend"
	cmd.Env = append(os.Environ(), "HYATLAS_URL="+link, "HYATLAS_API="+c.Base, "HYATLAS_TOKEN="+c.Token,
		"E2E_SCREENSHOT="+filepath.Join(t.TempDir(), "dashboard.png"))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("dashboard e2e failed: %v", err)
	}
}
