//go:build e2e

// End-to-end tests of the built desktop binary (HYATLAS_BIN): its window
// under a virtual X server and its dashboard in Chromium. `make test` runs
// them under xvfb-run and dbus-run-session; they need xdotool, node and
// /usr/bin/chromium, which build/scripts/deps.sh installs.
package app_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/proctest"
)

func binary(t *testing.T) string {
	bin := os.Getenv("HYATLAS_BIN")
	if bin == "" {
		t.Fatal("HYATLAS_BIN must name the built desktop binary (make test sets it)")
	}
	return bin
}

// start runs the binary with its own data and port until it serves; with
// display "" the process gets no display.
func start(t *testing.T, display string, args ...string) *proctest.Instance {
	t.Helper()
	var env []string
	if display != "" {
		env = []string{"DISPLAY=" + display, "XAUTHORITY=" + os.Getenv("XAUTHORITY"),
			"DBUS_SESSION_BUS_ADDRESS=" + os.Getenv("DBUS_SESSION_BUS_ADDRESS")}
	}
	p := proctest.New(t, binary(t), env...)
	p.Start(args...)
	return p
}

func add(t *testing.T, p *proctest.Instance, text string) {
	t.Helper()
	if _, err := p.Client().Add(context.Background(), api.AddRequest{Text: &text}); err != nil {
		t.Fatal(err)
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

func waitTitle(t *testing.T, p *proctest.Instance, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if got = windowTitle(); got == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("window title %q, want %q; output:\n%s", got, want, p.Out.String())
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
	add(t, p, "the window should count this")
	waitTitle(t, p, "HyAtlas · 1 memory")
	add(t, p, "and this one too")
	waitTitle(t, p, "HyAtlas · 2 memories")
	if strings.Contains(p.Out.String(), "running headless") {
		t.Errorf("the app ran headless with a display:\n%s", p.Out.String())
	}
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, p.Out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the window did not close on SIGTERM:\n%s", p.Out.String())
	}
}

func TestNoDisplayRunsHeadless(t *testing.T) {
	p := start(t, "")
	if !strings.Contains(p.Out.String(), "No display found: running headless.") {
		t.Errorf("output:\n%s", p.Out.String())
	}
	add(t, p, "headless write")
	st, err := p.Client().Status(context.Background())
	if err != nil || st.Total != 1 {
		t.Errorf("status %+v %v", st, err)
	}
}

// TestDashboardInChromium runs frontend/e2e/status.e2e.mjs: the browser
// signs in with a one-time link, shows the counts, and updates them live
// when a memory is added.
func TestDashboardInChromium(t *testing.T) {
	p := start(t, "", "serve")
	c := p.Client()
	link, err := c.DashboardLink(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	add(t, p, "a memory before the browser opens")
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

// TestPagesInChromium runs frontend/e2e/atlas.e2e.mjs: the Atlas (add by
// hand, promote, search, retire, show retired, restore, edit, history),
// Settings (a key stored in the real gnome-keyring `make test` starts,
// never shown), Snapshots (make, restore, undo) and a screenshot of every
// page, kept in E2E_SHOTS (build/e2e-shots by default).
func TestPagesInChromium(t *testing.T) {
	var env []string
	if bus := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); bus != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+bus)
	}
	p := proctest.New(t, binary(t), append(env, "HYATLAS_MODE=lite")...)
	p.Start("serve")
	link, err := p.Client().DashboardLink(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("E2E_SHOTS")
	if shots == "" {
		shots, _ = filepath.Abs("../build/e2e-shots")
	}
	cmd := exec.Command("node", "e2e/atlas.e2e.mjs")
	cmd.Dir = "../frontend"
	cmd.Env = append(os.Environ(), "HYATLAS_URL="+link, "E2E_SHOTS="+shots)
	if os.Getenv("GNOME_KEYRING_CONTROL") != "" {
		cmd.Env = append(cmd.Env, "E2E_EXPECT_KEYRING=1")
	}
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("pages e2e failed: %v; server output:\n%s", err, p.Out.String())
	}
}
