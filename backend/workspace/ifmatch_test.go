package workspace

import (
	"context"
	"testing"

	"hyatlas/backend/memory"
)

// TestIfMatchStar: If-Match: * (HTTP's "whatever version there is") writes
// over a file that exists and is refused, changing nothing, when there is
// none; it is not taken for a version tag that never matches.
func TestIfMatchStar(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		exists bool
		wantOK bool
	}{
		{"over an existing file", true, true},
		{"no file yet", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := New(t.TempDir())
			if c.exists {
				if _, err := d.Write(ctx, "meepa", memory.FileSoul, "old\n", ""); err != nil {
					t.Fatal(err)
				}
			}
			_, err := d.Write(ctx, "meepa", memory.FileSoul, "new\n", "*")
			got, _ := d.Read(ctx, "meepa", memory.FileSoul)
			switch {
			case c.wantOK && (err != nil || got.Content != "new\n"):
				t.Fatalf("%v, content %q", err, got.Content)
			case !c.wantOK && (memory.ErrorCode(err) != memory.ESTALE || got.Exists):
				t.Fatalf("%v, %+v: want refused (stale), nothing written", err, got)
			}
		})
	}
}
