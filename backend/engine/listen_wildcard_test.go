package engine

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hyatlas/backend/api/client"
)

// TestListen_AWildcardBindIsReachedOnLoopback: bound to every interface
// (HYATLAS_GO_HOST=0.0.0.0 or ::), the address HyAtlas prints, reports and
// signs in at is one this machine can browse to and the Host guard takes.
func TestListen_AWildcardBindIsReachedOnLoopback(t *testing.T) {
	for _, host := range []string{"0.0.0.0", "::"} {
		t.Run(host, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.Host = host
			eng, err := Open(context.Background(), cfg, quiet())
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			if _, err := eng.Listen(); err != nil {
				if host == "::" { // a machine without IPv6
					t.Skipf("cannot listen on [::]: %v", err)
				}
				t.Fatal(err)
			}
			base := eng.BaseURL()
			if !strings.HasPrefix(base, "http://127.0.0.1:") {
				t.Fatalf("BaseURL = %q, want a loopback address", base)
			}
			if st, err := client.New(base, eng.Token).Status(context.Background()); err != nil || st.Address != base {
				t.Errorf("status address %q (%v), want %s", st.Address, err, base)
			}
			link, err := url.Parse(eng.API.DashboardURL(base))
			if err != nil {
				t.Fatal(err)
			}
			res, err := http.Post(base+"/dashboard/session", "application/json", strings.NewReader(`{"code":"`+link.Query().Get("code")+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Errorf("signing in with the printed link: HTTP %d", res.StatusCode)
			}
		})
	}
}
