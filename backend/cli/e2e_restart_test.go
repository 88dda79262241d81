package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
	"hyatlas/backend/proctest"
)

// TestSettings_ModeChangesUnderLoad: writers and a searcher run while the
// mode goes lite -> pro -> ultra -> lite through PUT /api/v1/settings and
// POST /api/v1/restart. Every acknowledged write is there at the end; a
// request during a restart fails clearly (no answer, or 503), never with a
// 500 or a 200 that lies; the status says the running mode, not the saved.
func TestSettings_ModeChangesUnderLoad(t *testing.T) {
	chat := emptyPlanChat(t)
	in := newInstance(t, "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	c := in.Client()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	type ack struct{ id, token string }
	acks := make(chan ack, 100000)
	oddErrs := make(chan string, 1000)
	done := make(chan struct{})
	nw := 3
	for w := range nw {
		go func() {
			defer func() { done <- struct{}{} }()
			cc := client.New(c.Base, c.Token)
			cc.HTTP.Timeout = 60 * time.Second
			for i := 0; ctx.Err() == nil; i++ {
				tok := fmt.Sprintf("w%dq%d", w, i)
				text := "restart load entry " + tok
				res, err := cc.Add(ctx, api.AddRequest{Text: &text, UserID: "load"})
				if err != nil {
					var ae *client.Error
					if errors.As(err, &ae) && ae.Status != 503 {
						oddErrs <- fmt.Sprintf("add: %v", err)
					}
					time.Sleep(20 * time.Millisecond)
					continue
				}
				acks <- ack{res.MemoryID, tok}
			}
		}()
	}
	go func() {
		defer func() { done <- struct{}{} }()
		cc := client.New(c.Base, c.Token)
		for ctx.Err() == nil {
			_, err := cc.Search(ctx, api.SearchRequest{Query: "restart load entry", UserID: "load", Reader: "keyword"})
			var ae *client.Error
			if err != nil && errors.As(err, &ae) && ae.Status != 503 {
				oddErrs <- fmt.Sprintf("search: %v", err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	steps := []map[string]string{
		{"mode": "pro", "llm_base": chat.URL + "/v1", "llm_model": "m", "sync_extract": "on"},
		{"mode": "ultra", "consolidate_every": "5m", "snapshot_every": "10m", "snapshot_keep": "2"},
		{"mode": "lite", "sync_extract": "", "consolidate_every": ""},
	}
	for _, step := range steps {
		time.Sleep(1500 * time.Millisecond)
		var st map[string]any
		if err := c.Do(context.Background(), "PUT", "/api/v1/settings", step, &st); err != nil {
			t.Fatalf("PUT %v: %v", step, err)
		}
		if st["restart_required"] != true {
			t.Errorf("PUT %v: restart_required = %v", step, st["restart_required"])
		}
		if got := statusMap(t, c)["mode"]; got == step["mode"] {
			t.Errorf("status says mode %v before the restart", got)
		}
		restartAndWait(t, in, c)
		if got := statusMap(t, c)["mode"]; got != step["mode"] {
			t.Errorf("after restart mode = %v, want %v", got, step["mode"])
		}
		var after map[string]any
		if err := c.Do(context.Background(), "GET", "/api/v1/settings", nil, &after); err != nil || after["restart_required"] != false {
			t.Errorf("settings after restart: %v %v", after, err)
		}
	}
	time.Sleep(time.Second)
	stop()
	for range nw + 1 {
		<-done
	}
	close(acks)
	close(oddErrs)
	for e := range oddErrs {
		t.Errorf("unclear failure during restarts: %s", e)
	}
	n := 0
	for a := range acks {
		n++
		if _, err := c.Get(context.Background(), a.id); err != nil {
			t.Errorf("acknowledged write %s (%s) lost: %v", a.id, a.token, err)
		}
	}
	if n == 0 {
		t.Error("no write was acknowledged")
	}
}

// restartAndWait asks for a restart and waits until the instance serves
// again (its n-th "is serving at" line) and is ready.
func restartAndWait(t *testing.T, in *proctest.Instance, c *client.Client) {
	t.Helper()
	n := strings.Count(in.Out.String(), "is serving at")
	if err := c.Do(context.Background(), "POST", "/api/v1/restart", nil, nil); err != nil {
		t.Fatal(err)
	}
	if !in.Out.WaitForCount("is serving at", n+1, 40*time.Second) {
		t.Fatalf("not back after the restart:\n%s", in.Out.String())
	}
	for deadline := time.Now().Add(20 * time.Second); c.Ready(context.Background()) != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not ready after the restart")
		}
	}
}

// emptyPlanChat is an OpenAI-compatible endpoint that answers every
// extraction with an empty, valid plan.
func emptyPlanChat(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": `{"facts":[],"intentions":[],"intentions_done":[],"entities":[],"experiences":[]}`}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// statusMap is GET /api/v1/status as a map.
func statusMap(t *testing.T, c *client.Client) map[string]any {
	t.Helper()
	var st map[string]any
	if err := c.Do(context.Background(), "GET", "/api/v1/status", nil, &st); err != nil {
		t.Fatal(err)
	}
	return st
}
