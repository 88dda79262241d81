package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"path"
	"path/filepath"
	"strings"

	"hyatlas/backend/atomicfile"
	"hyatlas/backend/memory"
)

// dashboard serves the built frontend under /dashboard/. The page trades
// a ?code= from a one-time sign-in link for a session (POST
// /dashboard/session), keeps it in the page's own storage (which, unlike
// a cookie, no other port of this host sees) and drops the code from the
// address.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	if code := r.URL.Query().Get("code"); code != "" && !s.cfg.Auth {
		http.Redirect(w, r, "/dashboard/", http.StatusSeeOther) // nothing to sign in to
		return nil
	}
	if s.cfg.Assets == nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, err := w.Write([]byte(noFrontendPage))
		return err
	}
	name := strings.TrimPrefix(path.Clean(r.URL.Path), "/dashboard")
	name = strings.TrimPrefix(name, "/")
	if name == "" {
		name = "index.html"
	}
	if fi, err := fs.Stat(s.cfg.Assets, name); errors.Is(err, fs.ErrNotExist) || (err == nil && fi.IsDir()) {
		name = "index.html" // client-side routes; never list a directory
	}
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'")
	http.ServeFileFS(w, r, s.cfg.Assets, name)
	return nil
}

const noFrontendPage = `<!doctype html><meta charset="utf-8"><title>HyAtlas</title>
<p>The dashboard was not built into this binary. Run <code>make build</code> (it builds the frontend first), or use the API at <code>/api/v1/</code>.</p>`

// SessionHeader carries a dashboard session id (never the API token).
const SessionHeader = "X-HyAtlas-Session"

// signInRequest is the body of POST /dashboard/session.
type signInRequest struct {
	Code string `json:"code"`
}

// session trades a one-time sign-in code for a dashboard session id. It
// is outside /api/ (no token: the code is the credential) and behind the
// Host/Origin guard like every route.
func (s *Server) session(w http.ResponseWriter, r *http.Request) error {
	var in signInRequest
	if err := decodeJSON(r, &in, false, true); err != nil {
		return err
	}
	if strings.TrimSpace(in.Code) == "" {
		return memory.Errorf(memory.EBADREQUEST, "code required")
	}
	if !s.cfg.Auth {
		writeJSON(w, http.StatusOK, map[string]string{"session": ""})
		return nil
	}
	id := s.signIn.redeem(in.Code)
	if id == "" {
		return memory.Errorf(codeUnauthorized, "this sign-in link was used already or is unknown: run `hyatlas dashboard` for a new one")
	}
	writeJSON(w, http.StatusOK, map[string]string{"session": id})
	return nil
}

// SignInPagePrefix starts the name of every page SignInPage writes.
const SignInPagePrefix = "hyatlas-sign-in-"

// SignInPage writes, in dir, a page (mode 0600) that takes the browser on
// to a new one-time sign-in link to the dashboard of the server at base,
// and returns its path. A program that opens the dashboard for the person
// (the tray's item, through xdg-open and the browser) is given this path,
// not the link: a command line is readable by every user of the machine,
// and whoever redeems a sign-in code first gets the session it opens.
// The page is removed once its code is used, stale (CodeTTL), ended by a
// new token, or HyAtlas stops (SignIns.ForgetCodes). Without sign-in
// (auth off) there is nothing to hide: it returns "" and the caller opens
// DashboardURL.
func (s *Server) SignInPage(dir, base string) (string, error) {
	if !s.cfg.Auth {
		return "", nil
	}
	file := filepath.Join(dir, SignInPagePrefix+randomHex(4)+".html")
	link := base + "/dashboard/?code=" + s.signIn.issueCode(file)
	js, err := json.Marshal(link)
	if err != nil {
		return "", fmt.Errorf("sign-in page: %w", err)
	}
	page := fmt.Sprintf(`<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">`+
		`<meta http-equiv="refresh" content="0;url=%s"><title>HyAtlas</title>`+
		`<script>location.replace(%s)</script><p><a href="%s">Open the HyAtlas dashboard</a></p>`+"\n",
		html.EscapeString(link), js, html.EscapeString(link))
	if err := atomicfile.Write(file, []byte(page), 0o600); err != nil {
		return "", fmt.Errorf("sign-in page: %w", err)
	}
	s.signIn.sweepLater()
	return file, nil
}

// ForgetSignIns drops the unused sign-in codes and their pages (see
// SignInPage); for HyAtlas's stop.
func (s *Server) ForgetSignIns() { s.signIn.ForgetCodes() }
