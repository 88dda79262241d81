package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
)

// Models lists the downloadable models.
func (c *Client) Models(ctx context.Context) ([]api.ModelInfo, error) {
	var out struct {
		Models []api.ModelInfo `json:"models"`
	}
	return out.Models, c.Do(ctx, "GET", "/api/v1/models", nil, &out)
}

// InstallModel starts installing a model; follow it with Events.
func (c *Client) InstallModel(ctx context.Context, name string) error {
	return c.Do(ctx, "POST", "/api/v1/models/"+url.PathEscape(name)+"/install", nil, nil)
}

// VerifyModel re-checks an installed model's files.
func (c *Client) VerifyModel(ctx context.Context, name string) error {
	return c.Do(ctx, "POST", "/api/v1/models/"+url.PathEscape(name)+"/verify", nil, nil)
}

// RemoveModel deletes a model's files; removed is false when it was not installed.
func (c *Client) RemoveModel(ctx context.Context, name string) (removed bool, err error) {
	var out struct {
		Removed bool `json:"removed"` // false: it was not installed
	}
	err = c.Do(ctx, "DELETE", "/api/v1/models/"+url.PathEscape(name), nil, &out)
	return out.Removed, err
}

// Events streams live events whose type starts with one of the prefixes
// (all when none), calling fn for each until fn returns false, ctx ends or
// the stream closes. opened (may be nil) is called once the stream is
// established, so a caller can start what it wants to watch without
// missing its first events.
func (c *Client) Events(ctx context.Context, opened func(), fn func(memory.Event) bool, prefixes ...string) error {
	req, err := http.NewRequestWithContext(ctx, "GET",
		c.Base+"/api/v1/events?types="+url.QueryEscape(strings.Join(prefixes, ",")), nil)
	if err != nil {
		return err
	}
	if err := c.authorize(ctx, req); err != nil {
		return err
	}
	stream := &http.Client{Transport: c.HTTP.Transport} // no overall timeout: the stream is long
	resp, err := stream.Do(req)
	if err != nil {
		if isConnRefused(err) {
			return fmt.Errorf("%w at %s", ErrUnreachable, c.Base)
		}
		return fmt.Errorf("event stream: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &Error{Status: resp.StatusCode, Message: "the event stream was refused"}
	}
	if opened != nil {
		opened()
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e memory.Event
		if json.Unmarshal([]byte(data), &e) == nil && !fn(e) {
			return nil
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("event stream: %w", err)
	}
	return ctx.Err()
}
