//go:build e2e

// End-to-end tests of the built desktop binary (HYATLAS_BIN): its window
// under a virtual X server and its dashboard in Chromium. `make test` runs
// them under xvfb-run and dbus-run-session; they need xdotool, node and
// /usr/bin/chromium, which build/scripts/deps.sh installs.
package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

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

// visibleWindows lists the ids of the mapped windows named HyAtlas.
func visibleWindows() []uint32 { return visibleWindowsNamed("^HyAtlas") }

// visibleWindowsNamed lists the ids of the mapped windows whose name
// matches the regular expression name.
func visibleWindowsNamed(name string) []uint32 {
	out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", name).Output()
	var ids []uint32
	for _, f := range strings.Fields(string(out)) {
		if n, err := strconv.ParseUint(f, 10, 32); err == nil {
			ids = append(ids, uint32(n))
		}
	}
	return ids
}

// waitVisible waits up to 20 s for the window to be shown and returns its ids.
func waitVisible(t *testing.T, p *proctest.Instance) []uint32 {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if ids := visibleWindows(); len(ids) > 0 {
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatalf("no visible HyAtlas window:\n%s", p.Out.String())
		}
	}
}

// windowGeometry is xdotool's geometry of every window named HyAtlas
// (GTK makes small helper windows too).
func windowGeometry() string {
	ids, err := exec.Command("xdotool", "search", "--name", "^HyAtlas").Output()
	if err != nil {
		return ""
	}
	var all []string
	for _, id := range strings.Fields(string(ids)) {
		if out, err := exec.Command("xdotool", "getwindowgeometry", id).Output(); err == nil {
			all = append(all, strings.TrimSpace(string(out)))
		}
	}
	return strings.Join(all, "\n")
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
	// A size remembered from an earlier run is used.
	p := proctest.New(t, binary(t), "DISPLAY="+display, "XAUTHORITY="+os.Getenv("XAUTHORITY"),
		"DBUS_SESSION_BUS_ADDRESS="+os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
	if err := os.MkdirAll(filepath.Join(p.Home, "config"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Home, "config", "window.json"), []byte(`{"Width":900,"Height":600}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p.Start()
	waitTitle(t, p, "HyAtlas · 0 memories")
	add(t, p, "the window should count this")
	waitTitle(t, p, "HyAtlas · 1 memory")
	add(t, p, "and this one too")
	waitTitle(t, p, "HyAtlas · 2 memories")
	if strings.Contains(p.Out.String(), "running headless") {
		t.Errorf("the app ran headless with a display:\n%s", p.Out.String())
	}
	if geo := windowGeometry(); !strings.Contains(geo, "900x600") {
		t.Errorf("window geometry %q, want the remembered 900x600", geo)
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
	b, err := os.ReadFile(filepath.Join(p.Home, "config", "window.json"))
	if err != nil || !strings.Contains(string(b), `"Width":900,"Height":600`) {
		t.Errorf("remembered geometry: %s %v", b, err)
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
// when a memory is added. The extraction endpoint refuses connections, so
// the page must also say that extraction failed, without the key.
func TestDashboardInChromium(t *testing.T) {
	const key = "sk-e2e-never-shown-4711"
	down := httptest.NewServer(http.NotFoundHandler())
	refused := down.Listener.Addr().String()
	down.Close() // nothing listens there now: connecting is refused at once
	p := proctest.New(t, binary(t), "HYATLAS_MODE=pro", "HYATLAS_LLM_BASE=http://"+refused+"/v1",
		"HYATLAS_LLM_MODEL=e2e-model", "HYATLAS_LLM_KEY="+key)
	p.Start("serve")
	c := p.Client()
	link, err := c.DashboardLink(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	add(t, p, "a memory before the browser opens")
	out, err := runNode("status.e2e.mjs", link, "HYATLAS_API="+c.Base, "HYATLAS_TOKEN="+c.Token,
		"E2E_SCREENSHOT="+filepath.Join(t.TempDir(), "dashboard.png"), "E2E_DEGRADED_SECRET="+key)
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("dashboard e2e failed: %v", err)
	}
}

// TestPagesInChromium runs frontend/e2e/atlas.e2e.mjs: the Atlas (add by
// hand, promote, search, retire, show retired, restore, edit, history),
// Settings (a key stored in the real gnome-keyring `make test` starts,
// never shown; Connect Hermes and Disconnect on a Hermes home with the
// user's comments), Snapshots (make, restore, undo) and a screenshot of every
// page, kept in E2E_SHOTS (build/e2e-shots by default).
func TestPagesInChromium(t *testing.T) {
	var env []string
	if bus := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); bus != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+bus)
	}
	hermesHome := filepath.Join(t.TempDir(), "hermes")
	if err := os.MkdirAll(hermesHome, 0o700); err != nil {
		t.Fatal(err)
	}
	hermesConfig := "# my Hermes\nmemory:\n  provider: honcho  # before HyAtlas\nterminal:\n  backend: local\n"
	if err := os.WriteFile(filepath.Join(hermesHome, "config.yaml"), []byte(hermesConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	p := proctest.New(t, binary(t), append(env, "HYATLAS_MODE=lite", "HERMES_HOME="+hermesHome)...)
	p.Start("serve")
	link, err := p.Client().DashboardLink(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pageEnv := []string{"E2E_SHOTS=" + shotsDir(), "E2E_HERMES_HOME=" + hermesHome}
	if os.Getenv("GNOME_KEYRING_CONTROL") != "" {
		pageEnv = append(pageEnv, "E2E_EXPECT_KEYRING=1")
	}
	out, err := runNode("atlas.e2e.mjs", link, pageEnv...)
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("pages e2e failed: %v; server output:\n%s", err, p.Out.String())
	}
}

// TestPageDetailsInChromium runs, each on its own instance:
// frontend/e2e/atlas-long.e2e.mjs on 600 memories (messages and Undo stay
// in view for a row far down the list, resizing keeps the place, "by
// meaning" honours the filters, "newest first" shows the dates it sorts
// by, an Edit form opens with the text as it is now) and
// recall-empty.e2e.mjs (an empty Recall answer says why, and names a user
// who owns nothing), snapshots-follow.e2e.mjs (snapshots made elsewhere
// appear, Undo goes with its snapshot, an unreadable one offers no restore)
// and forms.e2e.mjs (Settings asks before dropping typed text; the
// Workspace saves on Ctrl+S, never shows one agent's text under a refused
// name, and shows an agent's write to an open file) and
// palace-timeline.e2e.mjs (the Mind Palace follows a graph that changes,
// shows a date-only time as its day, plays from the start, keeps the
// playhead in range on either axis, says when Find finds nothing, and
// fits a 320 px window) and model-install.e2e.mjs (installing a model
// keeps the focus, and a download that breaks off is said in words) and
// palace-pass.e2e.mjs (Run a pass now keeps the focus, its outcome stays,
// and a graph on show can ask for another pass).
func TestPageDetailsInChromium(t *testing.T) {
	modelsPort, llmPort := proctest.FreePort(t), proctest.FreePort(t)
	for _, c := range []struct {
		script          string
		server, browser []string // extra environment of the server and of the script
	}{
		{script: "atlas-long.e2e.mjs"},
		{script: "recall-empty.e2e.mjs"},
		{script: "snapshots-follow.e2e.mjs"},
		{script: "forms.e2e.mjs"},
		{script: "palace-timeline.e2e.mjs"},
		{script: "transfer.e2e.mjs"},
		// The script serves a models mirror that breaks off.
		{script: "model-install.e2e.mjs", server: []string{fmt.Sprintf("HYATLAS_MODELS_BASE=http://127.0.0.1:%d/", modelsPort)},
			browser: []string{fmt.Sprintf("MODELS_PORT=%d", modelsPort)}},
		// The script serves a slow extraction model for ultra mode.
		{script: "palace-pass.e2e.mjs", server: []string{"HYATLAS_MODE=ultra", "HYATLAS_SYNC_EXTRACT=on", "HYATLAS_LLM_MODEL=m",
			fmt.Sprintf("HYATLAS_LLM_BASE=http://127.0.0.1:%d/v1", llmPort)}, browser: []string{fmt.Sprintf("FAKE_LLM_PORT=%d", llmPort)}},
	} {
		t.Run(c.script, func(t *testing.T) {
			p := proctest.New(t, binary(t), append([]string{"HYATLAS_MODE=lite"}, c.server...)...)
			p.Start("serve")
			link, err := p.Client().DashboardLink(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			env := append([]string{"SNAPSHOT_DIR=" + filepath.Join(p.Home, "data-snapshots")}, c.browser...)
			out, err := runNode(c.script, link, env...)
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("%s failed: %v", c.script, err)
			}
		})
	}
}

// fakeWatcher stands in for the desktop's tray host: it owns
// org.kde.StatusNotifierWatcher on the session bus and reports the bus
// name of each item that registers.
type fakeWatcher struct{ items chan string }

func (w *fakeWatcher) RegisterStatusNotifierItem(sender dbus.Sender, _ string) *dbus.Error {
	select {
	case w.items <- string(sender):
	default:
	}
	return nil
}

// menuLabels walks a dbusmenu layout (id, properties, children) into
// label -> id.
func menuLabels(v any, out map[string]int32) {
	parts, ok := v.([]any)
	if !ok || len(parts) != 3 {
		return
	}
	id, _ := parts[0].(int32)
	if props, ok := parts[1].(map[string]dbus.Variant); ok {
		if l, ok := props["label"].Value().(string); ok {
			out[l] = id
		}
	}
	if kids, ok := parts[2].([]dbus.Variant); ok {
		for _, k := range kids {
			menuLabels(k.Value(), out)
		}
	}
}

// statusLine is the menu's status line ("N memories · extraction ...").
func statusLine(labels map[string]int32) string {
	for l := range labels {
		if strings.Contains(l, " memories · extraction ") {
			return l
		}
	}
	return ""
}

// TestTrayQuit: with a tray host on the session bus, the app's tray item
// registers, shows its menu with a live status line, and its Quit ends
// the app cleanly.
func TestTrayQuit(t *testing.T) {
	display := os.Getenv("DISPLAY")
	if display == "" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Fatal("run under xvfb-run and dbus-run-session (make test does)")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := &fakeWatcher{items: make(chan string, 1)}
	if err := conn.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own the watcher name: %v %v", reply, err)
	}
	defer func() { _, _ = conn.ReleaseName("org.kde.StatusNotifierWatcher") }()
	p := start(t, display)
	var sender string
	select {
	case sender = <-w.items:
	case <-time.After(30 * time.Second):
		t.Fatalf("no tray item registered:\n%s", p.Out.String())
	}
	item := conn.Object(sender, "/StatusNotifierItem")
	title, err := item.GetProperty("org.kde.StatusNotifierItem.Title")
	if err != nil || title.Value() != "HyAtlas" {
		t.Fatalf("title %v, %v", title, err)
	}
	menuPath, err := item.GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatal(err)
	}
	menu := conn.Object(sender, menuPath.Value().(dbus.ObjectPath))
	labels := map[string]int32{}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		call := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
		if call.Err != nil || len(call.Body) != 2 {
			t.Fatalf("GetLayout: %v", call.Err)
		}
		layout, _ := call.Body[1].([]any)
		clear(labels)
		menuLabels(layout, labels)
		if statusLine(labels) != "" {
			break
		}
	}
	for _, want := range []string{"Open HyAtlas", "Open in browser", "Pause extraction", "Quit"} {
		if _, ok := labels[want]; !ok {
			t.Fatalf("menu %v lacks %q", labels, want)
		}
	}
	if got := statusLine(labels); got != "0 memories · extraction unconfigured" {
		t.Errorf("status line %q in %v", got, labels)
	}
	// Closing the window hides it: the API and the agent's memory go on.
	ids := waitVisible(t, p)
	for _, id := range ids {
		if err := closeWindow(display, id); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(15 * time.Second); len(visibleWindows()) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the window is still shown after its close button:\n%s", p.Out.String())
		}
	}
	add(t, p, "Written while the window is closed")
	if st, err := p.Client().Status(context.Background()); err != nil || st.Writes != 1 || p.Cmd.ProcessState != nil {
		t.Fatalf("after closing the window: %+v %v", st, err)
	}
	// A second launch is not a second app: it brings this window forward.
	if out, code := p.Run(); code != 0 || !strings.Contains(out, "its window is in front") {
		t.Fatalf("second launch: exit %d\n%s", code, out)
	}
	for deadline := time.Now().Add(15 * time.Second); len(visibleWindows()) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a second launch did not show the hidden window")
		}
	}
	call := menu.Call("com.canonical.dbusmenu.Event", 0, labels["Quit"], "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if call.Err != nil {
		t.Fatal(call.Err)
	}
	if code := p.Wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d after Quit:\n%s", code, p.Out.String())
	}
	if !strings.Contains(p.Out.String(), "quit from the tray") {
		t.Errorf("output:\n%s", p.Out.String())
	}
}

// TestCloseWithoutTrayQuits: with no tray icon on show, the close button
// quits the app cleanly instead of hiding a window nobody could bring
// back: with no session bus, and with a bus but no tray host on it (stock
// GNOME without its AppIndicator extension).
func TestCloseWithoutTrayQuits(t *testing.T) {
	display := os.Getenv("DISPLAY")
	if display == "" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Fatal("run under xvfb-run and dbus-run-session (make test does)")
	}
	for _, c := range []struct{ name, bus string }{
		{"no session bus", "unix:path=/nonexistent"},
		{"a bus without a tray host", os.Getenv("DBUS_SESSION_BUS_ADDRESS")},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := proctest.New(t, binary(t), "DISPLAY="+display, "XAUTHORITY="+os.Getenv("XAUTHORITY"),
				"DBUS_SESSION_BUS_ADDRESS="+c.bus)
			p.Start()
			for _, id := range waitVisible(t, p) {
				if err := closeWindow(display, id); err != nil {
					t.Fatal(err)
				}
			}
			if code := p.Wait(30 * time.Second); code != 0 {
				t.Fatalf("exit %d after the close button:\n%s", code, p.Out.String())
			}
		})
	}
}
