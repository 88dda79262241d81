//go:build linux || darwin || freebsd

package store

import "golang.org/x/sys/unix"

// freeBytes is the space a non-root user may still write on the file
// system holding dir; false when it cannot be told.
func freeBytes(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
