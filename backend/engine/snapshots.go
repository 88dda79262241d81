package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"hyatlas/backend/memory"
	"hyatlas/backend/snapshot"
	"hyatlas/backend/store"
)

// snapshotStart is how long after the start the first scheduled snapshot
// is made.
const snapshotStart = time.Minute

// restoreDir is the working folder of a restore, inside the data dir; its
// marker.json says a restore began (see recoverRestore).
const restoreDir = ".restore"

// snapshots makes, restores and schedules snapshots; one at a time.
type snapshots struct {
	keeper *snapshot.Keeper
	mu     sync.Mutex
}

// newKeeper is the snapshot keeper of a data dir (the store comes later:
// a before-upgrade snapshot is made while the store opens).
func newKeeper(cfg dataDirs, copyDB func(context.Context, string) error) *snapshot.Keeper {
	return snapshot.New(snapshot.Config{Dir: cfg.snapshots, WorkspaceDir: cfg.workspace, AppVersion: Version,
		Schema: store.SchemaVersion(), CopyDB: copyDB, Inspect: inspectDB})
}

// dataDirs are the folders a restore touches.
type dataDirs struct{ data, workspace, snapshots string }

func inspectDB(ctx context.Context, path string) (snapshot.DBInfo, error) {
	fi, err := store.InspectFile(ctx, path)
	return snapshot.DBInfo{Schema: fi.Schema, Integrity: fi.Integrity, Layers: fi.Live, Retired: fi.Retired,
		GraphNodes: fi.GraphNodes, GraphEdges: fi.GraphEdges}, err
}

// beforeUpgrade snapshots a database about to be migrated.
func beforeUpgrade(dirs dataDirs, log interface{ Info(string, ...any) }) func(context.Context, int, int, func(string) error) error {
	return func(ctx context.Context, from, to int, copyTo func(string) error) error {
		// A copy an earlier start left (it was stopped while copying) is
		// this data folder's alone: the instance lock is held. (Versions
		// before schema 12 named it without the folder's name: such a copy
		// may be another folder's, upgrading now, and is left alone.)
		prefix := ".hyatlas-upgrade-" + filepath.Base(dirs.data) + "-"
		entries, _ := os.ReadDir(filepath.Dir(dirs.data))
		for _, e := range entries {
			if !e.IsDir() || !upgradeCopy(e.Name(), prefix) {
				continue
			}
			if err := os.RemoveAll(filepath.Join(filepath.Dir(dirs.data), e.Name())); err != nil {
				return fmt.Errorf("remove the copy an interrupted upgrade left: %w", err)
			}
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dirs.data), prefix)
		if err != nil {
			return fmt.Errorf("before-upgrade snapshot: %w", err)
		}
		defer os.RemoveAll(tmp)
		db := filepath.Join(tmp, store.FileName)
		if err := copyTo(db); err != nil {
			return fmt.Errorf("before-upgrade snapshot: %w", err)
		}
		info, err := newKeeper(dirs, nil).CreateFrom(ctx, db, dirs.workspace, snapshot.ReasonBeforeUpgrade)
		if err != nil {
			if what, fix := upgradeFix(err, dirs.snapshots); what != "" {
				return fmt.Errorf("the database needs an upgrade (schema %d to %d) and is snapshotted first, but the snapshot folder %s %s: nothing was migrated; %s, then start HyAtlas again (%w)",
					from, to, dirs.snapshots, what, fix, err)
			}
			return fmt.Errorf("before-upgrade snapshot (nothing was migrated): %w", err)
		}
		log.Info("snapshot taken before the schema upgrade", "id", info.ID, "from", from, "to", to)
		return nil
	}
}

// upgradeFix says what is wrong with the snapshot folder, and what to do,
// when a before-upgrade snapshot failed for want of room or rights ("" for
// other causes).
func upgradeFix(err error, dir string) (what, fix string) {
	var pe *fs.PathError
	switch {
	case store.DiskFull(err):
		return "is on a full disk", "free some space there"
	case (errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)) && errors.As(err, &pe) && (inDir(pe.Path, dir) || inDir(dir, pe.Path)):
		return "may not be written (read-only, or its permissions)", "make it writable"
	}
	return "", ""
}

// upgradeCopy reports whether name is prefix followed by os.MkdirTemp's
// digits.
func upgradeCopy(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// Snapshots lists the snapshots, newest first.
func (e *Engine) Snapshots() ([]snapshot.Info, error) { return e.snap.keeper.List() }

// CreateSnapshot makes a snapshot now.
func (e *Engine) CreateSnapshot(ctx context.Context, reason string) (snapshot.Info, error) {
	e.snap.mu.Lock()
	defer e.snap.mu.Unlock()
	info, err := e.snap.keeper.Create(ctx, reason)
	if err != nil {
		return info, e.snapshotDiskError(err)
	}
	e.publish("snapshot.created", info)
	return info, nil
}

// snapshotDiskError says in words when a snapshot failed for want of room,
// or because the snapshot folder may not be written (a disk remounted
// read-only, its permissions changed): a 503 naming the folder instead of
// an internal error. Other errors pass unchanged.
func (e *Engine) snapshotDiskError(err error) error {
	dir := e.Config.Snapshot.Dir
	var pe *fs.PathError
	switch {
	case store.DiskFull(err):
		return memory.StorageFault("the disk holding the snapshots (%s) is full: no snapshot was made; free some space and try again", dir)
	case (errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)) && errors.As(err, &pe) && (inDir(pe.Path, dir) || inDir(dir, pe.Path)):
		return memory.StorageFault("HyAtlas may not write the snapshot folder %s (read-only, or its permissions changed): no snapshot was made; make it writable and try again", dir)
	}
	return err
}

// inDir says whether path is dir or inside it (also asked the other way
// round: a folder above dir that MkdirAll could not make).
func inDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// VerifySnapshot checks a snapshot without changing anything.
func (e *Engine) VerifySnapshot(ctx context.Context, id string) (snapshot.Info, error) {
	info, err := e.snap.keeper.Verify(ctx, id)
	if store.DiskFull(err) {
		// It unpacks into the temporary folder: the snapshot is not at fault.
		return info, memory.StorageFault("the disk holding the temporary folder (%s) is full: the snapshot could not be checked; free some space and try again", os.TempDir())
	}
	return info, err
}

// DeleteSnapshot removes a snapshot.
func (e *Engine) DeleteSnapshot(id string) error {
	e.snap.mu.Lock()
	defer e.snap.mu.Unlock()
	return e.snap.keeper.Delete(id)
}

// RestoreReport says what a restore did.
type RestoreReport struct {
	Restored snapshot.Info `json:"restored"`
	// Before is the snapshot of the state the restore replaced: restoring
	// it undoes the restore.
	Before       snapshot.Info `json:"before"`
	WritesPaused int64         `json:"writes_paused_ms"`
	DurationMS   int64         `json:"duration_ms"`
	// Warning says what is not done yet (the undo snapshot could not be
	// kept: Before is empty); "" when all is.
	Warning string `json:"warning,omitempty"`
}

// restoreMarker is written before the database is swapped; its token is
// stamped into the database being restored.
type restoreMarker struct {
	Token    int64  `json:"token"`
	Snapshot string `json:"snapshot"`
}

// RestoreSnapshot makes the data what the snapshot holds, without
// stopping: it verifies the snapshot (one that fails, is of a newer
// schema or is not ours is refused and nothing changes), unpacks it,
// then, while writes wait, copies the current database aside and swaps the
// snapshot's in (one SQLite transaction), rebuilds the vector index and
// lets writes go on; then it puts the snapshot's workspace files in place
// and keeps the replaced state as a before-restore snapshot, queues the
// restored data's writes that wait for extraction and asks for a
// re-embedding pass (for rows whose vectors are another model's). A crash
// at any point leaves the old data or the new, never a mix (recoverRestore
// finishes or discards the work at the next start).
func (e *Engine) RestoreSnapshot(ctx context.Context, id string) (RestoreReport, error) {
	e.snap.mu.Lock()
	defer e.snap.mu.Unlock()
	start := time.Now()
	work := filepath.Join(e.Config.Paths.Data, restoreDir)
	if e.store.ReadOnly() {
		// Nothing can be unpacked or swapped, and the work folder of an
		// interrupted restore may hold the only copy of what it replaced.
		return RestoreReport{}, memory.StorageFault("HyAtlas may not write its data folder %s (read-only, or its permissions changed): nothing was restored; start HyAtlas again on a writable folder, then restore", e.Config.Paths.Data)
	}
	// A restore left unfinished (its database swapped, its workspace or
	// before-restore snapshot not yet done) is finished first, never
	// thrown away: its work folder holds the only copy of what it replaced.
	if err := e.recoverRestore(ctx); errors.Is(err, errReplacedNotKept) {
		return RestoreReport{}, memory.Errorf(memory.EUNAVAILABLE, "nothing changed: the state the last restore replaced is not kept as a snapshot yet (%v); give the snapshot folder %s room (or make it writable), then restore again", err, e.snap.keeper.Dir())
	} else if err != nil {
		return RestoreReport{}, fmt.Errorf("finish the restore before: %w", err)
	}
	// What is left of an earlier restore's work folder holds nothing to
	// keep now, and none of it may come into this one.
	if err := os.RemoveAll(work); err != nil {
		return RestoreReport{}, memory.Errorf(memory.EUNAVAILABLE, "nothing changed: the work folder of an earlier restore (%s) cannot be removed (%v): remove it by hand, then restore again", work, err)
	}
	fail := func(err error) (RestoreReport, error) {
		_ = os.RemoveAll(work)
		switch {
		case store.DiskFull(err):
			return RestoreReport{}, memory.StorageFault("the disk holding HyAtlas's data is full: nothing was restored; free some space and try again")
		case errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission):
			return RestoreReport{}, memory.StorageFault("HyAtlas may not write its data folder %s (read-only, or its permissions changed): nothing was restored", e.Config.Paths.Data)
		}
		return RestoreReport{}, err
	}
	e.publish("snapshot.restore", map[string]any{"id": id, "phase": "verifying"})
	info, err := e.snap.keeper.Extract(ctx, id, filepath.Join(work, "new"))
	if err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(filepath.Join(work, "new", "workspace"), 0o700); err != nil {
		return fail(err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	m := restoreMarker{Token: int64(binary.LittleEndian.Uint64(b[:]) >> 1), Snapshot: id}
	newDB := filepath.Join(work, "new", store.FileName)
	if err := store.MarkFile(ctx, newDB, restoreTokenKey, m.Token); err != nil {
		return fail(err)
	}
	if err := writeMarker(filepath.Join(work, "marker.json"), m); err != nil {
		return fail(err)
	}
	testPause("prepared")
	// Outside the pause: the new index, from the snapshot's database (which
	// its temporary store migrates if it is older), and a copy of the
	// current database, made while writes go on.
	index, embID, err := e.indexOf(ctx, filepath.Join(work, "new"))
	if err != nil {
		return fail(err)
	}
	beforeDB := filepath.Join(work, "before.db")
	seq := e.store.WriteSeq()
	if err := e.store.BackupTo(ctx, beforeDB); err != nil {
		return fail(err)
	}
	e.publish("snapshot.restore", map[string]any{"id": id, "phase": "swapping"})
	// The workspace folder is swapped in the same pause, with its writes
	// held too: a write acknowledged before the pause is in the
	// before-restore snapshot, one acknowledged after it is in the restored
	// data, for the files as for the memories.
	var paused time.Duration
	var wsErr error
	swapped := false
	err = e.Memory.ReplaceStore(ctx, func(ctx context.Context) error {
		return e.workspace.Hold(func() error {
			var err error
			if paused, err = e.store.RestoreFrom(ctx, newDB, beforeDB, seq); err != nil {
				return err
			}
			swapped = true
			wsErr = swapWorkspace(e.liveWorkspace(), work)
			return nil
		})
	}, index, embID, func(ctx context.Context) (memory.VectorIndex, error) {
		return buildIndex(ctx, e.store, e.Memory.Embedder(), e.log)
	})
	switch {
	case err != nil && swapped:
		// The snapshot's data is in; what it replaced waits in the work
		// folder for the next start (or restore), which finishes it.
		return RestoreReport{}, fmt.Errorf("the data of %s is in, but the vector index could not be rebuilt; quit and start HyAtlas again to finish the restore: %w", id, err)
	case err != nil:
		return fail(fmt.Errorf("restore %s (nothing changed): %w", id, err))
	}
	testPause("restored")
	// Rows the snapshot holds with another model's vectors (made before a
	// model switch) get this model's.
	e.kickReembed()
	if wsErr != nil {
		e.queueUnfinished()
		return RestoreReport{}, fmt.Errorf("the memories of %s are restored but its workspace files could not be put in place; the next start finishes it: %w", id, wsErr)
	}
	before, err := e.finishRestore(ctx, work)
	warning := ""
	switch {
	case errors.Is(err, errReplacedNotKept):
		// The restore is done; only its undo waits (see errReplacedNotKept).
		warning = fmt.Sprintf("restored, but the state it replaced could not be kept as a snapshot yet (%v): it waits beside the data and becomes the before-restore snapshot at the next start or restore, once the snapshot folder has room", err)
		e.log.Warn("snapshot restored; the state it replaced is not yet kept as a snapshot", "id", id, "err", err)
	case err != nil:
		return RestoreReport{}, err
	}
	e.queueUnfinished()
	rep := RestoreReport{Restored: info, Before: before, WritesPaused: paused.Milliseconds(), DurationMS: time.Since(start).Milliseconds(), Warning: warning}
	e.publish("snapshot.restored", rep)
	e.log.Info("snapshot restored", "id", id, "before", before.ID, "writes_paused", paused.Round(time.Millisecond))
	return rep, nil
}

const restoreTokenKey = "restore_token"

// indexOf opens the database in dir as a temporary store (migrating it
// when it is older) and builds its vector index with the embedder in use.
func (e *Engine) indexOf(ctx context.Context, dir string) (memory.VectorIndex, string, error) {
	st, err := store.Open(ctx, dir)
	if err != nil {
		return nil, "", fmt.Errorf("open the snapshot's database: %w", err)
	}
	emb := e.Memory.Embedder()
	index, err := buildIndex(ctx, st, emb, e.log)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, "", err
	}
	return index, emb.Info().ID, nil
}

// testPause blocks forever at a restore phase named by
// HYATLAS_TEST_RESTORE_PAUSE, after saying so on stderr: the crash tests
// kill the process there. It does nothing otherwise.
func testPause(phase string) {
	if os.Getenv("HYATLAS_TEST_RESTORE_PAUSE") != phase {
		return
	}
	fmt.Fprintf(os.Stderr, "restore paused at %s\n", phase)
	select {}
}

// snapshotLoop makes the scheduled snapshots every HYATLAS_SNAPSHOT_EVERY,
// keeping the newest HYATLAS_SNAPSHOT_KEEP scheduled ones. The schedule
// goes on across starts (see firstSnapshotIn).
func (e *Engine) snapshotLoop(ctx context.Context) {
	cfg := e.Config.Snapshot
	list, err := e.snap.keeper.List()
	if err != nil {
		e.log.Warn("could not read the snapshots; the first is due in a minute", "err", err)
	}
	timer := time.NewTimer(firstSnapshotIn(list, cfg.Every, time.Now()))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if info, err := e.CreateSnapshot(ctx, snapshot.ReasonSchedule); err != nil {
			if ctx.Err() == nil {
				e.log.Error("scheduled snapshot failed; the next one is due as usual", "err", err)
			}
		} else {
			e.log.Info("snapshot made", "id", info.ID, "bytes", info.Size)
		}
		if gone, err := e.snap.keeper.Prune(cfg.Keep); err != nil {
			e.log.Warn("could not prune old snapshots", "err", err)
		} else if len(gone) > 0 {
			e.log.Info("old scheduled snapshots deleted", "count", len(gone))
		}
		timer.Reset(cfg.Every)
	}
}

// firstSnapshotIn is how long after a start the first scheduled snapshot
// is due: one interval after the newest scheduled one, at least a minute
// after the start (a minute when there is none, or it is overdue), at most
// one interval (a clock set back). Taking one at every start instead would
// let a few restarts in a day prune away the week's daily snapshots.
func firstSnapshotIn(list []snapshot.Info, every time.Duration, now time.Time) time.Duration {
	var newest time.Time
	for _, s := range list {
		if s.Manifest != nil && s.Manifest.Reason == snapshot.ReasonSchedule && s.Manifest.CreatedAt.After(newest) {
			newest = s.Manifest.CreatedAt
		}
	}
	if newest.IsZero() {
		return snapshotStart
	}
	return min(max(newest.Add(every).Sub(now), snapshotStart), every)
}

// snapshotsAPI adapts the engine to the API.
type snapshotsAPI struct{ e *Engine }

func (a snapshotsAPI) List() (any, error) { return a.e.Snapshots() }
func (a snapshotsAPI) Create(ctx context.Context) (any, error) {
	return a.e.CreateSnapshot(ctx, snapshot.ReasonManual)
}
func (a snapshotsAPI) Verify(ctx context.Context, id string) (any, error) {
	return a.e.VerifySnapshot(ctx, id)
}
func (a snapshotsAPI) Restore(ctx context.Context, id string) (any, error) {
	return a.e.RestoreSnapshot(context.WithoutCancel(ctx), id)
}
func (a snapshotsAPI) Delete(id string) error { return a.e.DeleteSnapshot(id) }
