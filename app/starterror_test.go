package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The start error page shows the message as text (never as markup: it
// may hold a path or a setting's value) and its buttons reach Go.
func TestStartErrorHandler(t *testing.T) {
	quit, copied := make(chan struct{}, 4), make(chan struct{}, 4)
	h := startErrorHandler(`open store: mkdir /home/<b>x</b>: not a directory`,
		func() { quit <- struct{}{} }, func() { copied <- struct{}{} })
	serve := func(method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	page := serve("GET", "/")
	body := page.Body.String()
	if page.Code != http.StatusOK || !strings.Contains(body, "mkdir /home/&lt;b&gt;x&lt;/b&gt;: not a directory") ||
		strings.Contains(body, "<b>x</b>") || !strings.Contains(body, StartErrorTitle) {
		t.Fatalf("page %d:\n%s", page.Code, body)
	}
	// A screen reader says why when the focus lands on Quit: the page is an
	// alert dialog described by the message, and so is Quit.
	if !strings.Contains(body, `role="alertdialog"`) || strings.Count(body, `aria-describedby="message"`) != 2 {
		t.Errorf("the page does not tie the message to the dialog and to Quit:\n%s", body)
	}
	if !strings.Contains(page.Header().Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("no content security policy: %q", page.Header())
	}
	tests := []struct {
		method, path string
		code         int
		acts         chan struct{} // the action it must run, or nil
	}{
		{"POST", "/copy", http.StatusNoContent, copied},
		{"GET", "/quit", http.StatusMethodNotAllowed, nil},
		{"GET", "/elsewhere", http.StatusNotFound, nil},
		{"POST", "/quit", http.StatusNoContent, quit},
	}
	for _, tc := range tests {
		if rec := serve(tc.method, tc.path); rec.Code != tc.code {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, rec.Code, tc.code)
		}
		if tc.acts != nil {
			select {
			case <-tc.acts:
			case <-time.After(10 * time.Second):
				t.Errorf("%s %s did not act", tc.method, tc.path)
			}
		}
		if len(quit)+len(copied) != 0 {
			t.Errorf("%s %s ran another action", tc.method, tc.path)
		}
	}
}
