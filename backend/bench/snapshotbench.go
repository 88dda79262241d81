package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"hyatlas/backend/engine"
	"hyatlas/backend/memory"
	"hyatlas/backend/snapshot"
)

// SnapshotOptions configure `hyatlas bench snapshot`.
type SnapshotOptions struct {
	Memories int    // 0 means 100,000
	Embed    string // "glove", "hash", or "" (GloVe when ONNX Runtime loads, else hash)
	JSON     bool
	Out      io.Writer
	Progress io.Writer
}

// SnapshotReport is the outcome of a snapshot run. Times are seconds.
type SnapshotReport struct {
	Machine  string `json:"machine"`
	Embedder string `json:"embedder"`
	Memories int    `json:"memories"`
	// Snapshot is making one snapshot while a writer adds memories;
	// SlowestWrite is the slowest of those adds (writes never pause for
	// a snapshot: the copy reads one snapshot of the database).
	Snapshot      float64 `json:"snapshot_s"`
	SnapshotBytes int64   `json:"snapshot_bytes"`
	SlowestWrite  float64 `json:"slowest_write_during_snapshot_s"`
	// Restore is a whole restore (verify, unpack, swap, index rebuild,
	// before-restore snapshot); Paused is how long writes waited in it.
	Restore float64 `json:"restore_s"`
	Paused  float64 `json:"writes_paused_s"`
}

// Snapshot targets (issue 8).
const (
	snapshotTargetS = 15
	restoreTargetS  = 30
	pausedTargetS   = 1
)

// RunSnapshot seeds a store, snapshots it while a writer keeps adding, and
// restores the snapshot, checking the memories come back.
func RunSnapshot(ctx context.Context, o SnapshotOptions) error {
	n := o.Memories
	if n <= 0 {
		n = 100_000
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	st, err := seedStore(ctx, "snapshot", o.Embed, n, progress)
	if err != nil {
		return err
	}
	defer os.RemoveAll(st.tmp)
	dir, kind := st.dir, st.kind
	rep := SnapshotReport{Machine: machine(), Embedder: st.embedder, Memories: n}
	err = withEngine(ctx, dir, kind, func(eng *engine.Engine) error {
		stop := make(chan struct{})
		var slowest atomic.Int64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // a writer that keeps adding while the snapshot is made
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				t0 := time.Now()
				if _, err := eng.Memory.Add(ctx, memory.AddInput{Text: fmt.Sprintf("written during the snapshot %d", i)}); err != nil {
					return
				}
				if d := int64(time.Since(t0)); d > slowest.Load() {
					slowest.Store(d)
				}
			}
		}()
		start := time.Now()
		info, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
		rep.Snapshot = time.Since(start).Seconds()
		close(stop)
		wg.Wait()
		if err != nil {
			return err
		}
		rep.SnapshotBytes, rep.SlowestWrite = info.Size, time.Duration(slowest.Load()).Seconds()
		fmt.Fprintf(progress, "snapshot: restoring ...\n")
		start = time.Now()
		r, err := eng.RestoreSnapshot(ctx, info.ID)
		if err != nil {
			return err
		}
		rep.Restore, rep.Paused = time.Since(start).Seconds(), float64(r.WritesPaused)/1000
		st, err := eng.Memory.Stats(ctx)
		if err != nil {
			return err
		}
		if live := st.Live[memory.LayerRaw]; live != info.Manifest.Layers[memory.LayerRaw] || st.IndexLen != live {
			return fmt.Errorf("after the restore: %d live, %d indexed, the snapshot holds %d", live, st.IndexLen, info.Manifest.Layers[memory.LayerRaw])
		}
		return nil
	})
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.Out, rep)
	}
	printSnapshotBench(o.Out, rep)
	return nil
}

func printSnapshotBench(w io.Writer, r SnapshotReport) {
	fmt.Fprintf(w, "machine: %s\nembedder: %s\nmemories: %d\n\n", r.Machine, r.Embedder, r.Memories)
	pass := func(s, target float64) string {
		if s <= target {
			return "ok"
		}
		return "MISSED"
	}
	fmt.Fprintf(w, "%-48s %9s %9s %7s\n", "measure", "seconds", "target", "result")
	fmt.Fprintf(w, "%-48s %9.2f %9d %7s\n", fmt.Sprintf("snapshot (%.0f MB)", float64(r.SnapshotBytes)/1e6), r.Snapshot, snapshotTargetS, pass(r.Snapshot, snapshotTargetS))
	fmt.Fprintf(w, "%-48s %9.3f %9s %7s\n", "  slowest write while it was made", r.SlowestWrite, "", "")
	fmt.Fprintf(w, "%-48s %9.2f %9d %7s\n", "restore (verify, swap, index, before-restore)", r.Restore, restoreTargetS, pass(r.Restore, restoreTargetS))
	fmt.Fprintf(w, "%-48s %9.2f %9d %7s\n", "  writes paused during the restore", r.Paused, pausedTargetS, pass(r.Paused, pausedTargetS))
}
