package engine

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
	"hyatlas/backend/models"
)

// installStall cancels a download that has made no progress for this long
// (the connection hangs); the partial file stays for a later resume.
const installStall = 2 * time.Minute

// modelController installs and removes models for the API and the CLI,
// one install per model at a time, in the background, reporting progress
// as model.progress events. Installing BGE switches the embedder to it
// (unless HYATLAS_EMBED_BASE pins another), which starts a re-embed.
type modelController struct {
	e   *Engine
	mgr *models.Manager

	mu       sync.Mutex
	progress map[string]*api.ModelProgress // installs under way
	cancels  map[string]context.CancelCauseFunc
	early    map[string]bool // cancelled before its download began
	lastErr  map[string]string
}

func newModelController(e *Engine, dir, baseURL string, catalog []models.Model) *modelController {
	client := &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		ResponseHeaderTimeout: 60 * time.Second,
		TLSHandshakeTimeout:   30 * time.Second,
		IdleConnTimeout:       90 * time.Second,
	}}
	return &modelController{e: e, mgr: &models.Manager{Dir: dir, BaseURL: baseURL, Client: client, Catalog: catalog},
		progress: map[string]*api.ModelProgress{}, cancels: map[string]context.CancelCauseFunc{}, early: map[string]bool{},
		lastErr: map[string]string{}}
}

// List implements api.Models.
func (c *modelController) List() ([]api.ModelInfo, error) {
	list, err := c.mgr.List()
	if err != nil {
		return nil, err
	}
	active := c.e.Memory.EmbedderInfo().ID
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]api.ModelInfo, len(list))
	for i, m := range list {
		var size int64
		for _, f := range m.Files {
			size += f.Size
		}
		out[i] = api.ModelInfo{Name: m.Name, Title: m.Title, Description: m.Description, License: m.License,
			Dims: m.Dims, Size: size, Installed: m.Installed, Error: c.lastErr[m.Name],
			Active: m.Name == bgeModel && active == c.e.embedders.bgeID()}
		if p, ok := c.progress[m.Name]; ok {
			cp := *p
			out[i].Installing, out[i].Progress = true, &cp
		}
	}
	return out, nil
}

// Install implements api.Models: it starts the download and returns.
func (c *modelController) Install(name string) error {
	if _, err := c.find(name); err != nil {
		return err
	}
	if c.e.ctx.Err() != nil {
		return memory.Errorf(memory.EUNAVAILABLE, "HyAtlas is stopping")
	}
	c.mu.Lock()
	if _, busy := c.progress[name]; busy {
		c.mu.Unlock()
		return memory.Errorf(memory.ECONFLICT, "%s is already being installed", name)
	}
	c.progress[name] = &api.ModelProgress{Phase: "starting"}
	delete(c.lastErr, name)
	c.mu.Unlock()
	c.e.background(func(ctx context.Context) { c.install(ctx, name) })
	return nil
}

func (c *modelController) install(ctx context.Context, name string) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c.mu.Lock()
	c.cancels[name] = cancel
	if c.early[name] {
		delete(c.early, name)
		cancel(errCancelled)
	}
	c.mu.Unlock()
	last := make(chan struct{}, 1)
	go c.watchdog(ctx, cancel, last)
	err := c.mgr.Install(ctx, name, func(p models.Progress) {
		select {
		case last <- struct{}{}:
		default:
		}
		c.mu.Lock()
		c.progress[name] = &api.ModelProgress{File: p.File, Done: p.Done, Total: p.Total, Phase: string(p.Phase)}
		c.mu.Unlock()
		c.e.publish("model.progress", map[string]any{"name": name, "file": p.File, "done": p.Done,
			"total": p.Total, "phase": p.Phase})
	})
	cause := context.Cause(ctx)
	if errors.Is(cause, errStalled) {
		err = errors.Join(err, cause)
	}
	byUser := err != nil && errors.Is(cause, errCancelled)
	c.mu.Lock()
	delete(c.progress, name)
	delete(c.cancels, name)
	if err != nil && !byUser {
		c.lastErr[name] = memory.ErrorMessage(err)
	}
	c.mu.Unlock()
	if byUser { // asked for: no failure to report
		c.e.log.Info("model install cancelled", "model", name)
		c.e.publish("model.cancelled", map[string]any{"name": name})
		return
	}
	if err != nil {
		c.e.log.Warn("model install failed", "model", name, "err", err)
		c.e.publish("model.failed", map[string]any{"name": name, "error": memory.ErrorMessage(err)})
		return
	}
	c.e.log.Info("model installed", "model", name)
	c.e.publish("model.installed", map[string]any{"name": name})
	if name == bgeModel {
		// Not ctx: its stall watchdog knows nothing of the switch.
		if err := c.e.switchEmbedder(c.e.ctx); err != nil {
			c.e.log.Error("switching to the installed model failed", "model", name, "err", err)
		}
	}
}

var (
	errStalled   = errors.New("the download made no progress for 2 minutes")
	errCancelled = errors.New("cancelled by the user")
)

// Cancel implements api.Models.
func (c *modelController) Cancel(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, busy := c.progress[name]; !busy {
		return memory.Errorf(memory.ECONFLICT, "no install of %s is under way", name)
	}
	if cancel := c.cancels[name]; cancel != nil {
		cancel(errCancelled)
	} else {
		c.early[name] = true // not begun yet: it stops before its first request
	}
	return nil
}

// watchdog cancels the install when no progress arrives for installStall.
func (c *modelController) watchdog(ctx context.Context, cancel context.CancelCauseFunc, tick <-chan struct{}) {
	t := time.NewTimer(installStall)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			t.Reset(installStall)
		case <-t.C:
			cancel(errStalled)
			return
		}
	}
}

// Verify implements api.Models.
func (c *modelController) Verify(name string) error {
	if _, err := c.find(name); err != nil {
		return err
	}
	return c.mgr.Verify(name)
}

// Remove implements api.Models. Removing the model in use first switches
// back to GloVe (and re-embeds).
func (c *modelController) Remove(name string) (bool, error) {
	if _, err := c.find(name); err != nil {
		return false, err
	}
	removed, err := c.mgr.Remove(name)
	if err != nil {
		return false, err
	}
	if name == bgeModel && c.e.Memory.EmbedderInfo().ID == c.e.embedders.bgeID() {
		return removed, c.e.switchEmbedder(context.Background())
	}
	return removed, nil
}

func (c *modelController) find(name string) (models.Status, error) {
	list, err := c.mgr.List()
	if err != nil {
		return models.Status{}, err
	}
	for _, m := range list {
		if m.Name == name {
			return m, nil
		}
	}
	return models.Status{}, memory.Errorf(memory.ENOTFOUND, "no model named %q", name)
}
