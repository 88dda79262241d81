package api_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/api"
)

// TestEventStream: a subscriber sees a write as it happens, filtered by
// type prefix, in the server-sent events format.
func TestEventStream(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hr, _ := http.NewRequestWithContext(ctx, "GET", a.srv.URL+"/api/v1/events?types=memory.add", nil)
	hr.Header.Set("Authorization", "Bearer "+testToken)
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("status %d, content type %q", res.StatusCode, ct)
	}
	lines := bufio.NewScanner(res.Body)
	lines.Scan() // the opening comment
	id := a.post("/api/v1/add", map[string]any{"text": "streamed write", "user_id": "u1"}, 200)["memory_id"].(string)
	var event, data string
	for lines.Scan() {
		line := lines.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = v
			break
		}
	}
	if event != "memory.added" || !strings.Contains(data, id) {
		t.Errorf("event %q data %q", event, data)
	}
	if r := a.do(req{path: "/api/v1/events", noAuth: true}); r.status != 401 {
		t.Errorf("event stream without a token: %d", r.status)
	}
}

// TestEventStream_StopEndsIt: an open stream ends when the server stops,
// so an HTTP server's Shutdown does not wait on it.
func TestEventStream_StopEndsIt(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	hr, _ := http.NewRequest("GET", a.srv.URL+"/api/v1/events", nil)
	hr.Header.Set("Authorization", "Bearer "+testToken)
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, res.Body)
		done <- err
	}()
	a.api.Stop()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the event stream is still open after Stop")
	}
}

// TestEventStream_AtMostMaxStreams: streams past the cap are refused with
// a clear 503; closing one makes room again.
func TestEventStream_AtMostMaxStreams(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	open := func() (*http.Response, error) {
		hr, _ := http.NewRequest("GET", a.srv.URL+"/api/v1/events", nil)
		hr.Header.Set("Authorization", "Bearer "+testToken)
		return http.DefaultClient.Do(hr)
	}
	var streams []*http.Response
	defer func() {
		for _, r := range streams {
			_ = r.Body.Close()
		}
	}()
	for i := range 100 {
		res, err := open()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("stream %d: %v %v", i+1, res, err)
		}
		streams = append(streams, res)
	}
	res, err := open()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "100 live event streams are open") {
		t.Fatalf("stream 101: %d %s", res.StatusCode, body)
	}
	_ = streams[0].Body.Close()
	streams = streams[1:]
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := open()
		if err == nil && res.StatusCode == 200 {
			streams = append(streams, res)
			break
		}
		if err == nil {
			res.Body.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after closing a stream: %v %v", res, err)
		}
	}
}

// TestEventStream_EndsWithItsCredential: a stream opened with a token, or
// with a dashboard session, that a new token ended receives no more
// events.
func TestEventStream_EndsWithItsCredential(t *testing.T) {
	for _, how := range []string{"POST /api/v1/token", "hyatlas token --new", "session ended"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			a := newAPI(t, rigOpts{auth: true, tokenDir: dir})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			hr, _ := http.NewRequestWithContext(ctx, "GET", a.srv.URL+"/api/v1/events?types=memory.", nil)
			if how == "session ended" {
				hr.Header.Set(api.SessionHeader, a.signIn())
			} else {
				hr.Header.Set("Authorization", "Bearer "+testToken)
			}
			res, err := http.DefaultClient.Do(hr)
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("stream: %v %v", res, err)
			}
			defer res.Body.Close()
			got := make(chan string, 16)
			go func() {
				sc := bufio.NewScanner(res.Body)
				for sc.Scan() {
					if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
						got <- d
					}
				}
				close(got)
			}()
			// Rotate.
			var newTok string
			if how == "hyatlas token --new" {
				newTok, err = api.NewToken(dir)
				if err != nil {
					t.Fatal(err)
				}
			} else {
				r := a.do(req{method: "POST", path: "/api/v1/token"})
				newTok, _ = r.json(t)["token"].(string)
			}
			if code := a.statusWith(testToken, ""); code != 401 {
				t.Fatalf("old token after rotation: %d", code)
			}
			// A write made with the new token after the rotation.
			hw, _ := http.NewRequest("POST", a.srv.URL+"/api/v1/add", strings.NewReader(`{"text":"written after the rotation","user_id":"secret-user"}`))
			hw.Header.Set("Authorization", "Bearer "+newTok)
			hw.Header.Set("Content-Type", "application/json")
			wr, err := http.DefaultClient.Do(hw)
			if err != nil || wr.StatusCode != 200 {
				t.Fatalf("write with the new token: %v %v", wr, err)
			}
			wr.Body.Close()
			// The stream ends (the event is the next thing it would send)
			// without passing the event on.
			select {
			case d, open := <-got:
				if open {
					t.Errorf("a stream opened with the old credential still receives events after the rotation: %s", d)
				}
			case <-time.After(30 * time.Second):
				t.Error("the stream opened with the old credential is still open 30 s after the rotation")
			}
		})
	}
}
