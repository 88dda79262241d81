package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/memory"
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

// TestWriteError_WorkCutOffIsA503: work a stop or a cancelled request cut
// off answers 503 and says so, and is not logged as a fault; other
// internal errors (a timeout too) stay 500 and are logged; a code of its
// own is kept.
func TestWriteError_WorkCutOffIsA503(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		says   string
		logged bool
	}{
		{"a pass cut off by a stop", fmt.Errorf("consolidate: %w", context.Canceled), 503, "cut off", false},
		{"a remote call out of time is a fault", fmt.Errorf("embed: %w", context.DeadlineExceeded), 500, "internal error", true},
		{"another internal error", errors.New("disk I/O error"), 500, "internal error", true},
		{"a refusal with its own code", memory.Errorf(memory.EINVALID, "bad input"), 422, "bad", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			rec := httptest.NewRecorder()
			writeError(rec, httptest.NewRequest("POST", "/api/v1/digest", nil), slog.New(slog.NewTextHandler(&logs, nil)), tc.err)
			var body ErrorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != tc.status || !strings.Contains(body.Error, tc.says) {
				t.Errorf("%d %q (%v); want %d saying %q", rec.Code, rec.Body.String(), err, tc.status, tc.says)
			}
			if got := logs.Len() > 0; got != tc.logged {
				t.Errorf("logged = %v (%q), want %v", got, logs.String(), tc.logged)
			}
		})
	}
}
