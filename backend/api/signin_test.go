package api_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
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

// The page the tray opens in the browser carries a working one-time link
// and is the user's alone (0600); its path, which goes on the opener's
// command line, carries no code; and it goes once its code is used,
// stale, or HyAtlas stops, so no page outlives its code.
func TestSignInPage(t *testing.T) {
	base := "http://127.0.0.1:19528"
	redeem := func(s *api.Server, code string) int {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, base+"/dashboard/session", strings.NewReader(`{"code":"`+code+`"}`))
		r.Header.Set("Content-Type", "application/json")
		s.Handler().ServeHTTP(rec, r)
		return rec.Code
	}
	tests := []struct {
		name   string
		end    func(t *testing.T, s *api.Server, code string)
		worked bool // the code was redeemed
	}{
		{"used", func(t *testing.T, s *api.Server, code string) {
			if got := redeem(s, code); got != http.StatusOK {
				t.Fatalf("the page's code: %d", got)
			}
		}, true},
		{"stale", func(t *testing.T, s *api.Server, code string) {
			time.Sleep(api.CodeTTL + 2*time.Second)
			synctest.Wait()
		}, false},
		{"HyAtlas stops", func(t *testing.T, s *api.Server, code string) { s.ForgetSignIns() }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				s := api.New(api.Config{BindHost: "127.0.0.1", Auth: true, Token: testToken, SignIns: &api.SignIns{}}, nil, nil)
				page, err := s.SignInPage(dir, base)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(page, "code") || filepath.Dir(page) != dir || !strings.HasPrefix(filepath.Base(page), api.SignInPagePrefix) {
					t.Errorf("page path %q", page)
				}
				fi, err := os.Stat(page)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("page mode %v %v, want 0600", fi, err)
				}
				b, _ := os.ReadFile(page)
				m := regexp.MustCompile(`location\.replace\("http://127\.0\.0\.1:19528/dashboard/\?code=([0-9a-f]+)"\)`).FindSubmatch(b)
				if m == nil {
					t.Fatalf("no sign-in link in the page:\n%s", b)
				}
				tc.end(t, s, string(m[1]))
				if _, err := os.Stat(page); !os.IsNotExist(err) {
					t.Errorf("the page is still there (%v)", err)
				}
				if !tc.worked && redeem(s, string(m[1])) == http.StatusOK {
					t.Error("a code whose page went still works")
				}
			})
		})
	}
	open := api.New(api.Config{BindHost: "127.0.0.1", Auth: false, Token: testToken, SignIns: &api.SignIns{}}, nil, nil)
	if page, err := open.SignInPage(t.TempDir(), base); page != "" || err != nil {
		t.Errorf("without sign-in: page %q, %v (want none: the address holds no secret)", page, err)
	}
}
