package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"hyatlas/backend/memory"
)

// Transport-level error codes, beside the domain's.
const (
	codeUnauthorized     memory.Code = "unauthorized"
	codeMethodNotAllowed memory.Code = "method_not_allowed"
	codeTooLarge         memory.Code = "too_large"
	codeRefused          memory.Code = "refused" // the guard
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
}

// ErrorBody is the one error shape of the API: {"error": ..., "code": ...}.
type ErrorBody struct {
	Error string      `json:"error"`
	Code  memory.Code `json:"code"`
}

// writeError answers with err's status and the error shape. Internal
// errors are logged with their detail and answered with a generic message.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	code := memory.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status >= 500 && log != nil {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, status, ErrorBody{Error: memory.ErrorMessage(err), Code: code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// decodeJSON reads a JSON object body into dst. An empty body is allowed
// when optional is set. With strict, unknown fields are refused (our own
// endpoints); compat endpoints accept fields they do not know.
func decodeJSON(r *http.Request, dst any, optional, strict bool) error {
	dec := json.NewDecoder(r.Body)
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(dst)
	if err == nil {
		if dec.More() {
			return memory.Errorf(memory.EBADREQUEST, "body has data after the JSON object")
		}
		return nil
	}
	var tooBig *http.MaxBytesError
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &tooBig):
		return memory.Errorf(codeTooLarge, "body is larger than %d bytes", tooBig.Limit)
	case errors.Is(err, io.EOF):
		if optional {
			return nil
		}
		return memory.Errorf(memory.EBADREQUEST, "a JSON body is required")
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return memory.Errorf(memory.EBADREQUEST, "body must be a JSON object")
		}
		return memory.Errorf(memory.EBADREQUEST, "field %q must be of type %s", field, jsonKind(typeErr.Type.Kind().String()))
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return memory.Errorf(memory.EBADREQUEST, "malformed JSON: %v", err)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return memory.Errorf(memory.EBADREQUEST, "%s", strings.TrimPrefix(err.Error(), "json: "))
	default:
		return memory.Errorf(memory.EBADREQUEST, "could not read the body: %v", err)
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
