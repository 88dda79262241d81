package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"hyatlas/backend/memory"
)

// Transport-level error codes, beside the domain's.
const (
	codeUnauthorized     memory.Code = "unauthorized"
	codeMethodNotAllowed memory.Code = "method_not_allowed"
	codeTooLarge         memory.Code = "too_large"
	codeRefused          memory.Code = "refused"     // the guard
	codeNotOffered       memory.Code = "not_offered" // a public-contract route this app does not offer
)

// statusOf maps every error code to its HTTP status, in one place.
var statusOf = map[memory.Code]int{
	memory.EBADREQUEST:   http.StatusBadRequest,
	memory.EINVALID:      http.StatusUnprocessableEntity,
	memory.ENOTFOUND:     http.StatusNotFound,
	memory.ECONFLICT:     http.StatusConflict,
	memory.ESTALE:        http.StatusPreconditionFailed,
	memory.EFORBIDDEN:    http.StatusForbidden,
	memory.EUNAVAILABLE:  http.StatusServiceUnavailable,
	memory.EINTERNAL:     http.StatusInternalServerError,
	codeUnauthorized:     http.StatusUnauthorized,
	codeMethodNotAllowed: http.StatusMethodNotAllowed,
	codeTooLarge:         http.StatusRequestEntityTooLarge,
	codeRefused:          http.StatusForbidden,
	codeNotOffered:       http.StatusNotImplemented,
}

// ErrorBody is the one error shape of the API: {"error": ..., "code": ...}.
type ErrorBody struct {
	Error string      `json:"error"`
	Code  memory.Code `json:"code"`
	// What the public contract's clients read from a refusal of these two
	// routes: add's success, delete_all's deleted_count.
	Success      *bool `json:"success,omitempty"`
	DeletedCount *int  `json:"deleted_count,omitempty"`
}

// writeError answers with err's status and the error shape. Internal
// errors are logged with their detail and answered with a generic message.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if memory.ErrorCode(err) == memory.EINTERNAL && errors.Is(err, context.Canceled) {
		// Work cut off (HyAtlas is stopping, or the client left) is no
		// fault to log, and the answer says what happened. A timeout is
		// not: an HTTP client's (a remote embedder's) is a fault.
		err = memory.Errorf(memory.EUNAVAILABLE, "the work was cut off before it finished (HyAtlas is stopping, or the request was cancelled): run it again once HyAtlas answers")
		log = nil
	}
	code := memory.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status >= 500 && log != nil {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	body := ErrorBody{Error: memory.ErrorMessage(err), Code: code}
	switch r.URL.Path {
	case "/api/v1/add":
		body.Success = new(bool)
	case "/api/v1/delete_all":
		body.DeletedCount = new(int)
	}
	writeJSON(w, status, body)
}

// writeJSON writes v as the reply. It is encoded before the status goes
// out, so a value that cannot be written (a time outside the years JSON
// can hold) is a 500 saying so, never a 200 with an empty body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		status = http.StatusInternalServerError
		_ = enc.Encode(ErrorBody{Error: "the reply could not be written: " + err.Error(), Code: memory.EINTERNAL})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// decodeJSON reads a JSON object body into dst. An empty body is allowed
// when optional is set. With strict, unknown fields are refused (our own
// endpoints); compat endpoints accept fields they do not know. A body that
// is not UTF-8 is refused rather than read with its bad bytes replaced, and
// so is anything but white space after the object (a stray "]" or "}").
// A JSON null is read as no value at all, as JSON means it (clients send it
// for "no options"); a required field it leaves out is refused as missing.
func decodeJSON(r *http.Request, dst any, optional, strict bool) error {
	body, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return memory.Errorf(codeTooLarge, "body is larger than %d bytes", tooBig.Limit)
	case err != nil:
		return memory.Errorf(memory.EBADREQUEST, "could not read the body: %v", err)
	case len(bytes.TrimSpace(body)) == 0 && optional:
		return nil
	case len(bytes.TrimSpace(body)) == 0:
		return memory.Errorf(memory.EBADREQUEST, "a JSON body is required")
	case !utf8.Valid(body):
		return memory.Errorf(memory.EBADREQUEST, "body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	err = dec.Decode(dst)
	if err == nil {
		if len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
			return memory.Errorf(memory.EBADREQUEST, "body has data after the JSON object")
		}
		if k := memory.InexactField(body, dst); strict && k != "" { // "STRENGTH" is not "strength"
			return memory.Errorf(memory.EBADREQUEST, "unknown field %q", k)
		}
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return typeError(typeErr)
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return memory.Errorf(memory.EBADREQUEST, "malformed JSON: %v", err)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return memory.Errorf(memory.EBADREQUEST, "%s", strings.TrimPrefix(err.Error(), "json: "))
	default:
		return memory.Errorf(memory.EBADREQUEST, "could not read the body: %v", err)
	}
}

// noBody checks the body of a route that takes none: empty or {}. A
// malformed or unexpected body is refused before the route acts, so a
// broken request never makes a token, starts a download or restarts.
func noBody(r *http.Request) error {
	return decodeJSON(r, &struct{}{}, true, true)
}

// ignoredBody checks the body of a public-contract route that ignores it:
// empty or any JSON object (clients of the public contract send fields
// this server has no use for), never malformed JSON or another value.
func ignoredBody(r *http.Request) error {
	var fields map[string]json.RawMessage
	return decodeJSON(r, &fields, true, false)
}

// typeError says which field has the wrong kind of value, and what it
// got: "field "limit" must be a whole number, not 2.5".
func typeError(e *json.UnmarshalTypeError) error {
	want := jsonKind(e.Type.Kind().String())
	got, literal, _ := strings.Cut(e.Value, " ") // "number 2.5", "string", "array"
	if got == "bool" {
		got = "boolean"
	}
	switch {
	case e.Field == "" && want == "object":
		return memory.Errorf(memory.EBADREQUEST, "body must be a JSON object, not %s", withArticle(got))
	case e.Field == "":
		return memory.Errorf(memory.EBADREQUEST, "every value must be %s, not %s", withArticle(want), withArticle(got))
	case want == "number" && got == "number" && strings.HasPrefix(e.Type.Kind().String(), "float"): // 1e400
		return memory.Errorf(memory.EBADREQUEST, "field %q is out of range: %s", e.Field, literal)
	case want == "number" && got == "number": // 2.5 or 1e9 for a count
		return memory.Errorf(memory.EBADREQUEST, "field %q must be a whole number, not %s", e.Field, literal)
	default:
		return memory.Errorf(memory.EBADREQUEST, "field %q must be %s, not %s", e.Field, withArticle(want), withArticle(got))
	}
}

func withArticle(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "":
		return "something else"
	default:
		return "a " + kind
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "int", "int64", "float64":
		return "number"
	case "slice":
		return "array"
	case "map", "struct":
		return "object"
	default:
		return fmt.Sprint(goKind)
	}
}
