package engine

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/config"
)

// A request of the desktop window that is in progress when the engine
// closes (a blocking write waiting on the model) finishes before the store
// closes, and its write is extracted; a request arriving meanwhile is
// turned away with 503.
func TestWindowRequestsFinishBeforeClose(t *testing.T) {
	r := newLLMRig(t, func(c *config.Config) {
		sync := true
		c.SyncExtract = &sync
	})
	_ = r.eng.x.keys.Hand("sk-test-key-1")
	entered, release := make(chan struct{}), make(chan struct{})
	r.fake.setReply(func(llmRequest) (int, string) {
		close(entered)
		<-release
		return 200, planJSON([]map[string]any{fact("The window's write was extracted", "decision")}, nil)
	})
	h := r.eng.WindowHandler()
	rec := httptest.NewRecorder()
	served := make(chan struct{})
	go func() {
		defer close(served)
		req := httptest.NewRequest(http.MethodPost, "/api/v1/add", strings.NewReader(`{"text":"Note from the window."}`))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
	}()
	<-entered
	closed := make(chan error, 1)
	go func() { closed <- r.eng.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a window request was in progress", err)
	case <-time.After(200 * time.Millisecond):
	}
	late := httptest.NewRecorder()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		late = httptest.NewRecorder()
		h.ServeHTTP(late, httptest.NewRequest(http.MethodGet, "/api/v1/status", nil))
		if late.Code == http.StatusServiceUnavailable || time.Now().After(deadline) {
			break
		}
	}
	if late.Code != http.StatusServiceUnavailable || !strings.Contains(late.Body.String(), `"code":"unavailable"`) {
		t.Errorf("a window request during Close got %d %s, want 503 unavailable", late.Code, late.Body.String())
	}
	close(release)
	<-served
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	var res struct {
		ExtractionStatus string `json:"extraction_status"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &res) != nil || res.ExtractionStatus != "done" {
		t.Errorf("the window's write: %d %s, want 200 and extraction done", rec.Code, rec.Body.String())
	}
}
