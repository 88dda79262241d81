// Package snapshot keeps snapshots of the data directory: one zip file per
// snapshot, hyatlas-<UTC time>.zip, holding a consistent copy of the
// database, the agents' workspace files and a manifest (app and schema
// versions, counts, the SHA-256 of every file, when and why it was made).
// A snapshot is written under a temporary name and renamed, so a crash
// never leaves a half snapshot under a real name. It never holds the LLM
// key or the API token: those live in the OS keyring and the config
// directory, not in the data directory.
package snapshot

import (
	"archive/zip"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"hyatlas/backend/memory"
)

// Format identifies a HyAtlas snapshot's manifest.
const Format = "hyatlas-snapshot"

// Reasons a snapshot is made.
const (
	ReasonSchedule      = "schedule"
	ReasonManual        = "manual"
	ReasonBeforeRestore = "before-restore"
	ReasonBeforeUpgrade = "before-upgrade"
)

// Names inside a snapshot.
const (
	dbName       = "hyatlas.db"
	manifestName = "manifest.json"
	workspaceDir = "workspace/"
)

// DBInfo is what a database file holds (the store's InspectFile).
type DBInfo struct {
	Schema     int                  `json:"schema_version"`
	Integrity  string               `json:"-"`
	Layers     map[memory.Layer]int `json:"layers"`
	Retired    int                  `json:"retired"`
	GraphNodes int                  `json:"graph_nodes"`
	GraphEdges int                  `json:"graph_edges"`
}

// Manifest describes a snapshot.
type Manifest struct {
	Format     string `json:"format"`
	AppVersion string `json:"app_version"`
	DBInfo
	CreatedAt time.Time         `json:"created_at"`
	Reason    string            `json:"reason"`
	Files     map[string]string `json:"files"` // name in the zip -> SHA-256 (hex)
}

// Info is one snapshot on disk.
type Info struct {
	ID       string    `json:"id"`
	Size     int64     `json:"size"`
	Manifest *Manifest `json:"manifest,omitempty"`
	Error    string    `json:"error,omitempty"` // why its manifest cannot be read
}

// Config is what the snapshot keeper needs.
type Config struct {
	Dir          string // where snapshots live
	WorkspaceDir string // the agents' workspace files
	AppVersion   string
	Schema       int                                                    // the schema version this build writes
	CopyDB       func(ctx context.Context, dst string) error            // a consistent copy of the live database
	Inspect      func(ctx context.Context, path string) (DBInfo, error) // a database file's schema, integrity and counts
	Now          func() time.Time
}

// Keeper makes, lists, verifies and deletes snapshots.
type Keeper struct {
	c       Config
	mu      sync.Mutex
	reading map[string]int // snapshots Extract reads now: Prune leaves them
}

// New returns a keeper; Dir is created on the first snapshot.
func New(c Config) *Keeper {
	if c.Now == nil {
		c.Now = time.Now
	}
	return &Keeper{c: c, reading: map[string]int{}}
}

// read marks the snapshot id as being read until done is called.
func (k *Keeper) read(id string) (done func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.reading[id]++
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.reading[id]--; k.reading[id] <= 0 {
			delete(k.reading, id)
		}
	}
}

func (k *Keeper) beingRead(id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.reading[id] > 0
}

// Dir is where the snapshots live.
func (k *Keeper) Dir() string { return k.c.Dir }

var idPattern = regexp.MustCompile(`^hyatlas-\d{8}T\d{6}\.\d{3}Z$`)

// CheckID refuses an id that is not a snapshot's name (no paths).
func CheckID(id string) error {
	if !idPattern.MatchString(id) {
		return memory.Errorf(memory.EINVALID, "%q is not a snapshot id (hyatlas-YYYYMMDDTHHMMSS.mmmZ)", id)
	}
	return nil
}

func (k *Keeper) path(id string) string { return filepath.Join(k.c.Dir, id+".zip") }

// Create snapshots the live database and workspace.
func (k *Keeper) Create(ctx context.Context, reason string) (Info, error) {
	if err := os.MkdirAll(k.c.Dir, 0o700); err != nil {
		return Info{}, fmt.Errorf("create the snapshot folder: %w", err)
	}
	tmp, err := os.MkdirTemp(k.c.Dir, ".making-")
	if err != nil {
		return Info{}, fmt.Errorf("snapshot: %w", err)
	}
	defer os.RemoveAll(tmp)
	db := filepath.Join(tmp, dbName)
	if err := k.c.CopyDB(ctx, db); err != nil {
		return Info{}, fmt.Errorf("snapshot: %w", err)
	}
	return k.CreateFrom(ctx, db, k.c.WorkspaceDir, reason)
}

// CreateFrom snapshots a database file that is not in use and a workspace
// folder (missing: none).
func (k *Keeper) CreateFrom(ctx context.Context, db, workspace, reason string) (Info, error) {
	info, err := k.c.Inspect(ctx, db)
	if err != nil {
		return Info{}, fmt.Errorf("snapshot: %w", err)
	}
	if err := os.MkdirAll(k.c.Dir, 0o700); err != nil {
		return Info{}, fmt.Errorf("create the snapshot folder: %w", err)
	}
	now := k.c.Now().UTC()
	id := "hyatlas-" + now.Format("20060102T150405.000Z")
	for n := 0; fileExists(k.path(id)); n++ { // two in one millisecond
		now = now.Add(time.Millisecond)
		id = "hyatlas-" + now.Format("20060102T150405.000Z")
	}
	m := Manifest{Format: Format, AppVersion: k.c.AppVersion, DBInfo: info, CreatedAt: now, Reason: reason, Files: map[string]string{}}
	part, err := os.CreateTemp(k.c.Dir, "."+id+".zip.*")
	if err != nil {
		return Info{}, fmt.Errorf("snapshot: %w", err)
	}
	defer os.Remove(part.Name()) // a no-op once renamed
	zw := zip.NewWriter(part)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	err = addFile(zw, dbName, db, m.Files)
	if err == nil {
		err = addWorkspace(zw, workspace, m.Files)
	}
	if err == nil {
		err = writeManifest(zw, m)
	}
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = part.Sync()
	}
	if cerr := part.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(part.Name(), k.path(id))
	}
	if err != nil {
		return Info{}, fmt.Errorf("write snapshot %s: %w", id, err)
	}
	syncDir(k.c.Dir)
	st, _ := os.Stat(k.path(id))
	return Info{ID: id, Size: st.Size(), Manifest: &m}, nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// addFile copies a file into the zip and records its checksum.
func addFile(zw *zip.Writer, name, path string, sums map[string]string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now()})
	if err != nil {
		return err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(w, h), f); err != nil {
		return err
	}
	sums[name] = hex.EncodeToString(h.Sum(nil))
	return nil
}

// addWorkspace adds the agents' workspace files under dir
// (<agent>/SOUL.md, MEMORY.md, USER.md) as workspace/<agent>/<file>: the
// entries a restore takes. Anything else in the folder (an editor's
// backup, a .git folder) is not HyAtlas's and is left out, so it can never
// make a snapshot unrestorable. A file that is a symbolic link is kept
// with what it points at.
func addWorkspace(zw *zip.Writer, dir string, sums map[string]string) error {
	if dir == "" {
		return nil
	}
	agents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, a := range agents {
		if !memory.IsAgentFolder(a.Name()) {
			continue
		}
		for _, f := range memory.WorkspaceFiles {
			p := filepath.Join(dir, a.Name(), string(f))
			st, err := os.Stat(p)
			switch {
			case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
				continue // no such file, or the agent's entry is not a folder
			case err != nil:
				return err
			case !st.Mode().IsRegular():
				continue
			}
			if err := addFile(zw, workspaceDir+a.Name()+"/"+string(f), p, sums); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeManifest(zw *zip.Writer, m Manifest) error {
	w, err := zw.Create(manifestName)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// List returns the snapshots, newest first. One whose manifest cannot be
// read is listed with the error.
func (k *Keeper) List() ([]Info, error) {
	entries, err := os.ReadDir(k.c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Info{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	out := []Info{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".zip")
		if !ok || CheckID(id) != nil {
			continue
		}
		st, err := k.stat(id)
		if err != nil {
			continue // a folder by that name, a link to nothing: no snapshot
		}
		info := Info{ID: id, Size: st.Size()}
		if m, err := readManifest(k.path(id)); err != nil {
			info.Error = err.Error()
		} else {
			info.Manifest = &m
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// readManifest reads a snapshot's manifest.
func readManifest(path string) (Manifest, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("not a readable zip: %w", err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != manifestName {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return Manifest{}, err
		}
		defer rc.Close()
		var m Manifest
		if err := json.NewDecoder(io.LimitReader(rc, 1<<20)).Decode(&m); err != nil || m.Format != Format {
			return Manifest{}, fmt.Errorf("no HyAtlas manifest: not a HyAtlas snapshot")
		}
		return m, nil
	}
	return Manifest{}, fmt.Errorf("no manifest: not a HyAtlas snapshot")
}

// stat is the snapshot id's file: a file, or a link to one (a snapshot
// moved to another disk and linked back); anything else is no snapshot,
// as List shows it.
func (k *Keeper) stat(id string) (fs.FileInfo, error) {
	st, err := os.Stat(k.path(id))
	if err == nil && !st.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err != nil {
		return nil, memory.Errorf(memory.ENOTFOUND, "no snapshot %s", id)
	}
	return st, nil
}

// Delete removes a snapshot (a link to one: the link).
func (k *Keeper) Delete(id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	if _, err := k.stat(id); err != nil {
		return err
	}
	err := os.Remove(k.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return memory.Errorf(memory.ENOTFOUND, "no snapshot %s", id)
	}
	return err
}

// Prune keeps the newest keep scheduled snapshots and deletes older
// scheduled ones; manual, before-restore and before-upgrade snapshots
// stay until deleted, and so does one being read (a restore or a verify
// reads it): the next Prune deletes it. It returns the ids it deleted.
//
// Ids are the clock's time when each was made. One dated after now was
// made before the clock was set back (it ran ahead, or was set back by
// mistake), so it is older than every snapshot dated now or before, and
// is pruned first: the snapshot just made is never the one deleted.
func (k *Keeper) Prune(keep int) ([]string, error) {
	list, err := k.List()
	if err != nil {
		return nil, err
	}
	later := "hyatlas-" + k.c.Now().UTC().Add(time.Second).Format("20060102T150405.000Z")
	sort.SliceStable(list, func(i, j int) bool {
		fi, fj := list[i].ID > later, list[j].ID > later
		return !fi && fj // List's order (newest id first) within each group
	})
	var gone []string
	n := 0
	for _, s := range list {
		if s.Manifest == nil || s.Manifest.Reason != ReasonSchedule {
			continue
		}
		if n++; n > keep && !k.beingRead(s.ID) {
			if err := k.Delete(s.ID); err != nil {
				return gone, err
			}
			gone = append(gone, s.ID)
		}
	}
	return gone, nil
}

// CleanPartial removes what a snapshot interrupted by a crash left behind
// (its working folder and its zip under a temporary name); finished
// snapshots are never touched.
func (k *Keeper) CleanPartial() error {
	entries, err := os.ReadDir(k.c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".making-") || strings.HasPrefix(e.Name(), ".hyatlas-") {
			if err := os.RemoveAll(filepath.Join(k.c.Dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
