package models

// Progress reports, the default catalog and a part left whole.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestProgressThrottled(t *testing.T) {
	ts, m, _ := newTestServer(t)
	ts.setHandler(func(w http.ResponseWriter, r *http.Request, _ int, data []byte) {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		const chunks = 20
		for i := range chunks {
			w.Write(data[i*len(data)/chunks : (i+1)*len(data)/chunks])
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
		}
	})
	var downloads []Progress
	var dones int
	err := m.Install(context.Background(), "tiny", func(p Progress) {
		switch p.Phase {
		case PhaseDownload:
			if p.File == "model.onnx" {
				downloads = append(downloads, p)
			}
		case PhaseDone:
			dones++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// ~400 ms of transfer: a report per 100 ms plus the final one.
	if len(downloads) < 2 || len(downloads) > 7 {
		t.Errorf("%d download reports, want 2..7", len(downloads))
	}
	if last := downloads[len(downloads)-1]; last.Done != last.Total || last.Total != 1<<20 {
		t.Errorf("last download report = %+v", last)
	}
	if dones != 2 {
		t.Errorf("%d done reports, want 2", dones)
	}
}

func TestDefaultCatalog(t *testing.T) {
	m := &Manager{Dir: t.TempDir()}
	md, err := m.lookup("bge-small")
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Files) != 2 || md.Files[1].SHA256 != "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3" {
		t.Errorf("bge-small = %+v", md)
	}
	if got := m.fileURL(md.Files[0]); got != DefaultBaseURL+"Xenova/bge-small-en-v1.5/resolve/"+bgeRevision+"/onnx/model.onnx" {
		t.Errorf("fileURL = %q", got)
	}
	for _, f := range md.Files {
		if len(f.SHA256) != 64 || f.Size <= 0 {
			t.Errorf("%s is not pinned: %+v", f.Name, f)
		}
	}
}

func TestLeftoverFullPart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt bool
	}{{"good part is finished without a request", false}, {"bad part is downloaded again from zero", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ts, m, onnx := newTestServer(t)
			dest := filepath.Join(m.Dir, "tiny", "model.onnx")
			part := bytes.Clone(onnx)
			if tc.corrupt {
				part[0] ^= 1
			}
			os.MkdirAll(filepath.Dir(dest), 0o755)
			if err := os.WriteFile(dest+partSuffix, part, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := m.Install(context.Background(), "tiny", nil); err != nil {
				t.Fatal(err)
			}
			assertFile(t, dest, onnx)
			assertAbsent(t, dest+partSuffix)
			want := 0
			if tc.corrupt {
				want = 1 // the whole file, once
			}
			if n := ts.hitCount(onnxPath); n != want {
				t.Errorf("onnx hits = %d, want %d", n, want)
			}
		})
	}
}

// second is a call's error, for a table of calls that also return a value.
func second[T any](_ T, err error) error { return err }
