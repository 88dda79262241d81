package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLI_Snapshots: create, list, verify, restore and undo, delete, from
// the command line against a running server.
func TestCLI_Snapshots(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	if out, code := in.Run("snapshot", "list"); code != 0 || !strings.Contains(out, "No snapshots yet") {
		t.Fatalf("empty list: %d %s", code, out)
	}
	in.Run("add", "--user", "u1", "first note")
	id := createSnapshot(t, in.Run)
	in.Run("add", "--user", "u1", "second note")
	if out, code := in.Run("snapshot", "verify", id); code != 0 || !strings.Contains(out, "is sound") {
		t.Fatalf("verify: %d %s", code, out)
	}
	out, code := in.Run("snapshot", "restore", id)
	undo := regexp.MustCompile(`undo with: hyatlas snapshot restore (hyatlas-\S+)`).FindStringSubmatch(out)
	if code != 0 || undo == nil {
		t.Fatalf("restore: %d %s", code, out)
	}
	if n := listTotal(t, in.Run); n != 1 {
		t.Fatalf("%d memories after the restore, want 1", n)
	}
	if out, code := in.Run("snapshot", "restore", undo[1]); code != 0 {
		t.Fatalf("undo: %d %s", code, out)
	}
	if n := listTotal(t, in.Run); n != 2 {
		t.Fatalf("%d memories after the undo, want 2", n)
	}
	if out, code := in.Run("snapshot", "list"); code != 0 || !strings.Contains(out, "before-restore") || !strings.Contains(out, "manual") {
		t.Fatalf("list: %d %s", code, out)
	}
	if out, code := in.Run("snapshot", "delete", id); code != 0 || !strings.Contains(out, "deleted") {
		t.Fatalf("delete: %d %s", code, out)
	}
	for _, bad := range [][]string{{"snapshot"}, {"snapshot", "restore"}, {"snapshot", "list", "x"}, {"snapshot", "frobnicate"}} {
		if _, code := in.Run(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if out, code := in.Run("snapshot", "restore", id); code != 1 || !strings.Contains(out, "no snapshot") {
		t.Errorf("restore of a deleted snapshot: %d %s", code, out)
	}
}

func createSnapshot(t *testing.T, run func(...string) (string, int)) string {
	t.Helper()
	out, code := run("snapshot", "create")
	m := regexp.MustCompile(`snapshot (hyatlas-\S+) made`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("snapshot create: %d %s", code, out)
	}
	return m[1]
}

func listTotal(t *testing.T, run func(...string) (string, int)) int {
	t.Helper()
	out, code := run("list", "--user", "u1", "--json")
	var l struct {
		Total int `json:"total"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil {
		t.Fatalf("list: %d %s", code, out)
	}
	return l.Total
}

// TestSnapshot_KillDuringRestore kills the server with SIGKILL in the
// middle of a restore, before and after the database swap; after a start,
// the data is entirely the old state or entirely the snapshot's, plus the
// memories and workspace files written while the restore stood still.
func TestSnapshot_KillDuringRestore(t *testing.T) {
	for _, c := range []struct {
		phase string
		want  int // memories after the restart
	}{{"prepared", 3}, {"restored", 2}} {
		t.Run(c.phase, func(t *testing.T) {
			in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
			in.Start("serve")
			in.Run("add", "--user", "u1", "first note")
			if err := in.Client().Do(t.Context(), "PUT", "/api/v1/workspace/hermes/SOUL.md", map[string]string{"content": "old soul"}, nil); err != nil {
				t.Fatal(err)
			}
			id := createSnapshot(t, in.Run)
			in.Run("add", "--user", "u1", "second note")
			if err := in.Client().Do(t.Context(), "PUT", "/api/v1/workspace/hermes/SOUL.md", map[string]string{"content": "new soul"}, nil); err != nil {
				t.Fatal(err)
			}
			_ = in.Cmd.Process.Signal(syscall.SIGTERM)
			in.Wait(30 * time.Second)

			base := slices.Clone(in.Env)
			in.Env = append(in.Env, "HYATLAS_TEST_RESTORE_PAUSE="+c.phase)
			in.Start("serve")
			done := make(chan string, 1)
			go func() { out, _ := in.Run("snapshot", "restore", id); done <- out }()
			for deadline := time.Now().Add(30 * time.Second); !strings.Contains(in.Out.String(), "restore paused at "+c.phase); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the restore never reached %s:\n%s", c.phase, in.Out.String())
				}
			}
			// Writes go on at the pause, before the swap and after it; each
			// acknowledged one outlives the crash.
			in.Run("add", "--user", "u1", "written at the pause")
			cl := in.Client()
			if err := cl.Do(t.Context(), "PUT", "/api/v1/workspace/hermes/SOUL.md", map[string]string{"content": "soul written at the pause"}, nil); err != nil {
				t.Fatal(err)
			}
			if err := cl.Do(t.Context(), "POST", "/api/v1/tools/memory_note?agent_id=hermes", map[string]string{"content": "note written at the pause", "file": "MEMORY.md"}, nil); err != nil {
				t.Fatal(err)
			}
			if err := in.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = in.Cmd.Wait()
			<-done

			in.Env = base
			in.Start("serve")
			if n := listTotal(t, in.Run); n != c.want {
				t.Fatalf("%d memories after the crash and a start, want %d", n, c.want)
			}
			ws := filepath.Join(in.Home, "data", "workspace", "hermes")
			soul, err := os.ReadFile(filepath.Join(ws, "SOUL.md"))
			if err != nil || string(soul) != "soul written at the pause" {
				t.Errorf("SOUL.md = %q, %v; want the text written at the pause", soul, err)
			}
			if note, err := os.ReadFile(filepath.Join(ws, "MEMORY.md")); err != nil || !strings.Contains(string(note), "note written at the pause") {
				t.Errorf("MEMORY.md = %q, %v; want the note written at the pause", note, err)
			}
			if _, err := os.Stat(filepath.Join(in.Home, "data", ".restore")); !os.IsNotExist(err) {
				t.Errorf("the restore's work folder is left: %v", err)
			}
			out, _ := in.Run("snapshot", "list")
			if got := strings.Contains(out, "before-restore"); got != (c.phase == "restored") {
				t.Errorf("before-restore snapshot present = %v after a crash at %s:\n%s", got, c.phase, out)
			}
			if err := in.Client().Ready(t.Context()); err != nil {
				t.Errorf("not ready: %v", err)
			}
		})
	}
}

// TestAutostartSetting: launch at login writes and removes the user's XDG
// autostart entry for this binary.
func TestAutostartSetting(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	c := in.Client()
	var st struct{ Supported, Enabled bool }
	if err := c.Do(t.Context(), "GET", "/api/v1/settings/autostart", nil, &st); err != nil || !st.Supported || st.Enabled {
		t.Fatalf("before: %+v %v", st, err)
	}
	if err := c.Do(t.Context(), "PUT", "/api/v1/settings/autostart", map[string]bool{"enabled": true}, &st); err != nil || !st.Enabled {
		t.Fatalf("enable: %+v %v", st, err)
	}
	entry := filepath.Join(in.Home, ".config", "autostart", "hyatlas.desktop")
	b, err := os.ReadFile(entry)
	if err != nil || !strings.Contains(string(b), "Exec="+in.Binary) {
		t.Fatalf("entry: %s %v", b, err)
	}
	if err := c.Do(t.Context(), "PUT", "/api/v1/settings/autostart", map[string]any{"enabled": "yes"}, nil); err == nil {
		t.Fatal("a bad value was accepted")
	}
	if err := c.Do(t.Context(), "PUT", "/api/v1/settings/autostart", map[string]bool{"enabled": false}, &st); err != nil || st.Enabled {
		t.Fatalf("disable: %+v %v", st, err)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("the entry is still there: %v", err)
	}
}
