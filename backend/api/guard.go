package api

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"hyatlas/backend/memory"
)

// MaxBodyBytes is the largest request body accepted (8 MiB).
const MaxBodyBytes = 8 << 20

// guard refuses requests a web page could make on a user's behalf, on
// every route (/healthz included):
//
//   - Host must be localhost, a loopback IP, the bind IP, or a name in
//     HYATLAS_ALLOWED_HOSTS: this stops DNS rebinding;
//   - Origin, when present, must be http(s) and loopback, the request's
//     own origin, or allowlisted; "null" and other schemes are refused;
//   - Sec-Fetch-Site: cross-site is refused, but for a browser opening the
//     dashboard's page itself (openingDashboard): the tray's sign-in page
//     is a local file, and leaving it is a cross-site navigation.
//
// Clients that send no Origin (curl, agents) pass the Origin rule.
type guard struct {
	bindIP  net.IP
	allowed []string
}

func (g guard) check(r *http.Request) error {
	host := hostOnly(r.Host)
	if !g.hostAllowed(host) {
		return memory.Errorf(codeRefused, "non-local Host %q refused (add it to HYATLAS_ALLOWED_HOSTS to allow it)", host)
	}
	if strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site") && !openingDashboard(r) {
		return memory.Errorf(codeRefused, "cross-site request refused")
	}
	if origin, ok := r.Header["Origin"]; ok {
		o := strings.Join(origin, "")
		if !g.originAllowed(o, r.Host) {
			return memory.Errorf(codeRefused, "cross-origin request refused")
		}
		// A page may send a "simple" cross-origin POST (text/plain, form)
		// without asking first; a JSON one needs a preflight, which this
		// server never grants. So a write from another origin must be JSON.
		if !sameOriginURL(o, r.Host) && r.Method != http.MethodGet && r.Method != http.MethodHead &&
			!isJSON(r.Header.Get("Content-Type")) {
			return memory.Errorf(codeRefused, "a write from another origin must be sent as application/json")
		}
	}
	return nil
}

// openingDashboard reports whether r is a browser loading the dashboard's
// page as the top-level document (a link followed, a page left for it):
// a GET of its static files, which hold nothing secret, cannot write, and
// may not be framed (frame-ancestors 'none'); the sign-in exchange and
// every API call stay same-origin only.
func openingDashboard(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if (r.URL.Path != "/dashboard" && !strings.HasPrefix(r.URL.Path, "/dashboard/")) || r.URL.Path == "/dashboard/session" {
		return false
	}
	return strings.EqualFold(r.Header.Get("Sec-Fetch-Mode"), "navigate") &&
		strings.EqualFold(r.Header.Get("Sec-Fetch-Dest"), "document")
}

func sameOriginURL(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, host)
}

func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

func (g guard) hostAllowed(host string) bool {
	if host == "" || host == "localhost" || slices.Contains(g.allowed, host) {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	return ip.IsLoopback() || (g.bindIP != nil && !g.bindIP.IsUnspecified() && ip.Equal(g.bindIP))
}

func (g guard) originAllowed(origin, requestHost string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // covers "null", file:, chrome-extension:, ...
	}
	if strings.EqualFold(u.Host, requestHost) {
		return true // same origin
	}
	host := hostOnly(u.Host)
	if host == "localhost" || slices.Contains(g.allowed, host) {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostOnly strips the port and IPv6 brackets and lower-cases a host.
func hostOnly(hostport string) string {
	h := strings.ToLower(strings.TrimSpace(hostport))
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.TrimSuffix(strings.Trim(h, "[]"), ".")
}

// limitBody answers 413 at once for a declared body over the limit and
// caps the rest, so a handler's decode fails with a MaxBytesError.
// An import (POST /api/v1/import) may be as large as MaxImportBytes.
func limitBody(w http.ResponseWriter, r *http.Request) error {
	limit := int64(MaxBodyBytes)
	if r.URL.Path == importPath {
		limit = MaxImportBytes
	}
	if r.ContentLength > limit {
		return tooLarge(r, limit)
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
	}
	return nil
}

// tooLarge is the refusal of a body over limit: for an import, in words a
// person reads (the page shows it); for the rest, the contract's bytes.
func tooLarge(r *http.Request, limit int64) error {
	if r.URL.Path == importPath {
		return importTooLarge()
	}
	return memory.Errorf(codeTooLarge, "body is larger than %d bytes", limit)
}

// importTooLarge refuses an export over MaxImportBytes.
func importTooLarge() error {
	return memory.Errorf(codeTooLarge, "the file is larger than %d GiB, the most HyAtlas imports: nothing was imported", MaxImportBytes>>30)
}

// MaxImportBytes is the largest import accepted (4 GiB: a million
// memories with their vectors).
const MaxImportBytes = 4 << 30

const importPath = "/api/v1/import"
