package memory

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// ListCursor is where a list page ended: the sort key of its last row, so
// the next page starts right after that row however many rows were added
// or removed above it meanwhile (an offset would skip or repeat them).
// The zero value starts at the top.
//
// It travels as an opaque token (String, ParseListCursor) that names its
// sort: a token of one sort order is refused by another. A row whose sort
// key changed since (a strength promoted) is found where it is now.
type ListCursor struct {
	Sort      string    // "date", "oldest" or "strength"
	Strength  float64   // the last row's strength (sort "strength")
	CreatedAt time.Time // the last row's creation time (ms)
	ID        string    // the last row; rows created in the same millisecond follow their store order
}

// IsZero reports whether c starts at the top.
func (c ListCursor) IsZero() bool { return c.ID == "" }

// cursorAfter is the cursor of m, the last row of a page in sort.
func cursorAfter(sort string, m Memory) ListCursor {
	return ListCursor{Sort: sort, Strength: m.Strength, CreatedAt: m.CreatedAt, ID: m.ID}
}

// String is the token of c: "<sort>.<created ms>.<strength bits>.<id>"
// ("" for the zero cursor).
func (c ListCursor) String() string {
	if c.IsZero() {
		return ""
	}
	return c.Sort + "." + strconv.FormatInt(c.CreatedAt.UnixMilli(), 10) + "." +
		strconv.FormatUint(math.Float64bits(c.Strength), 16) + "." + c.ID
}

// maxCursorLen bounds a cursor token (an id is far shorter).
const maxCursorLen = 300

// ParseListCursor reads a token String made for a list in sort; "" is the
// zero cursor. A token that is not one, or is one of another sort, is
// EINVALID.
func ParseListCursor(token, sort string) (ListCursor, error) {
	if token == "" {
		return ListCursor{}, nil
	}
	bad := Errorf(EINVALID, "after must be the `next` of a page of this list")
	if len(token) > maxCursorLen {
		return ListCursor{}, bad
	}
	parts := strings.SplitN(token, ".", 4)
	if len(parts) != 4 || parts[3] == "" {
		return ListCursor{}, bad
	}
	if parts[0] != sort {
		return ListCursor{}, Errorf(EINVALID, "after is a page of the list sorted by %s, not by %s", parts[0], sort)
	}
	ms, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return ListCursor{}, bad
	}
	bits, err := strconv.ParseUint(parts[2], 16, 64)
	if err != nil {
		return ListCursor{}, bad
	}
	strength := math.Float64frombits(bits)
	if math.IsNaN(strength) || strength < 0 || strength > 1 {
		return ListCursor{}, bad
	}
	return ListCursor{Sort: sort, Strength: strength, CreatedAt: time.UnixMilli(ms).UTC(), ID: parts[3]}, nil
}
