package memory

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewID makes a memory id: "m", the UTC time to the second, and 8 random hex
// characters, e.g. m20261130061500a1b2c3d4 (the public HyAtlas format). Ids
// sort by creation time to the second.
func NewID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return "m" + now.UTC().Format("20060102150405") + hex.EncodeToString(b[:])
}
