// Package atomicfile replaces a file so that a reader, or a crash, sees
// either the old content or the new, never part of it.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// Write writes data to a temporary file in path's directory with the
// given mode, syncs it, renames it over path and syncs the directory (so
// the rename survives a power cut). The directory must exist.
func Write(path string, data []byte, mode os.FileMode) error {
	return WriteFrom(path, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFrom is Write with the content streamed by fill, for content too
// large to hold (an export). When fill fails, path is left as it was and
// its error is returned as is. A path that is a symbolic link stays one:
// the file it points to is what is replaced.
func WriteFrom(path string, mode os.FileMode, fill func(io.Writer) error) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if link, lerr := os.Readlink(path); lerr == nil {
		// A link to a file not made yet: the file is made where it points.
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+tempStem(filepath.Base(path))+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing to remove
	if err := fill(tmp); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := errors.Join(tmp.Chmod(mode), tmp.Sync(), tmp.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// maxTempStem bounds the part of a file's name its temporary file takes:
// with the dot before it and the random suffix after it, the temporary
// name stays within the 255 bytes a file name may have, so a name that
// fits (a 250-byte one) can be written.
const maxTempStem = 200

// tempStem is name, cut to maxTempStem bytes at a character boundary.
func tempStem(name string) string {
	if len(name) <= maxTempStem {
		return name
	}
	cut := maxTempStem
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut]
}
