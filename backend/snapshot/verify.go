package snapshot

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"hyatlas/backend/memory"
)

// Verify checks a snapshot without changing anything: a readable zip with
// a HyAtlas manifest, a schema this build can read, every listed file
// present with its checksum and no file unlisted, SQLite's integrity check
// on the database inside, and the manifest's counts against that
// database. A snapshot that fails is an EINVALID error saying why.
func (k *Keeper) Verify(ctx context.Context, id string) (Info, error) {
	tmp, err := os.MkdirTemp("", "hyatlas-verify-")
	if err != nil {
		return Info{}, err
	}
	defer os.RemoveAll(tmp)
	return k.Extract(ctx, id, tmp)
}

// Extract verifies a snapshot (see Verify) while unpacking it into dir:
// dir/hyatlas.db and dir/workspace/<agent>/<file>.
func (k *Keeper) Extract(ctx context.Context, id, dir string) (Info, error) {
	if err := CheckID(id); err != nil {
		return Info{}, err
	}
	defer k.read(id)()
	path := k.path(id)
	st, err := k.stat(id)
	if err != nil {
		return Info{}, err
	}
	info := Info{ID: id, Size: st.Size()}
	bad := func(format string, args ...any) (Info, error) {
		return info, memory.Errorf(memory.EINVALID, "snapshot %s is refused: %s", id, fmt.Sprintf(format, args...))
	}
	m, err := readManifest(path)
	if err != nil {
		return bad("%v", err)
	}
	info.Manifest = &m
	if m.Schema > k.c.Schema {
		return bad("it was made by a newer HyAtlas (schema %d; this one reads up to %d)", m.Schema, k.c.Schema)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return bad("not a readable zip: %v", err)
	}
	defer zr.Close()
	seen := map[string]bool{}
	for _, f := range zr.File {
		if f.Name == manifestName {
			continue
		}
		want, listed := m.Files[f.Name]
		if !listed {
			return bad("it holds %s, which its manifest does not list", f.Name)
		}
		target, err := entryPath(dir, f.Name)
		if errors.Is(err, errNotWorkspaceFile) {
			target = "" // checked, not unpacked (see errNotWorkspaceFile)
		} else if err != nil {
			return bad("%v", err)
		}
		got, err := unpack(f, target)
		var we writeError
		if errors.As(err, &we) {
			// The disk it unpacks to is full or may not be written: the
			// snapshot is not at fault (the error keeps its cause).
			return info, fmt.Errorf("unpack snapshot %s: %w", id, we.err)
		}
		if err != nil {
			return bad("%s cannot be read: %v", f.Name, err)
		}
		if got != want {
			return bad("%s does not match its checksum", f.Name)
		}
		seen[f.Name] = true
	}
	for name := range m.Files {
		if !seen[name] {
			return bad("%s is missing", name)
		}
	}
	db, err := k.c.Inspect(ctx, filepath.Join(dir, dbName))
	if err != nil {
		return bad("its database cannot be read: %v", err)
	}
	if db.Integrity != "ok" {
		return bad("its database fails SQLite's integrity check: %s", db.Integrity)
	}
	if db.Schema != m.Schema || db.Retired != m.Retired || db.GraphNodes != m.GraphNodes || db.GraphEdges != m.GraphEdges ||
		!maps.Equal(db.Layers, m.Layers) {
		return bad("its database does not hold what its manifest counts")
	}
	return info, nil
}

// errNotWorkspaceFile is an entry under workspace/ that is no agent's
// workspace file: an earlier version kept every file of the workspace
// folder (an editor's backup, a .git folder). Such an entry is checked
// against its checksum and not unpacked, so the snapshot still restores;
// a restore leaves the live folder's other files as they are.
var errNotWorkspaceFile = errors.New("not a workspace file")

// entryPath maps a zip entry to where it unpacks: the database, or a
// workspace file of a valid agent; another entry under workspace/ is
// errNotWorkspaceFile, and anything else is refused.
func entryPath(dir, name string) (string, error) {
	if name == dbName {
		return filepath.Join(dir, dbName), nil
	}
	rest, ok := strings.CutPrefix(name, workspaceDir)
	if !ok {
		return "", fmt.Errorf("unexpected entry %q", name)
	}
	agent, file, ok := strings.Cut(rest, "/")
	if !ok || !memory.IsWorkspaceEntry(agent, file) {
		return "", errNotWorkspaceFile
	}
	return filepath.Join(dir, "workspace", agent, file), nil
}

// writeError is a failure to write an entry where it unpacks, not to read
// it from the snapshot.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }

// tracked remembers the error of its writer.
type tracked struct {
	w   io.Writer
	err error
}

func (t *tracked) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil {
		t.err = err
	}
	return n, err
}

// unpack writes an entry to target and returns its SHA-256; with target
// "" it only reads the entry, for its checksum. A failure to write target
// is a writeError.
func unpack(f *zip.File, target string) (string, error) {
	rc, err := f.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	if target == "" {
		h := sha256.New()
		_, err := io.Copy(h, rc)
		return hex.EncodeToString(h.Sum(nil)), err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return "", writeError{err}
	}
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return "", writeError{err}
	}
	h := sha256.New()
	w := &tracked{w: out}
	_, err = io.Copy(io.MultiWriter(w, h), rc)
	if err == nil {
		if err = out.Sync(); err != nil {
			w.err = err
		}
	}
	if cerr := out.Close(); err == nil && cerr != nil {
		err, w.err = cerr, cerr
	}
	if w.err != nil {
		err = writeError{w.err}
	}
	return hex.EncodeToString(h.Sum(nil)), err
}
