package snapshot

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"testing"

	"hyatlas/backend/memory"
)

// withOthers rewrites snapshot id as an earlier version made it: holding
// other files of the workspace folder, listed in its manifest with the
// checksum sum gives each (its own, when sum returns "").
func withOthers(t *testing.T, k *Keeper, id string, others map[string]string, sum func(name string) string) {
	t.Helper()
	path := k.path(id)
	m, err := readManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".new"
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		if e.Name == manifestName {
			continue
		}
		rc, _ := e.Open()
		w, _ := zw.Create(e.Name)
		if _, err := io.Copy(w, rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
	}
	zr.Close()
	for name, content := range others {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte(content))
		h := sha256.Sum256([]byte(content))
		m.Files[name] = hex.EncodeToString(h[:])
		if s := sum(name); s != "" {
			m.Files[name] = s
		}
	}
	if err := writeManifest(zw, m); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestExtract_AnEarlierVersionsOtherWorkspaceFiles: a snapshot an earlier
// version made, holding other files of the workspace folder, still
// verifies and restores: each is checked against its checksum and not
// unpacked. One that does not match its checksum refuses the snapshot, and
// an entry outside workspace/ is refused as before.
func TestExtract_AnEarlierVersionsOtherWorkspaceFiles(t *testing.T) {
	others := map[string]string{"workspace/meepa/SOUL.md~": "backup", "workspace/.git/HEAD": "ref: main",
		"workspace/../../escape": "never unpacked"}
	for _, tc := range []struct {
		name   string
		others map[string]string
		sum    func(string) string
		code   memory.Code
	}{
		{"other workspace files", others, func(string) string { return "" }, ""},
		{"one that does not match", others, func(n string) string {
			if n == "workspace/.git/HEAD" {
				return "00"
			}
			return ""
		}, memory.EINVALID},
		{"an entry outside workspace/", map[string]string{"notes.txt": "x"}, func(string) string { return "" }, memory.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := testKeeper(t)
			info, err := k.Create(context.Background(), ReasonManual)
			if err != nil {
				t.Fatal(err)
			}
			withOthers(t, k, info.ID, tc.others, tc.sum)
			// dir is two folders down, so an entry climbing out of it
			// would land in parent, which must hold dir's folder only.
			parent := t.TempDir()
			dir := filepath.Join(parent, "a", "b")
			_, err = k.Extract(context.Background(), info.ID, dir)
			if memory.ErrorCode(err) != tc.code {
				t.Fatalf("extract: %v, want code %q", err, tc.code)
			}
			if err != nil {
				return
			}
			var got []string
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					got = append(got, filepath.ToSlash(rel))
				}
				return nil
			})
			if len(got) != 2 || got[0] != "hyatlas.db" || got[1] != "workspace/meepa/SOUL.md" {
				t.Errorf("unpacked %v, want the database and SOUL.md only", got)
			}
			for _, d := range []string{parent, filepath.Join(parent, "a")} {
				if entries, _ := os.ReadDir(d); len(entries) != 1 {
					t.Errorf("an entry escaped the folder it unpacks into: %s holds %v", d, entries)
				}
			}
		})
	}
}
