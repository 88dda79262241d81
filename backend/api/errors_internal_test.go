package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestWriteJSON_AReplyThatCannotBeWrittenIsA500: a value JSON cannot hold
// (a time past the year 9999) gives a 500 saying so, never a 200 with an
// empty body.
func TestWriteJSON_AReplyThatCannotBeWrittenIsA500(t *testing.T) {
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusOK, map[string]any{"at": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	var body ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); rec.Code != 500 || err != nil || !strings.Contains(body.Error, "could not be written") {
		t.Fatalf("%d %q (%v)", rec.Code, rec.Body.String(), err)
	}
	rec = httptest.NewRecorder()
	writeJSON(rec, http.StatusCreated, map[string]int{"n": 1})
	if rec.Code != 201 || strings.TrimSpace(rec.Body.String()) != `{"n":1}` {
		t.Fatalf("%d %q", rec.Code, rec.Body.String())
	}
}
