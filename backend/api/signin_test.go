package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"hyatlas/backend/api"
)

// A dashboard sign-in link works once and only for CodeTTL: a link
// printed to a log or shown on a browser's command line is not a standing
// credential.
func TestSignInCodeExpires(t *testing.T) {
	tests := []struct {
		after time.Duration
		works bool
	}{
		{0, true},
		{api.CodeTTL - time.Second, true},
		{api.CodeTTL, false},
		{24 * time.Hour, false},
	}
	for _, tc := range tests {
		t.Run(tc.after.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := api.New(api.Config{BindHost: "127.0.0.1", Auth: true, Token: testToken, SignIns: &api.SignIns{}}, nil, nil)
				link := s.DashboardURL("http://127.0.0.1:19528")
				code := link[strings.Index(link, "code=")+len("code="):]
				time.Sleep(tc.after)
				redeem := func() int {
					rec := httptest.NewRecorder()
					r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:19528/dashboard/session", strings.NewReader(`{"code":"`+code+`"}`))
					r.Header.Set("Content-Type", "application/json")
					s.Handler().ServeHTTP(rec, r)
					return rec.Code
				}
				if got := redeem(); (got == http.StatusOK) != tc.works {
					t.Fatalf("a code %v old: %d, works %v", tc.after, got, tc.works)
				}
				if got := redeem(); got == http.StatusOK {
					t.Fatal("a code worked twice")
				}
			})
		})
	}
}
