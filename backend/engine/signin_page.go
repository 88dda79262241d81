package engine

import (
	"fmt"
	"os"
)

// SignInPage writes a page that takes a browser on to a new one-time
// sign-in link to this instance's dashboard, and returns its path (see
// api.Server.SignInPage): in the user's runtime folder (XDG_RUNTIME_DIR,
// theirs alone) when there is one, else in the config folder.
func (e *Engine) SignInPage() (string, error) {
	base := e.BaseURL()
	if base == "" {
		return "", fmt.Errorf("sign-in page: HyAtlas is not listening")
	}
	dir := e.Config.Paths.Config
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		if fi, err := os.Stat(rt); err == nil && fi.IsDir() {
			dir = rt
		}
	}
	return e.API.SignInPage(dir, base)
}
