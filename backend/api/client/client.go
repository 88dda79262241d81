// Package client is the typed Go client of the loopback API. The CLI uses
// it to talk to a running HyAtlas; tests use it against real servers.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
)

// Client talks to one HyAtlas API.
type Client struct {
	Base  string // e.g. http://127.0.0.1:19528
	Token string // "": no HyAtlas of this configuration has started; only /healthz and /readyz are asked
	HTTP  *http.Client
	// proven: the server at Base proved it holds Token (see authorize);
	// shared by the copies Long makes.
	proven *provenState
}

// New returns a client with a 30-second request timeout.
func New(base, token string) *Client {
	return &Client{Base: strings.TrimRight(base, "/"), Token: token, HTTP: &http.Client{Timeout: 30 * time.Second},
		proven: &provenState{}}
}

// Error is an error answer from the API.
type Error struct {
	Status  int
	Code    memory.Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (HTTP %d)", e.Message, e.Status) }

// ErrUnreachable wraps connection failures: nothing listens at Base.
var ErrUnreachable = errors.New("HyAtlas is not running")

// Do sends a request with an optional JSON body and decodes a JSON answer
// into out (when not nil).
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if err := c.authorize(ctx, req); err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		switch {
		case isConnRefused(err):
			return fmt.Errorf("%w at %s", ErrUnreachable, c.Base)
		case method != http.MethodGet && answerLost(err):
			return fmt.Errorf("%s %s: %w", method, path, ErrAnswerLost)
		}
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("read answer of %s %s: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		var eb api.ErrorBody
		if json.Unmarshal(data, &eb) != nil || eb.Error == "" {
			eb.Error = strings.TrimSpace(string(data))
		}
		return &Error{Status: resp.StatusCode, Code: eb.Code, Message: eb.Error}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode answer of %s %s: %w", method, path, err)
	}
	return nil
}

// ErrAnswerLost means the connection closed after a request was sent and
// before its answer came: what it asked may have been done.
var ErrAnswerLost = errors.New("HyAtlas closed the connection before it answered (it stopped or crashed), so what was asked may have been done: check (hyatlas list, hyatlas snapshot list) before running it again")

// answerLost says whether err is a connection that ended without an
// answer: closed, or reset while the answer was read (a read error, on
// every OS).
func answerLost(err error) bool {
	var op *net.OpError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &op) && op.Op == "read")
}

func isConnRefused(err error) bool {
	var op *net.OpError
	return errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &op) && op.Op == "dial")
}

// Health checks /healthz.
func (c *Client) Health(ctx context.Context) error {
	return c.Do(ctx, "GET", "/healthz", nil, nil)
}

// Ready checks /readyz.
func (c *Client) Ready(ctx context.Context) error {
	return c.Do(ctx, "GET", "/readyz", nil, nil)
}

// Status reads /api/v1/status.
func (c *Client) Status(ctx context.Context) (api.StatusJSON, error) {
	var out api.StatusJSON
	return out, c.Do(ctx, "GET", "/api/v1/status", nil, &out)
}

// Add writes one memory.
func (c *Client) Add(ctx context.Context, req api.AddRequest) (api.AddResponse, error) {
	var out api.AddResponse
	return out, c.Do(ctx, "POST", "/api/v1/add", req, &out)
}

// Search recalls memories.
func (c *Client) Search(ctx context.Context, req api.SearchRequest) (api.SearchResponse, error) {
	var out api.SearchResponse
	return out, c.Do(ctx, "POST", "/api/v1/search", req, &out)
}

// List pages through memories.
func (c *Client) List(ctx context.Context, req api.ListRequest) (api.ListResponse, error) {
	var out api.ListResponse
	return out, c.Do(ctx, "POST", "/api/v1/list", req, &out)
}

// Get reads one memory with its history.
func (c *Client) Get(ctx context.Context, id string) (api.DetailJSON, error) {
	var out api.DetailJSON
	return out, c.Do(ctx, "GET", "/api/v1/memories/"+url.PathEscape(id), nil, &out)
}

// Retire retires a memory.
func (c *Client) Retire(ctx context.Context, id string, req api.RetireRequest) (api.MemoryJSON, error) {
	var out api.MemoryJSON
	return out, c.Do(ctx, "POST", "/api/v1/memories/"+url.PathEscape(id)+"/retire", req, &out)
}

// Restore restores a retired memory.
func (c *Client) Restore(ctx context.Context, id string) (api.MemoryJSON, error) {
	var out api.MemoryJSON
	return out, c.Do(ctx, "POST", "/api/v1/memories/"+url.PathEscape(id)+"/restore", struct{}{}, &out)
}

// DashboardLink asks for a fresh one-time dashboard sign-in link.
func (c *Client) DashboardLink(ctx context.Context) (string, error) {
	var out struct {
		URL string `json:"url"`
	}
	return out.URL, c.Do(ctx, "POST", "/api/v1/dashboard/link", nil, &out)
}
