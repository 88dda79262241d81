package api

import (
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// dashboard serves the built frontend under /dashboard/. A ?code= from a
// one-time sign-in link becomes an HttpOnly, SameSite=Strict session cookie
// (a random session id) and the code is dropped from the address.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	if code := r.URL.Query().Get("code"); code != "" {
		session := ""
		if s.cfg.Auth {
			session = s.signIn.redeem(code)
		}
		if !s.cfg.Auth || session != "" {
			if session != "" {
				http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: session, Path: "/",
					HttpOnly: true, SameSite: http.SameSiteStrictMode})
			}
			http.Redirect(w, r, "/dashboard/", http.StatusSeeOther)
			return nil
		}
		// A used or unknown code: serve the app, which explains how to
		// get a new link when the API answers 401.
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
