package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
)

// Long returns a copy of the client without the request timeout, for
// calls that may take minutes (a consolidation pass, an export or import
// of a large store); the context still bounds them.
func (c *Client) Long() *Client {
	cp := *c
	hc := *c.HTTP
	hc.Timeout = 0
	cp.HTTP = &hc
	return &cp
}

// stream sends body as is and returns the response when it is a success;
// the caller closes its body.
func (c *Client) stream(ctx context.Context, method, path, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, body)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if err := c.authorize(ctx, req); err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		switch {
		case isConnRefused(err):
			return nil, fmt.Errorf("%w at %s", ErrUnreachable, c.Base)
		case method != http.MethodGet && answerLost(err):
			return nil, fmt.Errorf("%s %s: %w", method, path, ErrAnswerLost)
		}
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		var eb api.ErrorBody
		if json.Unmarshal(data, &eb) != nil || eb.Error == "" {
			eb.Error = strings.TrimSpace(string(data))
		}
		return nil, &Error{Status: resp.StatusCode, Code: eb.Code, Message: eb.Error}
	}
	return resp, nil
}

// ExportOptions select an export.
type ExportOptions struct {
	Markdown        bool
	Vectors         bool
	UserID, AgentID string
}

// Export streams an export into w.
func (c *Client) Export(ctx context.Context, o ExportOptions, w io.Writer) error {
	q := url.Values{}
	if o.Markdown {
		q.Set("format", "markdown")
	}
	if o.Vectors {
		q.Set("vectors", "true")
	}
	if o.UserID != "" {
		q.Set("user_id", o.UserID)
	}
	if o.AgentID != "" {
		q.Set("agent_id", o.AgentID)
	}
	resp, err := c.stream(ctx, http.MethodGet, "/api/v1/export?"+q.Encode(), "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	tail := &lastLine{}
	out := &api.FailWriter{W: w}
	if _, err := io.Copy(io.MultiWriter(out, tail), resp.Body); err != nil {
		if out.Err != nil { // this side: a full disk, a closed pipe
			return fmt.Errorf("could not write the export: %w", out.Err)
		}
		return fmt.Errorf("the export was cut short (%w): HyAtlas failed part way; its log says why", err)
	}
	if !o.Markdown && !strings.HasPrefix(tail.String(), `{"type":"end"`) {
		return errors.New("the export was cut short (it has no end record): HyAtlas failed part way; its log says why")
	}
	return nil
}

// lastLine keeps the last line written through it (its first 256 bytes).
type lastLine struct {
	line  []byte
	ended bool // the line kept has ended: the next byte starts another
}

func (l *lastLine) Write(p []byte) (int, error) {
	for _, b := range p {
		switch {
		case b == '\n':
			l.ended = true
		case l.ended:
			l.line, l.ended = append(l.line[:0], b), false
		case len(l.line) < 256:
			l.line = append(l.line, b)
		}
	}
	return len(p), nil
}

func (l *lastLine) String() string { return string(l.line) }

// Import sends an export and returns what the import did.
func (c *Client) Import(ctx context.Context, r io.Reader) (memory.ImportReport, error) {
	var rep memory.ImportReport
	resp, err := c.stream(ctx, http.MethodPost, "/api/v1/import", "application/x-ndjson", r)
	if err != nil {
		return rep, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		return rep, fmt.Errorf("decode the import report: %w", err)
	}
	return rep, nil
}
