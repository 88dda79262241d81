// Package api is the loopback HTTP API: one route table, one error writer,
// the guard and the bearer token, and the dashboard's static files.
//
// The same handlers are mounted twice: on the loopback listener behind the
// guard and the token (Handler), and inside the desktop window through the
// Wails asset server (InProcessHandler), where requests never touch the
// network.
package api

import (
	"context"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hyatlas/backend/memory"
)

// Config is the API's static configuration. All fields are required except
// Logger (default slog.Default) and Assets (nil serves a notice page).
type Config struct {
	BindHost     string   // the listen host, for the Host rule
	AllowedHosts []string // HYATLAS_ALLOWED_HOSTS
	Auth         bool     // require the token on /api/*
	Token        string
	// TokenDir holds the token file, which the server follows: a token
	// written there later (hyatlas token --new) replaces Token at the next
	// request. Empty: Token is fixed.
	TokenDir    string
	Version     string
	DataDir     string
	LLMBase     string
	LLMModel    string
	ExtractSync bool
	Started     time.Time
	Logger      *slog.Logger
	Assets      fs.FS // the built frontend (index.html at its root)
	// Subscribe opens a subscription to live events (nil: the event
	// stream answers 503).
	Subscribe func(buffer int) (<-chan memory.Event, func())
	// Models manages downloadable models (nil: those endpoints answer 503).
	Models Models
	// Keys manages the extraction key (nil: those endpoints answer 503).
	Keys Keys
	// Autostart is launch at login (nil: those endpoints answer 503).
	Autostart Autostart
	// Snapshots makes, verifies, restores and deletes snapshots (nil:
	// those endpoints answer 503).
	Snapshots Snapshots
	// Digest runs a consolidation pass detached from the request (nil:
	// /api/v1/digest answers that no pass can run).
	Digest func(context.Context) (memory.ConsolidationReport, error)
	// Hermes connects the Hermes agent (nil: /api/v1/hermes answers 503).
	Hermes Hermes
	// Address is the http:// address agents reach this server at (nil or
	// "": unknown), shown in the window, whose own pages come from elsewhere.
	Address func() string
	// SignIns keeps dashboard sessions; one that outlives this server
	// keeps them across a restart in the same process (nil: the server's own).
	SignIns *SignIns
	// Settings edits the saved settings (nil: /api/v1/settings answers 503).
	Settings Settings
}

// Server holds the API's dependencies.
type Server struct {
	cfg     Config
	mem     *memory.Service
	flush   func(context.Context) error
	guard   guard
	signIn  *SignIns
	readyAt atomic.Int64 // when /readyz last passed (Unix nanoseconds), see readyCache
	tokens  *tokenSource
	mux     *http.ServeMux
	log     *slog.Logger

	stopping chan struct{} // closed by Stop: long-lived streams end
	stopOnce sync.Once
	streams  atomic.Int32           // open event streams, at most maxStreams
	window   atomic.Pointer[func()] // shows the desktop window; nil when headless
	files    windowFiles            // the window's file dialogs (export, import)
}

// SetWindow sets what shows the desktop window (nil: there is none, the
// instance is headless). A second launch of the app calls it through
// POST /api/v1/window/show.
func (s *Server) SetWindow(show func()) {
	if show == nil {
		s.window.Store(nil)
		return
	}
	s.window.Store(&show)
}

// showWindow brings the desktop window to the front.
func (s *Server) showWindow(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err // a junk body is refused, not ignored
	}
	show := s.window.Load()
	if show == nil {
		return memory.Errorf(memory.ECONFLICT, "this HyAtlas runs without a window; the dashboard is at /dashboard/")
	}
	(*show)()
	writeJSON(w, http.StatusOK, map[string]bool{"shown": true})
	return nil
}

// New builds the API over a memory service. flush is called by
// POST /api/v1/flush to finish in-flight work and write state.
func New(cfg Config, mem *memory.Service, flush func(context.Context) error) *Server {
	s := &Server{cfg: cfg, mem: mem, flush: flush, log: cfg.Logger, stopping: make(chan struct{}),
		tokens: &tokenSource{dir: cfg.TokenDir, tok: cfg.Token}, signIn: cfg.SignIns}
	if s.signIn == nil {
		s.signIn = &SignIns{}
	}
	s.signIn.under(cfg.Token)
	if s.log == nil {
		s.log = slog.Default()
	}
	s.guard = guard{bindIP: net.ParseIP(strings.Trim(cfg.BindHost, "[]")), allowed: cfg.AllowedHosts}
	s.mux = http.NewServeMux()
	s.register()
	return s
}

// handlerFunc is a handler that returns its error instead of writing it.
type handlerFunc func(http.ResponseWriter, *http.Request) error

// Handler serves the network listener: guard, body limit, token, routes.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, false)
	})
}

// InProcessHandler serves requests that come from the desktop window
// through the Wails asset server: they are in-process, so the guard and the
// token do not apply; the body limit does.
func (s *Server) InProcessHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, true)
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, inProcess bool) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler { // a deliberate abort: net/http breaks the connection
				panic(p)
			}
			s.log.Error("handler panic", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			writeError(w, r, nil, memory.Errorf(memory.EINTERNAL, "internal error"))
		}
	}()
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	if inProcess {
		r = r.WithContext(context.WithValue(r.Context(), inProcessKey{}, true))
	} else {
		if err := s.guard.check(r); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	if err := limitBody(w, r); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if !inProcess && strings.HasPrefix(r.URL.Path, "/api/") && !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="hyatlas"`)
		writeError(w, r, s.log, memory.Errorf(codeUnauthorized,
			"missing or wrong token: send Authorization: Bearer <token> (hyatlas token prints it)"))
		return
	}
	s.noteHermes(r)
	s.mux.ServeHTTP(w, r)
}

// inProcessKey marks a request's context as coming from the desktop window.
type inProcessKey struct{}

func inProcess(r *http.Request) bool {
	v, _ := r.Context().Value(inProcessKey{}).(bool)
	return v
}

// authorized accepts the bearer token from any client, and a dashboard
// session (its header) only on a same-origin request. The session is not
// a cookie: cookies ignore ports, so a page on another local port would
// be sent it and could replay it.
func (s *Server) authorized(r *http.Request) bool {
	if !s.cfg.Auth {
		return true
	}
	current := s.currentToken() // first: a new token file ends the sessions
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		return ok && strings.EqualFold(scheme, "Bearer") && tokenEqual(strings.TrimSpace(tok), current)
	}
	id := r.Header.Get(SessionHeader)
	return id != "" && sameOrigin(r) && s.signIn.validSession(id)
}

// currentToken is the API token in force. When the token file changed
// (a new token made outside the server), every dashboard session ends: a
// new token is made because the old one may have leaked, and a session
// may have been opened with it.
func (s *Server) currentToken() string {
	tok, changed := s.tokens.current()
	if changed {
		s.signIn.endSessions("", tok)
		s.log.Info("the API token file changed: the new token is in force, dashboard sessions ended")
	}
	return tok
}

// sameOrigin reports whether a request did not come from another origin:
// no Origin or our own, and no Sec-Fetch-Site other than same-origin/none.
func sameOrigin(r *http.Request) bool {
	switch strings.ToLower(r.Header.Get("Sec-Fetch-Site")) {
	case "", "same-origin", "none":
	default:
		return false
	}
	origin := r.Header.Get("Origin")
	return origin == "" || strings.EqualFold(origin, "http://"+r.Host) || strings.EqualFold(origin, "https://"+r.Host)
}

// Stop ends long-lived responses (event streams), so that an HTTP server's
// Shutdown, which waits for every handler, can finish. Safe to call twice.
func (s *Server) Stop() { s.stopOnce.Do(func() { close(s.stopping) }) }

// DashboardURL returns a one-time sign-in link to the browser dashboard for
// a server reachable at base (e.g. http://127.0.0.1:19528).
func (s *Server) DashboardURL(base string) string {
	if !s.cfg.Auth {
		return base + "/dashboard/"
	}
	return base + "/dashboard/?code=" + s.signIn.issueCode("")
}
