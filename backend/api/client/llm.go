package client

import (
	"context"
	"strconv"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
)

// KeyStatus says whether an extraction key is set and where it comes from.
func (c *Client) KeyStatus(ctx context.Context) (api.KeyStatus, error) {
	var st api.KeyStatus
	return st, c.Do(ctx, "GET", "/api/v1/settings/llm-key", nil, &st)
}

// SaveKey stores the key in the OS keyring of the running instance.
func (c *Client) SaveKey(ctx context.Context, key string) (api.KeyStatus, error) {
	var st api.KeyStatus
	return st, c.Do(ctx, "PUT", "/api/v1/settings/llm-key", api.KeyRequest{Key: key}, &st)
}

// HandKey gives the running instance a key for this run only.
func (c *Client) HandKey(ctx context.Context, key string) (api.KeyStatus, error) {
	var st api.KeyStatus
	return st, c.Do(ctx, "POST", "/api/v1/llm/key", api.KeyRequest{Key: key}, &st)
}

// DeleteKey removes the key from the keyring and forgets a handed one.
func (c *Client) DeleteKey(ctx context.Context) (api.KeyStatus, error) {
	var st api.KeyStatus
	return st, c.Do(ctx, "DELETE", "/api/v1/settings/llm-key", nil, &st)
}

// Egress lists the newest LLM calls (limit 0: the server's default).
func (c *Client) Egress(ctx context.Context, limit int) ([]memory.EgressCall, error) {
	var out struct {
		Calls []memory.EgressCall `json:"calls"`
	}
	path := "/api/v1/egress"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	return out.Calls, c.Do(ctx, "GET", path, nil, &out)
}

// Reprocess queues rows for extraction (all not extracted when ids is
// empty) and says how many were queued.
func (c *Client) Reprocess(ctx context.Context, ids []string) (api.ReprocessResponse, error) {
	var out api.ReprocessResponse
	return out, c.Do(ctx, "POST", "/api/v1/reprocess", api.ReprocessRequest{IDs: ids}, &out)
}
