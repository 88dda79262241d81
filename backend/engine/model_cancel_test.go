package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hyatlas/backend/config"
	"hyatlas/backend/embed/onnxproto"
	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
)

// A model install can be cancelled: it stops without reporting a failure,
// the model is not installed, the part downloaded stays, and the next
// install goes on from there (a range request) and completes. Cancelling
// when nothing installs is a conflict.
func TestModelInstallCancel(t *testing.T) {
	model := onnxproto.TinyBERT(strings.Count(bertVocab, "\n"), 24, 3, true)
	var slow atomic.Bool
	slow.Store(true)
	var mu sync.Mutex
	var ranges []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b []byte
		switch r.URL.Path {
		case "/m/model.onnx":
			b = model
		case "/m/vocab.txt":
			b = []byte(bertVocab)
		default:
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/m/model.onnx" {
			mu.Lock()
			ranges = append(ranges, r.Header.Get("Range"))
			mu.Unlock()
			if slow.Load() && r.Header.Get("Range") == "" {
				// A slow link: part of the file, then nothing until the
				// client gives up.
				w.Header().Set("Content-Length", strconv.Itoa(len(b)))
				_, _ = w.Write(b[:len(b)/2])
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				return
			}
		}
		http.ServeContent(w, r, r.URL.Path, time.Time{}, strings.NewReader(string(b)))
	}))
	t.Cleanup(srv.Close)
	cfg := testConfig(t)
	cfg.Embed = config.EmbedConfig{Choice: config.EmbedAuto, ORTLib: proctest.ORTLib()}
	cfg.ModelsBase = srv.URL + "/"
	opts := quiet()
	opts.ModelCatalog = testCatalog(model)
	e, err := Open(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	events, stop := e.bus.Subscribe(1024)
	defer stop()

	if err := e.models.Cancel(bgeModel); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("cancel with no install: %v", err)
	}
	if err := e.models.Install(bgeModel); err != nil {
		t.Fatal(err)
	}
	status := func() (m modelsInfo) {
		list, err := e.models.List()
		if err != nil || len(list) != 1 {
			t.Fatalf("list: %+v, %v", list, err)
		}
		return modelsInfo{list[0].Installing, list[0].Installed, list[0].Error, list[0].Progress != nil && list[0].Progress.Done > 0}
	}
	waitFor(t, "part of the model to arrive", func() bool { return status().downloading })
	if err := e.models.Cancel(bgeModel); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	waitFor(t, "the install to stop", func() bool { return !status().installing })
	if s := status(); s.installed || s.err != "" {
		t.Errorf("after a cancel: installed %v, error %q (a cancel is no failure)", s.installed, s.err)
	}
	saw := map[string]bool{}
	for len(events) > 0 {
		saw[(<-events).Type] = true
	}
	if !saw["model.cancelled"] || saw["model.failed"] {
		t.Errorf("events after a cancel: %v", saw)
	}

	slow.Store(false)
	if err := e.models.Install(bgeModel); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the install to finish", func() bool { s := status(); return !s.installing && s.installed })
	mu.Lock()
	defer mu.Unlock()
	if len(ranges) < 2 || !strings.HasPrefix(ranges[len(ranges)-1], "bytes=") {
		t.Errorf("the second install did not go on from the part downloaded: requests with Range %q", ranges)
	}
}

type modelsInfo struct {
	installing, installed bool
	err                   string
	downloading           bool
}
