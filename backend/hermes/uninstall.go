package hermes

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Uninstall removes the plugin from home and, when memory.provider is
// still hyatlas, puts back what it was before the install. The plugin's
// own files in home go too (removePluginData): its outbox holds the text
// of turns not yet sent, which must not outlive the connection.
func (in *Installer) Uninstall(home string) (Status, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	unlock, err := in.lockRecords()
	if err != nil {
		return Status{}, err
	}
	defer unlock()
	home, err = cleanHome(home)
	if err != nil {
		return Status{}, err
	}
	recs, err := in.records()
	if err != nil {
		return Status{}, err
	}
	rec, hadRecord := recs[home]
	cfg, err := readConfig(home)
	if err != nil {
		return Status{}, err
	}
	cur, curSet, err := MemoryProvider(cfg)
	if err != nil {
		return Status{}, err
	}
	if _, err := os.Stat(PluginDir(home)); errors.Is(err, fs.ErrNotExist) && !hadRecord && (!curSet || cur != PluginName) {
		removed, err := removePluginData(home)
		if err != nil {
			return Status{}, err
		}
		st, err := in.Status(home)
		st.Message = "HyAtlas is not installed in " + home + ": nothing to remove."
		if removed != "" {
			st.Message = "HyAtlas is not installed in " + home + "; deleted what an earlier install left there: " + removed + "."
		}
		return st, err
	}
	var msg string
	switch {
	case !curSet || cur != PluginName:
		msg = fmt.Sprintf("memory.provider is %q now, not %s: left as it is.", cur, PluginName)
	default:
		var edited []byte
		if hadRecord && rec.PreviousSet {
			edited, err = SetMemoryProvider(cfg, rec.PreviousProvider)
			msg = fmt.Sprintf("memory.provider is %q again.", rec.PreviousProvider)
		} else {
			edited, err = RemoveMemoryProvider(cfg)
			msg = "memory.provider removed: Hermes uses its built-in memory only."
		}
		if err != nil {
			return Status{}, err
		}
		if slices.Contains(rec.Created, "config.yaml") && isEmptyConfig(edited) {
			err = os.Remove(filepath.Join(home, "config.yaml"))
		} else {
			err = writeConfig(home, edited)
		}
		if err != nil {
			return Status{}, err
		}
	}
	if err := os.RemoveAll(PluginDir(home)); err != nil {
		return Status{}, fmt.Errorf("remove %s: %w", PluginDir(home), err)
	}
	removed, err := removePluginData(home)
	if err != nil {
		return Status{}, err
	}
	// What the install made and nothing else uses since: os.Remove takes
	// only an empty folder.
	for _, p := range []string{"plugins", "."} {
		if slices.Contains(rec.Created, p) {
			_ = os.Remove(filepath.Join(home, p))
		}
	}
	delete(recs, home)
	if err := in.saveRecords(recs); err != nil {
		return Status{}, err
	}
	st, err := in.Status(home)
	st.Message = "Removed " + PluginDir(home) + "; " + msg + " Your memories stay in HyAtlas."
	if removed != "" {
		st.Message = "Removed " + PluginDir(home) + " and deleted the plugin's files in " + home + ": " + removed + "; " +
			msg + " Your memories stay in HyAtlas."
	}
	return st, err
}

// DataDir is where the plugin keeps its own files in a Hermes home: the
// outbox (writes not yet sent, with the turns' text), the auto start's
// log and its stamp.
func DataDir(home string) string { return filepath.Join(home, PluginName) }

// pluginSettings is the plugin's settings file in a Hermes home; legacyLogs
// are where plugins before 1.0.5 wrote the auto start's log and stamp
// (in Hermes's own logs folder, which stays).
const pluginSettings = PluginName + ".json"

var legacyLogs = []string{filepath.Join("logs", "hyatlas.log"), filepath.Join("logs", "hyatlas.start")}

// removePluginData deletes the plugin's own files in home: DataDir (with
// the outbox), its settings file and the logs of older plugins. It says
// what it deleted ("" for nothing), counting the writes the outbox held
// unsent.
func removePluginData(home string) (string, error) {
	var said []string
	if fi, err := os.Stat(DataDir(home)); err == nil && fi.IsDir() {
		n := unsentWrites(filepath.Join(DataDir(home), "outbox"))
		if err := os.RemoveAll(DataDir(home)); err != nil {
			return "", fmt.Errorf("remove %s: %w", DataDir(home), err)
		}
		what := "its folder " + DataDir(home)
		switch {
		case n == 1:
			what += " (with 1 write not yet sent to HyAtlas, in its outbox)"
		case n > 1:
			what += fmt.Sprintf(" (with %d writes not yet sent to HyAtlas, in its outbox)", n)
		}
		said = append(said, what)
	}
	if err := os.Remove(filepath.Join(home, pluginSettings)); err == nil {
		said = append(said, "its settings ("+pluginSettings+")")
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("remove %s: %w", filepath.Join(home, pluginSettings), err)
	}
	old := false
	for _, p := range legacyLogs {
		if err := os.Remove(filepath.Join(home, p)); err == nil {
			old = true
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("remove %s: %w", filepath.Join(home, p), err)
		}
	}
	if old {
		said = append(said, "its auto start log in "+filepath.Join(home, "logs"))
	}
	return strings.Join(said, ", "), nil
}

// unsentWrites counts the writes an outbox folder holds that were not
// done: each file's lines {"n": seq, ...} less its {"done": seq}.
func unsentWrites(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	total := 0
	for _, e := range entries {
		if e.IsDir() || !strings.Contains(e.Name(), ".jsonl") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		queued, done := map[int64]bool{}, map[int64]bool{}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			var rec struct {
				N    *int64 `json:"n"`
				Done *int64 `json:"done"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				continue
			}
			if rec.N != nil {
				queued[*rec.N] = true
			}
			if rec.Done != nil {
				done[*rec.Done] = true
			}
		}
		_ = f.Close()
		for n := range queued {
			if !done[n] {
				total++
			}
		}
	}
	return total
}
