package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/engine"
	"hyatlas/backend/proctest"
)

// The desktop app that cannot start says why in a window (StartFailed),
// as well as on stderr, once; an error of the window itself, once it was
// open, is not a failure to start.
func TestStartFailureIsShownInAWindow(t *testing.T) {
	tests := []struct {
		name       string
		dataIsFile bool
		guiErr     error
		shown      string // the start failure shown, "" for none
		exit       int
	}{
		{name: "the data folder is a file", dataIsFile: true, shown: "not a directory", exit: 1},
		{name: "the window failed once open", guiErr: errors.New("webview crashed"), exit: 1},
		{name: "the window closed", exit: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			data := filepath.Join(home, "data")
			if tc.dataIsFile {
				if err := os.WriteFile(data, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"HOME": home, "DISPLAY": ":404", "HYATLAS_DATA": data,
				"HYATLAS_CONFIG_DIR": filepath.Join(home, "config"), "HYATLAS_CACHE_DIR": filepath.Join(home, "cache"),
				"HYATLAS_MODE": "lite", "HYATLAS_ORT_LIB": proctest.ORTLib(),
				"HYATLAS_GO_PORT": fmt.Sprint(proctest.FreePort(t))}
			var shown []string
			var stderr bytes.Buffer
			code := Run(context.Background(), Env{
				Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(k string) string { return env[k] },
				GUI:         func(context.Context, *engine.Engine, *slog.Logger) error { return tc.guiErr },
				StartFailed: func(msg string) error { shown = append(shown, msg); return nil },
			})
			if code != tc.exit {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.exit, stderr.String())
			}
			switch {
			case tc.shown == "" && len(shown) != 0:
				t.Errorf("shown as a failure to start: %q", shown)
			case tc.shown != "" && (len(shown) != 1 || !strings.Contains(shown[0], tc.shown)):
				t.Errorf("shown %q, want one message with %q", shown, tc.shown)
			case tc.shown != "" && strings.Count(stderr.String(), tc.shown) != 1:
				t.Errorf("stderr should say it once:\n%s", stderr.String())
			}
		})
	}
}
