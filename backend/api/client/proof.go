package client

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"hyatlas/backend/api"
)

// ErrNotHyAtlas means the program at the client's address could not prove
// it holds the API token: another program took HyAtlas's port while
// HyAtlas was not running (or HyAtlas's token changed since the client
// read it), or the client has no token to prove. Nothing was sent to it
// but a nonce or a liveness check.
var ErrNotHyAtlas = errors.New("the program answering there is not this HyAtlas: it could not prove it holds the API token, so the token was not sent")

// provenState remembers that the server proved it holds the token.
type provenState struct {
	mu sync.Mutex
	ok bool
}

// authorize adds the token to req once the server at Base has proved it
// holds it (GET /proof with a fresh nonce, once per client): the token,
// and whatever the request carries, never go to a program that only took
// HyAtlas's port. A client without a token may still ask /healthz and
// /readyz, which carry nothing; any other request is refused (noToken).
func (c *Client) authorize(ctx context.Context, req *http.Request) error {
	if c.Token == "" {
		if req.URL.Path == "/healthz" || req.URL.Path == "/readyz" {
			return nil
		}
		return c.noToken(ctx)
	}
	if c.proven == nil {
		c.proven = &provenState{}
	}
	c.proven.mu.Lock()
	defer c.proven.mu.Unlock()
	if !c.proven.ok {
		if err := c.checkProof(ctx); err != nil {
			return err
		}
		c.proven.ok = true
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	return nil
}

// checkProof asks the server for its proof of a fresh nonce.
func (c *Client) checkProof(ctx context.Context) error {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return fmt.Errorf("make a nonce: %w", err)
	}
	nonce := hex.EncodeToString(b)
	resp, err := c.check(ctx, api.ProofPath+"?nonce="+nonce)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var got struct {
		Proof string `json:"proof"`
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &got) != nil ||
		!hmac.Equal([]byte(got.Proof), []byte(api.Proof(c.Token, nonce))) {
		return fmt.Errorf("%w (at %s)", ErrNotHyAtlas, c.Base)
	}
	return nil
}

// noToken answers a request that needs the token from a client that has
// none. HyAtlas makes its token at its first start (as do `hyatlas token`
// and the Hermes install, before one), so no HyAtlas of this configuration
// has started: whatever answers at Base is another program, or one of
// another configuration, and it is sent nothing (ErrNotHyAtlas). When
// nothing listens it is ErrUnreachable, so a command that works offline
// still does.
func (c *Client) noToken(ctx context.Context) error {
	resp, err := c.check(ctx, "/healthz")
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	return fmt.Errorf("%w (at %s; this configuration has no API token yet, so no HyAtlas of it has started there)", ErrNotHyAtlas, c.Base)
}

// check GETs path (no token, no redirect followed) to learn who answers at
// Base; nothing listening is ErrUnreachable.
func (c *Client) check(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.Base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	hc := *c.HTTP
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		if isConnRefused(err) {
			return nil, fmt.Errorf("%w at %s", ErrUnreachable, c.Base)
		}
		return nil, fmt.Errorf("check HyAtlas at %s: %w", c.Base, err)
	}
	return resp, nil
}
