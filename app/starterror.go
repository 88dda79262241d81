package app

import (
	"context"
	"html/template"
	"net/http"
	"sync"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// StartErrorTitle is the title of the window that says HyAtlas could not
// start.
const StartErrorTitle = "HyAtlas could not start"

// ShowStartError shows why HyAtlas could not start (message, for a
// person) in a small window of its own, and returns when the user closes
// it: someone who launched the app from a menu reads no terminal. The
// window offers to copy the message and to quit; Escape quits too.
func ShowStartError(message string, icon []byte) error {
	var (
		mu     sync.Mutex
		appCtx context.Context
	)
	withApp := func(f func(context.Context)) {
		mu.Lock()
		ctx := appCtx
		mu.Unlock()
		if ctx != nil {
			f(ctx)
		}
	}
	return wails.Run(&options.App{
		Title:     StartErrorTitle,
		Width:     600,
		Height:    340,
		MinWidth:  360,
		MinHeight: 240,
		AssetServer: &assetserver.Options{Handler: startErrorHandler(message,
			func() { withApp(func(ctx context.Context) { runtime.Quit(ctx) }) },
			func() { withApp(func(ctx context.Context) { _ = runtime.ClipboardSetText(ctx, message) }) },
		)},
		BackgroundColour: options.NewRGB(250, 250, 250),
		OnStartup: func(ctx context.Context) {
			mu.Lock()
			appCtx = ctx
			mu.Unlock()
		},
		OnDomReady: func(context.Context) { runtime.ResetSignalHandlers() },
		Linux:      &linux.Options{ProgramName: "hyatlas", Icon: icon},
	})
}

// startErrorHandler serves the error page and its two actions: POST
// /quit and POST /copy.
func startErrorHandler(message string, quit, copyMessage func()) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /quit", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
		go quit() // after the reply: the page must not wait on its own window
	})
	mux.HandleFunc("POST /copy", func(w http.ResponseWriter, _ *http.Request) {
		copyMessage()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'")
		_ = startErrorPage.Execute(w, struct{ Title, Message string }{StartErrorTitle, message})
	})
	return mux
}

// startErrorPage is the page: the message, selectable, and two buttons.
// It needs nothing from the built frontend, which may be what is missing.
var startErrorPage = template.Must(template.New("start-error").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; padding: 1.25rem 1.5rem; color: #1d1d1f; background: #fafafa; }
  h1 { font-size: 1.15rem; margin: 0 0 0.75rem; }
  #message { white-space: pre-wrap; overflow-wrap: anywhere; user-select: text; background: #fff; border: 1px solid #d0d0d7;
    border-radius: 6px; padding: 0.6rem 0.75rem; max-height: 45vh; overflow: auto; margin: 0 0 0.75rem; font: inherit; }
  p { margin: 0 0 1rem; color: #4a4a55; }
  .actions { display: flex; gap: 0.5rem; flex-wrap: wrap; }
  button { font: inherit; padding: 0.4rem 1rem; border-radius: 6px; border: 1px solid #8a8a99; background: #fff; cursor: pointer; }
  button.primary { background: #2f5fd0; border-color: #2f5fd0; color: #fff; }
  button:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
  #copied { color: #2b6b2b; align-self: center; }
  @media (prefers-color-scheme: dark) {
    body { color: #e6e6ea; background: #1b1d22; }
    #message { background: #24272e; border-color: #3c4049; }
    p { color: #b4b7c0; }
    button { background: #2a2d34; color: #e6e6ea; border-color: #5a5e69; }
    button.primary { background: #3f6fe0; border-color: #3f6fe0; color: #fff; }
    #copied { color: #7fcf7f; }
  }
</style>
</head>
<body>
<main role="alertdialog" aria-labelledby="title" aria-describedby="message">
  <h1 id="title">{{.Title}}</h1>
  <pre id="message" tabindex="0">{{.Message}}</pre>
  <p>Fix the cause and start HyAtlas again. Running <code>hyatlas</code> in a terminal prints the same message.</p>
  <div class="actions">
    <button class="primary" id="quit" aria-describedby="message" autofocus>Quit</button>
    <button id="copy">Copy the message</button>
    <span id="copied" aria-live="polite"></span>
  </div>
</main>
<script>
  const post = (path) => fetch(path, { method: 'POST' });
  document.getElementById('quit').addEventListener('click', () => post('/quit'));
  document.getElementById('copy').addEventListener('click', async () => {
    await post('/copy');
    document.getElementById('copied').textContent = 'Copied.';
  });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') post('/quit'); });
  document.getElementById('quit').focus();
</script>
</body>
</html>
`))
