package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/proctest"
)

// TestKill9_MixedWritesInProMode: six agents write through add, manual
// add (then edit, and on half of them retire) and memory_store in pro mode
// while extractions run against a slow endpoint; SIGKILL. After a start,
// every acknowledged write is there with its acknowledged content and
// retire state, findable by keyword, and every raw write gets extracted.
func TestKill9_MixedWritesInProMode(t *testing.T) {
	var calls atomic.Int64
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		time.Sleep(30 * time.Millisecond)
		content, _ := json.Marshal(map[string]any{
			"facts":      []any{map[string]any{"text": fmt.Sprintf("fact number %d", calls.Load()), "label": "project_state", "event_at": nil, "replaces": []string{}, "updates": nil}},
			"intentions": []any{}, "intentions_done": []any{}, "entities": []any{}, "experiences": []any{},
		})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": string(content)}}}})
	}))
	defer llm.Close()
	in := newInstance(t, "HYATLAS_MODE=pro", "HYATLAS_SYNC_EXTRACT=off", "HYATLAS_EMBED_BASE=local",
		"HYATLAS_LLM_BASE="+llm.URL+"/v1", "HYATLAS_LLM_MODEL=m")
	in.Start("serve")
	c := in.Client()
	type ack struct {
		id, token string
		retired   bool
	}
	var (
		mu       sync.Mutex
		acked    []ack
		inFlight = map[string]string{} // id -> the token of an edit not yet answered
		retiring = map[string]bool{}   // ids whose retire was not yet answered
		total    atomic.Int64
		stop     atomic.Bool
		wg       sync.WaitGroup
	)
	record := func(a ack) {
		mu.Lock()
		acked = append(acked, a)
		mu.Unlock()
		total.Add(1)
	}
	for w := range 6 {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ctx := context.Background()
			for i := 0; !stop.Load(); i++ {
				token := fmt.Sprintf("tok%dx%d", w, i)
				switch i % 3 {
				case 0:
					text := "raw turn " + token
					res, err := c.Add(ctx, api.AddRequest{Text: &text, UserID: "k9"})
					if err != nil {
						return
					}
					record(ack{id: res.MemoryID, token: token})
				case 1:
					var m api.MemoryJSON
					if err := c.Do(ctx, "POST", "/api/v1/memories", api.RememberRequest{Content: "manual fact " + token, UserID: "k9"}, &m); err != nil {
						return
					}
					record(ack{id: m.ID, token: token})
					// Edit it; an edit the kill cut off before its answer
					// may or may not have been committed.
					newText := "edited manual fact " + token + "e"
					mu.Lock()
					inFlight[m.ID] = token + "e"
					mu.Unlock()
					if err := c.Do(ctx, "PATCH", "/api/v1/memories/"+m.ID, api.PatchRequest{Content: &newText}, nil); err != nil {
						return
					}
					mu.Lock()
					delete(inFlight, m.ID)
					acked = append(acked, ack{id: m.ID, token: token + "e"})
					mu.Unlock()
					if w%2 == 0 {
						mu.Lock()
						retiring[m.ID] = true
						mu.Unlock()
						if _, err := c.Retire(ctx, m.ID, api.RetireRequest{How: "forgotten", Reason: "test"}); err != nil {
							return
						}
						mu.Lock()
						delete(retiring, m.ID)
						acked = append(acked, ack{id: m.ID, retired: true})
						mu.Unlock()
					}
				case 2:
					var out struct {
						Result struct {
							ID string `json:"id"`
						} `json:"result"`
					}
					if err := c.Do(ctx, "POST", "/api/v1/tools/memory_store?user_id=k9", map[string]string{"content": "tool fact " + token}, &out); err != nil {
						return
					}
					record(ack{id: out.Result.ID, token: token})
				}
			}
		}(w)
	}
	killWhenAcknowledged(t, in, &total, 300, &stop, &wg)

	in.Start("serve")
	c = in.Client()
	ctx := context.Background()
	retired := map[string]bool{}
	for _, a := range acked {
		if a.retired {
			retired[a.id] = true
		}
	}
	lastToken := map[string]string{}
	for _, a := range acked {
		if !a.retired {
			lastToken[a.id] = a.token
		}
	}
	for id, tok := range lastToken {
		d, err := c.Get(ctx, id)
		if err != nil {
			t.Fatalf("acknowledged write %s lost: %v", id, err)
		}
		if !strings.HasSuffix(d.Content, " "+tok) && (inFlight[id] == "" || !strings.HasSuffix(d.Content, " "+inFlight[id])) {
			t.Errorf("%s: content %q, want the acknowledged version ending in %s", id, d.Content, tok)
		}
		if retired[id] != (d.RetiredAt != nil) && !retiring[id] {
			t.Errorf("%s: retired %v, acknowledged retire %v", id, d.RetiredAt != nil, retired[id])
		}
		if d.RetiredAt != nil {
			continue
		}
		if !strings.HasSuffix(d.Content, " "+tok) {
			tok = inFlight[id]
		}
		kw, err := c.Search(ctx, api.SearchRequest{Query: tok, Reader: "keyword", UserID: "k9"})
		if err != nil || !slices.Contains(kw.Ranked, id) {
			t.Errorf("%s not found by keyword %q: %v %v", id, tok, kw.Ranked, err)
		}
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st, err := c.Status(ctx)
		if err == nil && st.Unextracted == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("raw writes never extracted after the restart: %+v %v", st.Unextracted, err)
		}
	}
	t.Logf("%d acknowledged operations, all present after SIGKILL", len(acked))
}

// killWhenAcknowledged waits until total writes are acknowledged (at most
// 60 s), kills the server with SIGKILL, then stops the writers and waits
// for them.
func killWhenAcknowledged(t *testing.T, in *proctest.Instance, total *atomic.Int64, want int64, stop *atomic.Bool, wg *sync.WaitGroup) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); total.Load() < want; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d writes acknowledged in 60 s; output:\n%s", total.Load(), in.Out.String())
		}
	}
	if err := in.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = in.Cmd.Wait()
	stop.Store(true)
	wg.Wait()
}
