package engine

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/config"
	"hyatlas/backend/llm"
	"hyatlas/backend/memory"
)

// settingsAPI serves /api/v1/settings: what the window saved
// (settings.json in the config directory), what runs now, and which values
// the environment pins. New values apply when HyAtlas restarts.
type settingsAPI struct{ e *Engine }

// state is the settings' state with saved as the file's; next is what a
// start would apply, as config.LoadWithSettings does: without the saved
// settings it would ignore (listed in Ignored, with why).
func (s settingsAPI) state(saved map[string]string) api.SettingsState {
	getenv := os.Getenv
	next := map[string]string{}
	usable, ignored := config.UsableSettings(getenv, saved)
	if cfg, err := config.Load(config.Overlay(getenv, usable)); err == nil {
		next = config.Running(cfg)
	}
	running := config.Running(s.e.Config)
	restart := false
	for k, v := range next {
		if running[k] != v {
			restart = true
		}
	}
	keys := make([]string, len(config.Editable))
	for i, st := range config.Editable {
		keys[i] = st.Key
	}
	return api.SettingsState{Saved: saved, Next: next, Running: running, Pinned: nonNilStrings(config.Pinned(getenv)),
		Ignored: ignored, Keys: keys, RestartRequired: restart, CanRestart: s.e.quit.Load() != nil,
		KeyOnlyThisRun: s.e.x != nil && s.e.x.keys.Handed()}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Get is the settings' state now. A settings file that cannot be read (a
// hand edit gone wrong) is reported in FileError, as if empty: the start
// ignores it too, and a save replaces it.
func (s settingsAPI) Get() (api.SettingsState, error) {
	saved, err := config.ReadSettings(s.e.Config.Paths.Config)
	st := s.state(saved)
	if err != nil {
		st.FileError = err.Error() + "; it is ignored, and saving here replaces it (the old one is kept as " + unreadableSettings + ")"
	}
	return st, nil
}

// unreadableSettings is where a save moves a settings file it cannot read.
const unreadableSettings = config.SettingsFile + ".unreadable"

// Put merges values into the saved settings ("" removes one) after
// checking them all together; nothing is saved when one is invalid or
// pinned by the environment. A saved setting a start ignores (listed in
// the state's Ignored, shown in the window) is dropped by the save, which
// writes what the window shows: kept, it would refuse every save.
func (s settingsAPI) Put(values map[string]string) (api.SettingsState, error) {
	s.e.settingsMu.Lock() // two saves at once must not each drop the other's keys
	defer s.e.settingsMu.Unlock()
	dir := s.e.Config.Paths.Config
	saved, readErr := config.ReadSettings(dir)
	saved, _ = config.UsableSettings(os.Getenv, saved)
	pinned := map[string]bool{}
	for _, k := range config.Pinned(os.Getenv) {
		pinned[k] = true
	}
	for k := range values { // "" clears a setting, and only a setting
		if envName(k) == k {
			return api.SettingsState{}, memory.Errorf(memory.EINVALID, "%q is not a setting the window edits", k)
		}
	}
	for k, v := range values {
		if pinned[k] && strings.TrimSpace(v) != strings.TrimSpace(saved[k]) {
			return api.SettingsState{}, memory.Errorf(memory.EINVALID, "%s is set by the environment (%s); change it there", k, envName(k))
		}
		if strings.TrimSpace(v) == "" {
			delete(saved, k)
		} else {
			saved[k] = strings.TrimSpace(v)
		}
	}
	if err := config.CheckSettings(os.Getenv, saved); err != nil {
		return api.SettingsState{}, memory.Errorf(memory.EINVALID, "%v", err)
	}
	if readErr != nil { // kept beside, never lost: it was typed by hand
		file := filepath.Join(dir, config.SettingsFile)
		if err := os.Rename(file, filepath.Join(dir, unreadableSettings)); err != nil {
			return api.SettingsState{}, fmt.Errorf("%v, and it could not be moved aside: %w", readErr, err)
		}
	}
	if err := config.WriteSettings(dir, saved); err != nil {
		return api.SettingsState{}, err
	}
	return s.state(saved), nil
}

// envName is the environment variable of a setting the window edits, or
// key itself when it is none.
func envName(key string) string {
	for _, st := range config.Editable {
		if st.Key == key {
			return st.Env
		}
	}
	return key
}

// Test asks base for one short reply with model, using the stored key,
// and says how it went (the stored key only when base is the running or
// the saved endpoint). The call is in the egress ledger like any other.
func (s settingsAPI) Test(ctx context.Context, base, model string) (api.ConnectionTest, error) {
	base, model = strings.TrimSpace(base), strings.TrimSpace(model)
	if base == "" || model == "" {
		return api.ConnectionTest{}, memory.Errorf(memory.EBADREQUEST, "llm_base and llm_model are required")
	}
	if err := config.CheckEndpoint("llm_base", base); err != nil {
		return api.ConnectionTest{}, memory.Errorf(memory.EINVALID, "%v", err)
	}
	x := s.e.x
	// The key belongs to the endpoint the user chose: it goes to the one
	// running or the one saved in Settings, never to another address a
	// test names (a typo, or a stranger's host). Not a wall against a
	// token holder, who can save an endpoint first (see README, Privacy).
	key, withheld := x.key, !s.keyGoesTo(base)
	if withheld {
		key = nil
	}
	client := llm.New(llm.Config{
		Primary:     llm.Endpoint{Base: base, Model: model, Key: key},
		Timeout:     30 * time.Second,
		Retries:     -1,
		UserAgent:   "HyAtlas/" + Version + " (+connection test)",
		Ledger:      s.e.ledger,
		LedgerStart: s.e.ledgerStart,
		HTTPClient:  x.hc,
	})
	start := time.Now()
	reply, err := client.Complete(ctx, llm.Request{Purpose: "test", User: "Reply with the single word OK."})
	res := api.ConnectionTest{DurationMS: time.Since(start).Milliseconds(), Local: isLocal(base)}
	if err != nil {
		res.Error = err.Error()
		if withheld && !isLocal(base) {
			res.Error += " (your key was not sent: it goes only to the endpoint saved in Settings; save this one, then test again)"
		}
		k, _ := x.key(ctx)
		res.Hint = connectionHint(res.Error, base, res.Local, k != "" && !withheld)
		return res, nil
	}
	res.OK = true
	if r := []rune(strings.TrimSpace(reply)); len(r) > 80 {
		reply = string(r[:80]) + "…"
	}
	res.Reply = strings.TrimSpace(reply)
	return res, nil
}

// Restart asks the app to stop and start again (with the saved settings).
func (s settingsAPI) Restart() error {
	quit := s.e.quit.Load()
	if quit == nil {
		return memory.Errorf(memory.EUNAVAILABLE, "this HyAtlas cannot restart itself; quit and start it again")
	}
	s.e.restart.Store(true)
	go func() {
		time.Sleep(200 * time.Millisecond) // let the answer go out first
		(*quit)()
	}()
	return nil
}

// SetQuit sets what stops this instance the way its user would (the
// window's Quit, or the end of a headless serve); Restart needs it.
func (e *Engine) SetQuit(quit func()) {
	if quit == nil {
		e.quit.Store(nil)
		return
	}
	e.quit.Store(&quit)
}

// RestartRequested reports whether the instance stopped to restart.
func (e *Engine) RestartRequested() bool { return e.restart.Load() }

// restartState is embedded in Engine.
type restartState struct {
	quit    atomic.Pointer[func()]
	restart atomic.Bool
}

// keyGoesTo reports whether base is the running endpoint or the one saved
// in Settings (same scheme, host and port).
func (s settingsAPI) keyGoesTo(base string) bool {
	if llm.SameOrigin(base, s.e.Config.LLM.Base) {
		return true
	}
	saved, err := config.ReadSettings(s.e.Config.Paths.Config)
	if err != nil {
		return false
	}
	next := s.state(saved).Next
	return llm.SameOrigin(base, next["llm_base"])
}

// connectionHint says in plain words what a failed connection test most
// likely means and what to do (the error itself stays in Error).
func connectionHint(msg, base string, local, keySent bool) string {
	host := base
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		host = u.Host
	}
	has := func(parts ...string) bool {
		for _, p := range parts {
			if strings.Contains(msg, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("connection refused"):
		if local {
			return "Nothing answers at " + host + ": is the model server (Ollama, LM Studio, llama.cpp…) running?"
		}
		return "Nothing answers at " + host + ": check the address."
	case has("no such host", "server misbehaving", "name resolution"):
		return host + " cannot be found: check the address (or the network)."
	case has("HTTP 401", "HTTP 403"):
		if !keySent {
			// A local server may want one too (vLLM --api-key, llama-server).
			return "The endpoint wants a key, and none was sent to it: add it under Key below (after saving this endpoint)."
		}
		return "The endpoint refused the key: check it under Key below."
	case has("HTTP 404"):
		return "Nothing at that address, or no such model: the address usually ends in /v1; check the model's name."
	case has("HTTP 429"):
		return "The endpoint is limiting requests (or the account has no credit left): try again later."
	case has("deadline exceeded", "Timeout", "timeout", "timed out"):
		return "No answer within 30 seconds: the server may be busy loading the model; try again."
	}
	return ""
}
