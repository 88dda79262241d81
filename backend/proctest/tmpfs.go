package proctest

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// Tmpfs mounts a tmpfs of size (as mount takes it: "4M", "8k") at dir,
// making dir first, and unmounts it at the end of the test: a real small
// disk for the full-disk and read-only tests. It needs root, which CI has;
// elsewhere, or where no tmpfs can be mounted, the test is skipped.
func Tmpfs(t testing.TB, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		// Registered before an instance starts, so it runs after the
		// instance's own cleanup killed it (a busy mount waits a little).
		for range 50 {
			if exec.Command("umount", dir).Run() == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("could not unmount %s", dir)
	})
}

// Remount makes the tmpfs at dir read-only (as the kernel does to a disk
// after errors), or writable again.
func Remount(t testing.TB, dir string, readOnly bool) {
	t.Helper()
	mode := "remount,rw"
	if readOnly {
		mode = "remount,ro"
	}
	if out, err := exec.Command("mount", "-o", mode, dir).CombinedOutput(); err != nil {
		t.Fatalf("mount -o %s %s: %v %s", mode, dir, err, out)
	}
}
