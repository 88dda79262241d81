package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

// TestDiskFull_SaysSoAndStoresNothing: a write the disk has no room for is
// refused with words a person can act on (a 503 at the API; it was an
// "internal error"), stores nothing, and writes go on once there is room.
// SQLite's page limit stands in for a full disk: it fails the same way.
func TestDiskFull_SaysSoAndStoresNothing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s, row("m1", "a first memory"))
	var pages int
	if err := s.writer.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	err := s.Insert(ctx, row("m2", strings.Repeat("a memory that needs new pages ", 2000)))
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(memory.ErrorMessage(err), "disk holding HyAtlas's data is full") {
		t.Fatalf("a write on a full disk: %v (code %s)", err, memory.ErrorCode(err))
	}
	if _, err := s.Get(ctx, "m2"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("the refused write is readable: %v", err)
	}
	if _, err := s.writer.ExecContext(ctx, "PRAGMA max_page_count = 1000000"); err != nil {
		t.Fatal(err)
	}
	insert(t, s, row("m3", "room again"))
}
