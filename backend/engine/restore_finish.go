package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"hyatlas/backend/snapshot"
)

// finishRestore completes a restore whose database is in: the snapshot's
// workspace replaces the live one (if it has not yet), and the replaced
// state (the database copied aside and the old workspace) becomes a
// before-restore snapshot. Every step can run again after a crash.
func (e *Engine) finishRestore(ctx context.Context, work string) (snapshot.Info, error) {
	oldWS := filepath.Join(work, "workspace.old")
	left := false // files of the workspace folder keepOthers could not move back
	if err := e.workspace.Hold(func() error {
		if err := swapWorkspace(e.liveWorkspace(), work); err != nil {
			return err
		}
		left = keepOthers(oldWS, e.liveWorkspace(), e.log)
		return nil
	}); err != nil {
		return snapshot.Info{}, err
	}
	var before snapshot.Info
	beforeDB := filepath.Join(work, "before.db")
	if exists(beforeDB) {
		var err error
		if before, err = e.snap.keeper.CreateFrom(ctx, beforeDB, oldWS, snapshot.ReasonBeforeRestore); err != nil {
			return before, fmt.Errorf("%w: %w", errReplacedNotKept, err)
		}
		if err := os.Remove(beforeDB); err != nil {
			return before, err
		}
	}
	// Without its marker the work folder is no restore to finish. Files of
	// the workspace folder that could not be moved back are kept aside
	// first, never removed with it.
	if err := os.Remove(filepath.Join(work, "marker.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return before, err
	}
	if left {
		keepLeftOthers(oldWS, e.Config.Paths.Data, time.Now(), e.log)
	}
	e.dropWork(work)
	return before, nil
}

// dropWork removes a restore's work folder that holds nothing to keep
// (its marker gone, or from a restore that never swapped); what cannot be
// removed is logged and left.
func (e *Engine) dropWork(work string) {
	if err := os.RemoveAll(work); err != nil {
		e.log.Warn("a restore's work folder could not be removed completely; what is left of it is not used", "folder", work, "err", err)
	}
}

// errReplacedNotKept: a restore is done, but the state it replaced could
// not yet be made a before-restore snapshot (a full or read-only snapshot
// folder). That state waits in the restore's work folder, and the next
// start or restore keeps it (finishRestore runs again). A start goes on
// meanwhile; a restore is refused, with nothing changed, until it is kept.
var errReplacedNotKept = errors.New("keep the replaced state")

func (e *Engine) liveWorkspace() string { return filepath.Join(e.Config.Paths.Data, "workspace") }

// recoverRestore finishes or discards a restore a crash interrupted: if
// the database holds the restore's token, the swap went in and the rest is
// finished; otherwise the old data is untouched and the work is dropped.
func (e *Engine) recoverRestore(ctx context.Context) error {
	work := filepath.Join(e.Config.Paths.Data, restoreDir)
	if e.store.ReadOnly() {
		// Nothing can be finished or cleared: the data is shown as it is.
		if exists(work) {
			e.log.Warn("a restore was interrupted; it is finished or undone when HyAtlas starts on a writable data folder")
		}
		return nil
	}
	b, err := os.ReadFile(filepath.Join(work, "marker.json"))
	if errors.Is(err, fs.ErrNotExist) {
		e.dropWork(work)
		return nil
	}
	if err != nil {
		// Never guessed: the work folder may hold the only copy of what
		// a restore replaced.
		return fmt.Errorf("read the restore marker: %w", err)
	}
	var m restoreMarker
	if err := json.Unmarshal(b, &m); err != nil {
		// Written and synced before the swap: one cut short means the
		// swap never began.
		e.log.Warn("an unreadable restore marker was dropped; the data is as it was", "err", err)
		e.dropWork(work)
		return nil
	}
	token, err := e.store.Counter(ctx, restoreTokenKey)
	if err != nil {
		return err
	}
	if token != m.Token {
		e.log.Warn("a restore was interrupted before the swap; the data is as it was", "snapshot", m.Snapshot)
		e.dropWork(work)
		return nil
	}
	before, err := e.finishRestore(ctx, work)
	if err == nil {
		e.log.Warn("a restore was interrupted after the swap and is now finished", "snapshot", m.Snapshot, "before", before.ID)
	}
	return err
}

func writeMarker(path string, m restoreMarker) error {
	b, _ := json.Marshal(m)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The marker's name, and its folder's, must outlive a power cut
		// too: without them a swapped restore would be taken as never
		// begun.
		syncFolder(filepath.Dir(path))
		syncFolder(filepath.Dir(filepath.Dir(path)))
	}
	return err
}

// syncFolder makes the names in dir durable, where the OS can (not on
// Windows, whose folders cannot be synced).
func syncFolder(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
