// Package workspace keeps the agents' workspace files (SOUL.md, MEMORY.md,
// USER.md) on disk: <root>/<agent>/<file>, written atomically (a temporary
// file in the same directory, synced, then renamed over the old one), with
// an ETag per version so a concurrent edit is detected.
package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"hyatlas/backend/atomicfile"
	"hyatlas/backend/memory"
)

// Dir is a workspace root. It is safe for concurrent use; writes are
// serialised, so a read-modify-write (Append, Write with If-Match) is
// atomic within the process.
type Dir struct {
	root string
	mu   sync.Mutex
}

var _ memory.Workspace = (*Dir)(nil)

// New returns the workspace under root (created on the first write).
func New(root string) *Dir { return &Dir{root: root} }

// Hold runs fn with the workspace's writes held: no file is written while
// it runs, and writes that arrive meanwhile wait and then go into whatever
// folder is at root afterwards. A snapshot restore swaps the folder in it.
func (d *Dir) Hold(fn func() error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return fn()
}

// ETag is a version tag of content: a quoted hash prefix.
func ETag(content string) string {
	sum := sha256.Sum256([]byte(content))
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

func (d *Dir) path(agent string, f memory.WorkspaceFile) string {
	return filepath.Join(d.root, agent, string(f))
}

// Read reads a file; one never written is empty, with Exists false.
func (d *Dir) Read(_ context.Context, agent string, f memory.WorkspaceFile) (memory.WorkspaceDoc, error) {
	return d.read(agent, f)
}

func (d *Dir) read(agent string, f memory.WorkspaceFile) (memory.WorkspaceDoc, error) {
	doc := memory.WorkspaceDoc{Agent: agent, File: f}
	p := d.path(agent, f)
	b, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		doc.ETag = ETag("")
		return doc, nil
	case err != nil:
		if o := d.obstacle(agent, f); o != nil {
			return doc, o
		}
		return doc, fmt.Errorf("read %s of %s: %w", f, agent, err)
	}
	doc.Content, doc.ETag, doc.Exists = string(b), ETag(string(b)), true
	if st, err := os.Stat(p); err == nil {
		doc.ModifiedAt = st.ModTime().UTC()
	}
	return doc, nil
}

// List returns every file that exists, by agent then file name.
func (d *Dir) List(_ context.Context) ([]memory.WorkspaceDoc, error) {
	agents, err := os.ReadDir(d.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the workspace: %w", err)
	}
	var out []memory.WorkspaceDoc
	for _, a := range agents {
		if !memory.IsAgentFolder(a.Name()) { // " meepa" is not meepa's
			continue
		}
		if st, err := os.Stat(filepath.Join(d.root, a.Name())); err != nil || !st.IsDir() {
			continue // a file, or a link to nothing; a link to a folder is read through
		}
		for _, f := range []memory.WorkspaceFile{memory.FileMemory, memory.FileSoul, memory.FileUser} {
			doc, err := d.read(a.Name(), f)
			if memory.ErrorCode(err) == memory.ECONFLICT {
				continue // a folder by the name: no file to list
			}
			if err != nil {
				return nil, err
			}
			if doc.Exists {
				out = append(out, doc)
			}
		}
	}
	return out, nil
}

// Write replaces a file; with ifMatch set it must be the current ETag
// (or "*": the file must exist).
func (d *Dir) Write(_ context.Context, agent string, f memory.WorkspaceFile, content, ifMatch string) (memory.WorkspaceDoc, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if ifMatch != "" {
		cur, err := d.read(agent, f)
		if err != nil {
			return cur, err
		}
		if ifMatch == "*" { // HTTP's "whatever version exists"
			if !cur.Exists {
				return cur, memory.Errorf(memory.ESTALE, "%s of %s does not exist, and If-Match: * writes only over a file that does", f, agent)
			}
		} else if strings.Trim(strings.TrimPrefix(ifMatch, "W/"), `"`) != strings.Trim(cur.ETag, `"`) {
			return cur, memory.Errorf(memory.ESTALE, "%s of %s changed since it was read (it is now version %s): read it again and redo the edit", f, agent, cur.ETag)
		}
	}
	return d.write(agent, f, content)
}

// Remove deletes a file whose ETag is still ifMatch; one changed since,
// or gone, is left as it is.
func (d *Dir) Remove(_ context.Context, agent string, f memory.WorkspaceFile, ifMatch string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	cur, err := d.read(agent, f)
	if memory.ErrorCode(err) == memory.ECONFLICT {
		return nil // what is there is not a file this wrote
	}
	if err != nil || !cur.Exists || cur.ETag != ifMatch {
		return err
	}
	if err := os.Remove(d.path(agent, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s of %s: %w", f, agent, err)
	}
	return nil
}

// Append adds text at the end of a file, separated by a blank line.
func (d *Dir) Append(_ context.Context, agent string, f memory.WorkspaceFile, text string) (memory.WorkspaceDoc, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cur, err := d.read(agent, f)
	if err != nil {
		return cur, err
	}
	content := strings.TrimRight(cur.Content, "\n")
	if content != "" {
		content += "\n\n"
	}
	content += strings.TrimRight(text, "\n") + "\n"
	if len(content) > memory.MaxWorkspaceBytes {
		return cur, memory.Errorf(memory.EINVALID, "%s of %s would exceed %d KiB; tidy it first", f, agent, memory.MaxWorkspaceBytes>>10)
	}
	return d.write(agent, f, content)
}

// write replaces the file atomically and returns its new version.
func (d *Dir) write(agent string, f memory.WorkspaceFile, content string) (memory.WorkspaceDoc, error) {
	dir := filepath.Join(d.root, agent)
	what := fmt.Sprintf("%s of %s", f, agent)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		if o := d.obstacle(agent, f); o != nil {
			return memory.WorkspaceDoc{}, o
		}
		return memory.WorkspaceDoc{}, fmt.Errorf("create the workspace of %s: %w", agent, memory.FileStorageFault(what, err))
	}
	if err := atomicfile.Write(d.path(agent, f), []byte(content), 0o600); err != nil {
		if o := d.obstacle(agent, f); o != nil {
			return memory.WorkspaceDoc{}, o
		}
		return memory.WorkspaceDoc{}, fmt.Errorf("write %s: %w", what, memory.FileStorageFault(what, err))
	}
	return memory.WorkspaceDoc{Agent: agent, File: f, Content: content, ETag: ETag(content), Exists: true,
		ModifiedAt: time.Now().UTC()}, nil
}

// obstacle says what stands where an agent's file belongs when it is not
// a file (nil when nothing does, or a file does): a file where the
// agent's folder goes, or a folder by the file's name. Put there by hand,
// it is not HyAtlas's to move.
func (d *Dir) obstacle(agent string, f memory.WorkspaceFile) error {
	dir := filepath.Join(d.root, agent)
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return memory.Errorf(memory.ECONFLICT, "%s of %s cannot be read or written: %s is a file, not the agent's folder; move it out of the way", f, agent, dir)
	}
	if st, err := os.Stat(d.path(agent, f)); err == nil && st.IsDir() {
		return memory.Errorf(memory.ECONFLICT, "%s of %s cannot be read or written: %s is a folder, not a file; move it out of the way", f, agent, d.path(agent, f))
	}
	return nil
}
