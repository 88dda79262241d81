package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
// of the folder as it was. An entry the live folder has by now is left
// where it is (it goes with the work folder). It runs again after a
// crash: what was moved is no longer in old.
func keepOthers(old, live string) error {
	agents, err := os.ReadDir(old)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("keep the workspace folder's other files: %w", err)
	}
	move := func(rel string) error {
		dst := filepath.Join(live, rel)
		if _, err := os.Lstat(dst); err == nil {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.Rename(filepath.Join(old, rel), dst)
	}
	for _, a := range agents {
		if !a.IsDir() || !isAgentFolder(a.Name()) {
			if err := move(a.Name()); err != nil {
				return fmt.Errorf("keep the workspace folder's other files: %w", err)
			}
			continue
		}
		files, err := os.ReadDir(filepath.Join(old, a.Name()))
		if err != nil {
			return fmt.Errorf("keep the workspace folder's other files: %w", err)
		}
		for _, f := range files {
			if memory.IsWorkspaceEntry(a.Name(), f.Name()) {
				continue
			}
			if err := move(filepath.Join(a.Name(), f.Name())); err != nil {
				return fmt.Errorf("keep the workspace folder's other files: %w", err)
			}
		}
	}
	return nil
}

// isAgentFolder says whether name is an agent's folder name, as the
// workspace spells it.
func isAgentFolder(name string) bool {
	a, err := memory.ParseAgent(name)
	return err == nil && a == name
}
