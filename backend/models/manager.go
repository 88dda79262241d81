// Package models installs, verifies, lists and removes the downloadable
// embedding models kept in a models directory (one sub-directory per model).
package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"hyatlas/backend/fslock"
	"hyatlas/backend/memory"
)

// partSuffix marks a download in progress; it is renamed into place only
// once its size and checksum verify.
const partSuffix = ".part"

// progressEvery is the minimum interval between two progress calls (phase
// changes and completion are always reported).
const progressEvery = 100 * time.Millisecond

// Manager manages the models of one directory. The zero value of the
// unexported fields is ready; use a *Manager (it holds a mutex).
type Manager struct {
	Dir     string       // models directory; each model lives in Dir/<name>
	BaseURL string       // catalog URLs are relative to it; "" means DefaultBaseURL
	Client  *http.Client // nil means http.DefaultClient
	Catalog []Model      // nil means DefaultCatalog()

	mu   sync.Mutex
	busy map[string]bool // models being installed or removed
}

// Status is a catalog model and its state on disk.
type Status struct {
	Model
	Installed bool   // every file present with the catalog size
	Size      int64  // bytes on disk in the model directory (.part files included)
	Path      string // the model directory
}

// Phase is the step a Progress reports.
type Phase string

// Progress phases.
const (
	PhaseDownload Phase = "download"
	PhaseVerify   Phase = "verify" // re-hashing a file already on disk
	PhaseDone     Phase = "done"
)

// Progress reports the state of one file of an install.
type Progress struct {
	Model string
	File  string
	Done  int64 // bytes downloaded (or hashed, in PhaseVerify)
	Total int64 // bytes expected; -1 when unknown
	Phase Phase
}

// List reports every catalog model, installed or not.
func (m *Manager) List() ([]Status, error) {
	if err := m.checkDir(); err != nil {
		return nil, err
	}
	var out []Status
	for _, md := range m.catalog() {
		dir := filepath.Join(m.Dir, md.Name)
		st := Status{Model: md, Installed: m.complete(md), Path: dir}
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("list models: %w", err)
		}
		for _, e := range entries {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
				st.Size += info.Size()
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// Path returns where file of model name lives and whether it is present with
// its catalog size. It returns ("", false) for an unknown model or file.
func (m *Manager) Path(name, file string) (string, bool) {
	md, err := m.lookup(name)
	if err != nil || m.Dir == "" {
		return "", false
	}
	for _, f := range md.Files {
		if f.Name == file {
			p := filepath.Join(m.Dir, md.Name, f.Name)
			return p, present(p, f.Size)
		}
	}
	return "", false
}

// Install downloads the files of model name that are not installed yet,
// resuming partial downloads. progress may be nil.
func (m *Manager) Install(ctx context.Context, name string, progress func(Progress)) error {
	md, err := m.lookup(name)
	if err != nil {
		return err
	}
	if err := m.checkDir(); err != nil {
		return err
	}
	for _, f := range md.Files {
		if f.SHA256 == "" {
			return memory.Errorf(memory.EUNAVAILABLE, "no pinned checksum for %s/%s: refusing to install an unverified download", md.Name, f.Name)
		}
	}
	unlock, err := m.lock(md.Name)
	if err != nil {
		return err
	}
	defer unlock()
	dir := filepath.Join(m.Dir, md.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create model directory: %w", err)
	}
	rep := &reporter{fn: progress}
	for _, f := range md.Files {
		dest := filepath.Join(dir, f.Name)
		ok, err := m.installed(ctx, md.Name, f, dest, rep)
		if err != nil {
			return err
		}
		if !ok {
			if err := m.fetch(ctx, md.Name, f, dest, rep, false); err != nil {
				return err
			}
		}
		var size int64
		if info, err := os.Stat(dest); err == nil {
			size = info.Size()
		}
		rep.report(Progress{Model: md.Name, File: f.Name, Done: size, Total: size, Phase: PhaseDone}, true)
	}
	return nil
}

// installed reports whether dest already holds f. A file with the wrong
// size or checksum is deleted so that only verified files keep the name.
func (m *Manager) installed(ctx context.Context, model string, f File, dest string, rep *reporter) (bool, error) {
	info, err := os.Stat(dest)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check %s: %w", dest, err)
	}
	if info.Mode().IsRegular() && (f.Size <= 0 || info.Size() == f.Size) {
		total := info.Size()
		sum, err := hashFile(ctx, dest, func(done int64) {
			rep.report(Progress{Model: model, File: f.Name, Done: done, Total: total, Phase: PhaseVerify}, false)
		})
		if err != nil {
			return false, err
		}
		if strings.EqualFold(sum, f.SHA256) {
			return true, nil
		}
	}
	if err := os.Remove(dest); err != nil {
		return false, fmt.Errorf("remove stale %s: %w", dest, err)
	}
	return false, nil
}

// Verify re-hashes the installed files of model name against the catalog.
func (m *Manager) Verify(name string) error {
	md, err := m.lookup(name)
	if err != nil {
		return err
	}
	if err := m.checkDir(); err != nil {
		return err
	}
	for _, f := range md.Files {
		p := filepath.Join(m.Dir, md.Name, f.Name)
		info, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			return memory.Errorf(memory.ENOTFOUND, "model %s is not installed: %s is missing", md.Name, f.Name)
		}
		if err != nil {
			return fmt.Errorf("verify %s: %w", p, err)
		}
		if f.Size > 0 && info.Size() != f.Size {
			return memory.Errorf(memory.EUNAVAILABLE, "size mismatch for %s/%s: expected %d bytes, got %d", md.Name, f.Name, f.Size, info.Size())
		}
		if f.SHA256 == "" {
			return memory.Errorf(memory.EUNAVAILABLE, "no pinned checksum for %s/%s: cannot verify", md.Name, f.Name)
		}
		sum, err := hashFile(context.Background(), p, nil)
		if err != nil {
			return err
		}
		if !strings.EqualFold(sum, f.SHA256) {
			return memory.Errorf(memory.EUNAVAILABLE, "checksum mismatch for %s/%s: expected %s, got %s", md.Name, f.Name, f.SHA256, sum)
		}
	}
	return nil
}

// Remove deletes the directory of model name; removed says whether the model
// was installed. A model that is not installed is not an error (the leftovers
// of an unfinished download go all the same).
func (m *Manager) Remove(name string) (removed bool, err error) {
	md, err := m.lookup(name)
	if err != nil {
		return false, err
	}
	if err := m.checkDir(); err != nil {
		return false, err
	}
	if _, err := os.Lstat(m.Dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil // nothing was ever installed: make no folder to say so
	}
	unlock, err := m.lock(md.Name)
	if err != nil {
		return false, err
	}
	defer unlock()
	was := m.complete(md)
	if err := os.RemoveAll(filepath.Join(m.Dir, md.Name)); err != nil {
		return false, fmt.Errorf("remove model %s: %w", md.Name, err)
	}
	return was, nil
}

// complete reports whether every file of md is present with its catalog size.
func (m *Manager) complete(md Model) bool {
	for _, f := range md.Files {
		if !present(filepath.Join(m.Dir, md.Name, f.Name), f.Size) {
			return false
		}
	}
	return true
}

func (m *Manager) catalog() []Model {
	if m.Catalog == nil {
		return DefaultCatalog()
	}
	return m.Catalog
}

// lookup finds a catalog model and checks that its names are plain file
// names (they become paths under Dir).
func (m *Manager) lookup(name string) (Model, error) {
	var known []string
	for _, md := range m.catalog() {
		if md.Name != name {
			known = append(known, md.Name)
			continue
		}
		if !plainName(md.Name) {
			return Model{}, fmt.Errorf("catalog: bad model name %q", md.Name)
		}
		for _, f := range md.Files {
			if !plainName(f.Name) || strings.HasSuffix(f.Name, partSuffix) {
				return Model{}, fmt.Errorf("catalog: bad file name %q in model %s", f.Name, md.Name)
			}
		}
		return md, nil
	}
	return Model{}, memory.Errorf(memory.ENOTFOUND, "unknown model %q (known: %s)", name, strings.Join(known, ", "))
}

func plainName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`) && filepath.Base(s) == s
}

func (m *Manager) checkDir() error {
	if m.Dir == "" {
		return errors.New("models: no models directory configured")
	}
	return nil
}

// lock marks model busy; a second install or remove of it gets ECONFLICT.
func (m *Manager) lock(model string) (func(), error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.busy[model] {
		return nil, memory.Errorf(memory.ECONFLICT, "model %s is already being installed or removed", model)
	}
	// Another process (the app and a CLI) must not write the same files.
	if err := os.MkdirAll(m.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", m.Dir, err)
	}
	fl, err := fslock.Acquire(filepath.Join(m.Dir, model+".lock"))
	if errors.Is(err, fslock.ErrLocked) {
		return nil, memory.Errorf(memory.ECONFLICT, "model %s is being installed or removed by another HyAtlas process", model)
	}
	if err != nil {
		return nil, err
	}
	if m.busy == nil {
		m.busy = map[string]bool{}
	}
	m.busy[model] = true
	return func() {
		m.mu.Lock()
		delete(m.busy, model)
		m.mu.Unlock()
		_ = fl.Release()
	}, nil
}

// present reports whether path is a regular file of the given size (any
// size when size is unknown).
func present(path string, size int64) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && (size <= 0 || info.Size() == size)
}

// hashFile returns the hex SHA-256 of a file, reporting bytes hashed.
func hashFile(ctx context.Context, path string, progress func(done int64)) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 256<<10)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return "", cancelled(err)
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		done += int64(n)
		if progress != nil && n > 0 {
			progress(done)
		}
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", path, err)
		}
	}
}

// reporter throttles progress calls to one per progressEvery.
type reporter struct {
	fn   func(Progress)
	last time.Time
}

func (r *reporter) report(p Progress, force bool) {
	if r.fn == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(r.last) < progressEvery {
		return
	}
	r.last = now
	r.fn(p)
}

// cancelled wraps a context error: it keeps its code for the user and
// errors.Is(err, context.Canceled) for callers.
func cancelled(err error) error {
	return errors.Join(memory.Errorf(memory.EUNAVAILABLE, "install cancelled"), err)
}
