package engine

import (
	"archive/zip"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
	"hyatlas/backend/snapshot"
	"hyatlas/backend/store"
)

// openSnapEngine opens an engine on a fresh data dir (lite, the lexical
// embedder) and closes it at cleanup.
func openSnapEngine(t *testing.T) *Engine {
	t.Helper()
	eng, err := Open(context.Background(), testConfig(t), quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

// state is everything a restore must bring back.
type state struct {
	Rows      map[string]memory.Memory
	Relations int
	Soul      string
	Hits      []string
}

func stateOf(t *testing.T, eng *Engine) state {
	t.Helper()
	ctx := context.Background()
	res, err := eng.Memory.List(ctx, memory.ListInput{IncludeRaw: true, IncludeRetired: true, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	st := state{Rows: map[string]memory.Memory{}}
	for _, m := range res.Memories {
		st.Rows[m.ID] = m
	}
	_, st.Relations, err = eng.Memory.GraphCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, err := eng.Memory.ReadWorkspace(ctx, "hermes", "SOUL.md")
	if err != nil {
		t.Fatal(err)
	}
	st.Soul = d.Content
	hits, err := eng.Memory.Search(ctx, memory.SearchInput{Query: "postgres database", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits.Hits {
		st.Hits = append(st.Hits, h.Memory.ID)
	}
	return st
}

func TestSnapshot_RestoreRoundTripAndUndo(t *testing.T) {
	ctx := context.Background()
	eng := openSnapEngine(t)
	a, err := eng.Memory.Add(ctx, memory.AddInput{Text: "Foxtrot runs on Postgres 16", Owner: memory.Owner{UserID: "u1"}})
	if err != nil {
		t.Fatal(err)
	}
	strong := 0.9
	pref, err := eng.Memory.Remember(ctx, memory.RememberInput{Content: "Prefers Postgres over MySQL", Strength: &strong, Owner: memory.Owner{UserID: "u1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Memory.LearnRelation(ctx, memory.RelationInput{Owner: memory.Owner{UserID: "u1"}, From: "Foxtrot", To: "Postgres",
		Relation: "uses", Turns: []string{a.Memory.ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Memory.WriteWorkspace(ctx, "hermes", "SOUL.md", "You are Hermes.\n", ""); err != nil {
		t.Fatal(err)
	}
	snap, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	if m := snap.Manifest; m.Layers[memory.LayerRaw] != 1 || m.Layers[memory.LayerFact] != 1 || m.GraphEdges != 1 || len(m.Files) != 2 {
		t.Fatalf("manifest: %+v", m)
	}
	want := stateOf(t, eng)

	// Change everything: a new memory, a strength, the graph, the workspace.
	if _, err := eng.Memory.Add(ctx, memory.AddInput{Text: "Postgres 17 is out", Owner: memory.Owner{UserID: "u1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Memory.Nudge(ctx, pref.ID, -3); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Memory.LearnRelation(ctx, memory.RelationInput{Owner: memory.Owner{UserID: "u1"}, From: "Foxtrot", To: "Redis",
		Relation: "uses", Turns: []string{a.Memory.ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Memory.WriteWorkspace(ctx, "hermes", "SOUL.md", "You are Hermes, v2.\n", ""); err != nil {
		t.Fatal(err)
	}
	changed := stateOf(t, eng)
	if reflect.DeepEqual(changed, want) {
		t.Fatal("the changes changed nothing")
	}

	rep, err := eng.RestoreSnapshot(ctx, snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := stateOf(t, eng); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the restore:\n%+v\nwant\n%+v", got, want)
	}
	if rep.Before.Manifest == nil || rep.Before.Manifest.Reason != snapshot.ReasonBeforeRestore || rep.Before.Manifest.Layers[memory.LayerRaw] != 2 {
		t.Fatalf("before-restore snapshot: %+v", rep.Before)
	}
	if err := eng.Memory.Ready(ctx); err != nil {
		t.Fatalf("not ready after the restore: %v", err)
	}
	// Undo.
	if _, err := eng.RestoreSnapshot(ctx, rep.Before.ID); err != nil {
		t.Fatal(err)
	}
	if got := stateOf(t, eng); !reflect.DeepEqual(got, changed) {
		t.Fatalf("after the undo:\n%+v\nwant\n%+v", got, changed)
	}
	if _, err := os.Stat(filepath.Join(eng.Config.Paths.Data, restoreDir)); !os.IsNotExist(err) {
		t.Errorf("the restore's work folder is left: %v", err)
	}
}

// rewrite copies a snapshot zip, changing one entry with f.
func rewrite(t *testing.T, src, dst string, f func(name string, b []byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(out)
	for _, e := range zr.File {
		rc, _ := e.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		w, _ := zw.Create(e.Name)
		_, _ = w.Write(f(e.Name, b))
	}
	_ = zw.Close()
	_ = out.Close()
}

func TestSnapshot_BadSnapshotsAreRefused(t *testing.T) {
	ctx := context.Background()
	eng := openSnapEngine(t)
	if _, err := eng.Memory.Add(ctx, memory.AddInput{Text: "keep me"}); err != nil {
		t.Fatal(err)
	}
	good, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	dir := eng.Config.Snapshot.Dir
	src := filepath.Join(dir, good.ID+".zip")
	raw, _ := os.ReadFile(src)
	manifest := func(edit func(m map[string]any)) func(string, []byte) []byte {
		return func(name string, b []byte) []byte {
			if name != "manifest.json" {
				return b
			}
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			edit(m)
			out, _ := json.Marshal(m)
			return out
		}
	}
	cases := []struct {
		name, id, want string
		make           func(path string)
	}{
		{"garbage", "hyatlas-20200101T000000.001Z", "not a readable zip", func(p string) { _ = os.WriteFile(p, []byte("not a zip at all"), 0o600) }},
		{"truncated", "hyatlas-20200101T000000.002Z", "not a readable zip", func(p string) { _ = os.WriteFile(p, raw[:len(raw)/2], 0o600) }},
		{"wrong checksum", "hyatlas-20200101T000000.003Z", "does not match its checksum", func(p string) {
			rewrite(t, src, p, manifest(func(m map[string]any) {
				m["files"].(map[string]any)["hyatlas.db"] = "00"
			}))
		}},
		{"newer schema", "hyatlas-20200101T000000.004Z", "newer HyAtlas", func(p string) {
			rewrite(t, src, p, manifest(func(m map[string]any) { m["schema_version"] = store.SchemaVersion() + 1 }))
		}},
		{"not ours", "hyatlas-20200101T000000.005Z", "not a HyAtlas snapshot", func(p string) {
			rewrite(t, src, p, manifest(func(m map[string]any) { m["format"] = "something-else" }))
		}},
		{"wrong counts", "hyatlas-20200101T000000.006Z", "does not hold what its manifest counts", func(p string) {
			rewrite(t, src, p, manifest(func(m map[string]any) { m["retired"] = 99 }))
		}},
		{"an extra file", "hyatlas-20200101T000000.007Z", "does not list", func(p string) {
			rewrite(t, src, p, func(name string, b []byte) []byte { return b })
			zr, _ := zip.OpenReader(p)
			defer zr.Close()
			out, _ := os.Create(p + ".x")
			zw := zip.NewWriter(out)
			for _, e := range zr.File {
				rc, _ := e.Open()
				b, _ := io.ReadAll(rc)
				rc.Close()
				w, _ := zw.Create(e.Name)
				_, _ = w.Write(b)
			}
			w, _ := zw.Create("../../etc/evil")
			_, _ = w.Write([]byte("x"))
			_ = zw.Close()
			_ = out.Close()
			_ = os.Rename(p+".x", p)
		}},
	}
	before := stateOf(t, eng)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.make(filepath.Join(dir, c.id+".zip"))
			if _, err := eng.VerifySnapshot(ctx, c.id); memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(memory.ErrorMessage(err), c.want) {
				t.Fatalf("verify: %v, want %q", err, c.want)
			}
			if _, err := eng.RestoreSnapshot(ctx, c.id); memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("restore: %v", err)
			}
			if got := stateOf(t, eng); !reflect.DeepEqual(got, before) {
				t.Fatal("a refused restore changed the data")
			}
		})
	}
	for _, id := range []string{"../hyatlas.db", "hyatlas-x"} {
		if _, err := eng.RestoreSnapshot(ctx, id); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("restore %q: %v", id, err)
		}
	}
	if _, err := eng.RestoreSnapshot(ctx, "hyatlas-20990101T000000.000Z"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("restore of a missing snapshot: %v", err)
	}
	if _, err := eng.VerifySnapshot(ctx, good.ID); err != nil {
		t.Errorf("the good snapshot: %v", err)
	}
}

// Writes made while a snapshot is taken are never lost: each is in the
// store afterwards (and in the snapshot or not, depending on when it came).
func TestSnapshot_WritesDuringASnapshotAreKept(t *testing.T) {
	ctx := context.Background()
	eng := openSnapEngine(t)
	for i := range 200 {
		if _, err := eng.Memory.Add(ctx, memory.AddInput{Text: fmt.Sprintf("seed %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	ids := make(chan string, 100)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 100 {
			res, err := eng.Memory.Add(ctx, memory.AddInput{Text: fmt.Sprintf("during %d", i)})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- res.Memory.ID
		}
	}()
	info, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	wg.Wait()
	close(ids)
	if err != nil {
		t.Fatal(err)
	}
	for id := range ids {
		if _, err := eng.Memory.Get(ctx, id); err != nil {
			t.Fatalf("an acknowledged write is gone: %v", err)
		}
	}
	if n := info.Manifest.Layers[memory.LayerRaw]; n < 200 || n > 300 {
		t.Fatalf("the snapshot holds %d rows", n)
	}
}

func TestSnapshot_RetentionKeepsTheNewestScheduled(t *testing.T) {
	ctx := context.Background()
	eng := openSnapEngine(t)
	for range 4 {
		if _, err := eng.CreateSnapshot(ctx, snapshot.ReasonSchedule); err != nil {
			t.Fatal(err)
		}
	}
	manual, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	gone, err := eng.snap.keeper.Prune(2)
	if err != nil || len(gone) != 2 {
		t.Fatalf("pruned %v, %v", gone, err)
	}
	list, _ := eng.Snapshots()
	if len(list) != 3 || list[0].ID != manual.ID {
		t.Fatalf("left: %+v", list)
	}
	if err := eng.DeleteSnapshot(manual.ID); err != nil {
		t.Fatal(err)
	}
	if err := eng.DeleteSnapshot(manual.ID); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("delete twice: %v", err)
	}
}

// An older schema is snapshotted before it is migrated.
func TestSnapshot_BeforeUpgrade(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	eng, err := Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Memory.Add(ctx, memory.AddInput{Text: "from an older version"}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	// Undo the newest migration (its column), as an older build left it.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(cfg.Paths.Data, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("ALTER TABLE memories DROP COLUMN extract_asked_at; PRAGMA user_version = %d", store.SchemaVersion()-1)); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	eng, err = Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	list, err := eng.Snapshots()
	if err != nil || len(list) != 1 || list[0].Manifest.Reason != snapshot.ReasonBeforeUpgrade || list[0].Manifest.Schema != store.SchemaVersion()-1 {
		t.Fatalf("snapshots: %+v, %v", list, err)
	}
	if _, err := eng.VerifySnapshot(ctx, list[0].ID); err != nil {
		t.Fatalf("verify: %v", err)
	}
	// Restoring it migrates it again.
	if _, err := eng.RestoreSnapshot(ctx, list[0].ID); err != nil {
		t.Fatalf("restore an older schema: %v", err)
	}
	if st, err := eng.Memory.Stats(ctx); err != nil || st.Live[memory.LayerRaw] != 1 {
		t.Fatalf("after: %+v, %v", st, err)
	}
}

// TestSnapshot_CreateRefusesAJunkBody: POST /api/v1/snapshots takes no
// body or {}; anything else is refused and makes no snapshot.
func TestSnapshot_CreateRefusesAJunkBody(t *testing.T) {
	r := newLLMRig(t, nil)
	var list struct {
		Snapshots []map[string]any `json:"snapshots"`
	}
	for _, body := range []any{"notjson", map[string]int{"bogus": 1}} {
		if err := r.do(t, "POST", "/api/v1/snapshots", body, nil); err == nil {
			t.Errorf("POST /api/v1/snapshots with %v was accepted", body)
		}
	}
	if err := r.do(t, "GET", "/api/v1/snapshots", nil, &list); err != nil || len(list.Snapshots) != 0 {
		t.Fatalf("a refused request made a snapshot: %v %v", list, err)
	}
	if err := r.do(t, "POST", "/api/v1/snapshots", map[string]any{}, nil); err != nil {
		t.Errorf("POST with {}: %v", err)
	}
	if err := r.do(t, "GET", "/api/v1/snapshots", nil, &list); err != nil || len(list.Snapshots) != 1 {
		t.Errorf("after POST {}: %v %v, want one snapshot", list, err)
	}
}

// TestFirstSnapshotIn: the schedule goes on across starts: restarting does
// not take a snapshot each time (seven restarts in a day pruned a week of
// daily snapshots).
func TestFirstSnapshotIn(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	snap := func(reason string, ago time.Duration) snapshot.Info {
		return snapshot.Info{Manifest: &snapshot.Manifest{Reason: reason, CreatedAt: now.Add(-ago)}}
	}
	cases := []struct {
		name string
		list []snapshot.Info
		want time.Duration
	}{
		{"no snapshot yet", nil, time.Minute},
		{"only manual ones", []snapshot.Info{snap(snapshot.ReasonManual, time.Hour)}, time.Minute},
		{"the last scheduled an hour ago", []snapshot.Info{snap(snapshot.ReasonSchedule, time.Hour), snap(snapshot.ReasonSchedule, 25*time.Hour)}, 23 * time.Hour},
		{"overdue", []snapshot.Info{snap(snapshot.ReasonSchedule, 3*day)}, time.Minute},
		{"due in thirty seconds", []snapshot.Info{snap(snapshot.ReasonSchedule, day-30*time.Second)}, time.Minute},
		{"a clock set back", []snapshot.Info{snap(snapshot.ReasonSchedule, -2*day)}, day},
		{"an unreadable one", []snapshot.Info{{ID: "x", Error: "bad zip"}}, time.Minute},
	}
	for _, c := range cases {
		if got := firstSnapshotIn(c.list, day, now); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
