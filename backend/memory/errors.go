package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Code is a machine-readable error class. The HTTP layer maps each code to a
// status in one table; the UI switches on it.
type Code string

// Error codes used by the domain and its adapters.
const (
	// EBADREQUEST: the request could not be read, or a required field is
	// missing or of the wrong type (HTTP 400).
	EBADREQUEST Code = "bad_request"
	// EINVALID: well-formed input with a value out of range (HTTP 422).
	EINVALID Code = "invalid"
	// ENOTFOUND: an unknown id (HTTP 404).
	ENOTFOUND Code = "not_found"
	// ECONFLICT: the request contradicts the row's state (HTTP 409).
	ECONFLICT Code = "conflict"
	// ESTALE: a write based on a version that changed since it was read
	// (an If-Match that no longer matches) (HTTP 412).
	ESTALE Code = "stale"
	// EFORBIDDEN: refused by a switch such as HYATLAS_ADMIN (HTTP 403).
	EFORBIDDEN Code = "forbidden"
	// EUNAVAILABLE: a part is not ready or is shutting down (HTTP 503).
	EUNAVAILABLE Code = "unavailable"
	// EINTERNAL: anything unexpected (HTTP 500). Its message is not shown.
	EINTERNAL Code = "internal"
)

// Error is an error with a code and a message meant for the user.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, or EINTERNAL
// for any other non-nil error.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of err. Internal errors get a
// generic message so that details (paths, SQL) stay in the log.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// ErrStorage marks an error whose cause is the disk, not the request: the
// disk holding the data is full, the data folder may not be written, or a
// write failed at the device. Nothing was stored; the status reports it
// until a write succeeds again.
var ErrStorage = errors.New("storage fault")

// StorageFault builds a storage error: an EUNAVAILABLE *Error whose message
// tells the user what to do, that also matches ErrStorage.
func StorageFault(format string, args ...any) error {
	return &storageFault{Errorf(EUNAVAILABLE, format, args...)}
}

// FileStorageFault says in words a person can act on why a file could not
// be written when the cause is the disk (full, read-only, or a folder
// HyAtlas may not write): a StorageFault naming what was not stored.
// Other errors pass unchanged.
func FileStorageFault(what string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		return StorageFault("the disk holding HyAtlas's data is full: %s was not stored; free some space and try again", what)
	case errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission):
		return StorageFault("HyAtlas may not write its data folder (read-only, or its permissions changed): %s was not stored", what)
	}
	return err
}

type storageFault struct{ err *Error }

func (f *storageFault) Error() string   { return f.err.Error() }
func (f *storageFault) Unwrap() []error { return []error{f.err, ErrStorage} }
