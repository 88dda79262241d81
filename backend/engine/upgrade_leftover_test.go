package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

type quietLog struct{}

func (quietLog) Info(string, ...any) {}

// TestBeforeUpgrade_RemovesTheCopyAnInterruptedUpgradeLeft: a start stopped
// while it copied the database for the before-upgrade snapshot leaves the
// copy beside the data folder; the next upgrade removes it (and only this
// data folder's), and leaves none of its own, even when it fails.
func TestBeforeUpgrade_RemovesTheCopyAnInterruptedUpgradeLeft(t *testing.T) {
	parent := t.TempDir()
	dirs := dataDirs{data: filepath.Join(parent, "hyatlas"), workspace: filepath.Join(parent, "hyatlas", "workspace"),
		snapshots: filepath.Join(parent, "hyatlas-snapshots")}
	left := filepath.Join(parent, ".hyatlas-upgrade-hyatlas-3732137208")
	legacy := filepath.Join(parent, ".hyatlas-upgrade-1234567")     // as versions before schema 12 named it
	other := filepath.Join(parent, ".hyatlas-upgrade-hyatlas-x-42") // another data folder's (hyatlas-x), upgrading now
	for _, d := range []string{dirs.data, left, legacy, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(left, "hyatlas.db"), make([]byte, 1<<16), 0o600); err != nil {
		t.Fatal(err)
	}
	copyFailed := errors.New("disk I/O error")
	err := beforeUpgrade(dirs, quietLog{})(context.Background(), 10, 12, func(string) error { return copyFailed })
	if !errors.Is(err, copyFailed) {
		t.Fatalf("err %v", err)
	}
	entries, _ := os.ReadDir(parent)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if _, err := os.Stat(legacy); err != nil {
		t.Errorf("a copy an older version names without its folder was removed: %v", names)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the copy an interrupted upgrade left is still there: %v", names)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another data folder's upgrade copy was removed: %v", names)
	}
	if len(names) != 3 {
		t.Errorf("beside the data folder: %v; want only hyatlas and the two other copies", names)
	}
}
