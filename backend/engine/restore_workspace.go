package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"hyatlas/backend/memory"
)

// swapWorkspace puts the snapshot's workspace folder (work/new/workspace)
// where the live one is, moving the live one to work/workspace.old for the
// before-restore snapshot. It runs with the workspace's writes held, and
// again after a crash (a step already done is skipped). A live folder that
// came back after the old one was moved out holds files written after the
// swap began (an older version did not hold the writes): they are newer
// than the snapshot's and are kept over them.
func swapWorkspace(live, work string) error {
	newWS, oldWS := filepath.Join(work, "new", "workspace"), filepath.Join(work, "workspace.old")
	if !exists(newWS) {
		return nil
	}
	if exists(live) {
		var err error
		if !exists(oldWS) {
			err = os.Rename(live, oldWS)
		} else if err = moveFilesInto(live, newWS); err == nil {
			err = os.RemoveAll(live)
		}
		if err != nil {
			return fmt.Errorf("restore the workspace: %w", err)
		}
	}
	if err := os.Rename(newWS, live); err != nil {
		return fmt.Errorf("restore the workspace: %w", err)
	}
	return nil
}

// moveFilesInto moves every file under from to the same place under to,
// replacing what is there.
func moveFilesInto(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.Rename(p, dst)
	})
}

// keepOthers moves back into the live workspace folder what the replaced
// one (old) held that is not an agent's workspace file: an editor's
// backup, notes, a .git folder. A snapshot keeps and restores only the
// workspace files (memory.IsWorkspaceEntry), so a restore leaves the rest
// of the folder as it was. An entry the live folder has by now (an editor
// made it again) is kept beside it, as NAME.before-restore. It is best
// effort: these files are not HyAtlas's, so one that cannot be moved (a
// permission, an immutable file, a name taken twice) is logged and left
// in old, and left says so: the caller then keeps old (keepLeftOthers),
// never deletes it, and never fails the restore for it. It runs again
// after a crash: what was moved is no longer in old.
func keepOthers(old, live string, log *slog.Logger) (left bool) {
	agents, err := os.ReadDir(old)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("the workspace folder's other files could not be read; they are not moved back", "folder", old, "err", err)
			return true
		}
		return false
	}
	move := func(rel string) {
		dst := filepath.Join(live, rel)
		if present(dst) {
			dst += ".before-restore"
		}
		err := errors.New("its name is taken")
		if !present(dst) {
			if err = os.MkdirAll(filepath.Dir(dst), 0o700); err == nil {
				err = os.Rename(filepath.Join(old, rel), dst)
			}
		}
		if err != nil {
			log.Warn("a file of the workspace folder could not be moved back after the restore", "file", rel, "err", err)
			left = true
		}
	}
	for _, a := range agents {
		if !a.IsDir() || !memory.IsAgentFolder(a.Name()) {
			move(a.Name())
			continue
		}
		files, err := os.ReadDir(filepath.Join(old, a.Name()))
		if err != nil {
			log.Warn("an agent's other files could not be read; they are not moved back", "agent", a.Name(), "err", err)
			left = true
			continue
		}
		for _, f := range files {
			if !memory.IsWorkspaceEntry(a.Name(), f.Name()) {
				move(filepath.Join(a.Name(), f.Name()))
			}
		}
	}
	return left
}

// keepLeftOthers moves the replaced workspace folder (old), holding files
// keepOthers could not move back, beside the data folder's workspace as
// workspace.kept-<time>, out of the restore's work folder, which is then
// removed: those files are never deleted, and nothing of them is in the
// way of the next restore.
func keepLeftOthers(old, data string, at time.Time, log *slog.Logger) {
	dst := filepath.Join(data, "workspace.kept-"+at.UTC().Format("20060102T150405.000Z"))
	if err := os.Rename(old, dst); err != nil {
		log.Warn("the workspace folder's files that could not be moved back stay in the restore's work folder", "folder", old, "err", err)
		return
	}
	log.Warn("files of the workspace folder that could not be moved back after the restore are kept aside", "folder", dst)
}

// present says whether p names anything, a symbolic link too (even one
// whose target is gone: renaming over it would replace it).
func present(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
