//go:build e2e

package app_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hyatlas/app"
	"hyatlas/backend/proctest"
)

// The desktop app that cannot start shows why in a window of its own (a
// person who double-clicked it reads no terminal), and quits when they
// press Enter on Quit or close the window, with exit code 1 and the
// message on stderr too.
func TestStartErrorWindow(t *testing.T) {
	display := os.Getenv("DISPLAY")
	if display == "" {
		t.Fatal("DISPLAY is not set: run under xvfb-run (make test does)")
	}
	tests := []struct {
		name  string
		close func(id uint32) error
	}{
		{"Enter on Quit", func(id uint32) error {
			w := strconv.FormatUint(uint64(id), 10)
			if err := exec.Command("xdotool", "windowfocus", "--sync", w).Run(); err != nil {
				return nil // gone already
			}
			return exec.Command("xdotool", "key", "Return").Run()
		}},
		{"the close button", func(id uint32) error { return closeWindow(display, id) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := proctest.New(t, binary(t), "DISPLAY="+display, "XAUTHORITY="+os.Getenv("XAUTHORITY"),
				"DBUS_SESSION_BUS_ADDRESS="+os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
			data := filepath.Join(p.Home, "data")
			if err := os.WriteFile(data, []byte("not a folder"), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(p.Binary)
			cmd.Env = p.Env
			out := &proctest.Buffer{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			var id uint32
			for deadline := time.Now().Add(20 * time.Second); id == 0; time.Sleep(100 * time.Millisecond) {
				if ids := visibleWindowsNamed(app.StartErrorTitle); len(ids) > 0 {
					id = ids[0]
				}
				if time.Now().After(deadline) {
					t.Fatalf("no window titled %q:\n%s", app.StartErrorTitle, out.String())
				}
			}
			// The page loads after the window maps: ask again until it quits.
			deadline := time.After(20 * time.Second)
		wait:
			for {
				if err := tc.close(id); err != nil {
					t.Fatal(err)
				}
				select {
				case err := <-done:
					var exit *exec.ExitError
					if !errors.As(err, &exit) || exit.ExitCode() != 1 {
						t.Errorf("exit: %v, want code 1", err)
					}
					break wait
				case <-time.After(500 * time.Millisecond):
				case <-deadline:
					t.Fatalf("the window did not quit:\n%s", out.String())
				}
			}
			if !strings.Contains(out.String(), "not a directory") {
				t.Errorf("stderr does not say why:\n%s", out.String())
			}
		})
	}
}
