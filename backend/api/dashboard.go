package api

import (
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strings"

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
