package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunSearch_Small runs the search bench on two small stores with the
// hash embedder and checks that every size is reported with sane numbers
// (the engine found every seeded vector, or RunSearch fails).
func TestRunSearch_Small(t *testing.T) {
	var out bytes.Buffer
	err := RunSearch(context.Background(), SearchOptions{Sizes: []int{300, 700}, Embed: "hash", Queries: 20, JSON: true, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	var rep SearchReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if !strings.HasPrefix(rep.Embedder, "hash-") || rep.Queries != 20 || len(rep.Sizes) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for i, s := range rep.Sizes {
		if s.Memories != []int{300, 700}[i] {
			t.Errorf("size %d: %d memories", i, s.Memories)
		}
		if s.Incl.P50 <= 0 || s.Excl.P50 <= 0 || s.Excl.P50 > s.Incl.P50 || s.Excl.P95 > s.Incl.P95 || s.Embed.P95 < s.Embed.P50 {
			t.Errorf("size %d: inconsistent timings %+v", s.Memories, s)
		}
	}
	out.Reset()
	printSearch(&out, rep)
	if !strings.Contains(out.String(), "| 300 |") || !strings.Contains(out.String(), "search excl. embedding") {
		t.Errorf("table:\n%s", out.String())
	}
}

func TestMixedTexts_Deterministic(t *testing.T) {
	a, b := mixedTexts(1, 3, 6, 30, 2, 8), mixedTexts(1, 3, 6, 30, 2, 8)
	for range 20 {
		x, y := a(), b()
		if x != y {
			t.Fatalf("same seeds, different texts: %q %q", x, y)
		}
		if n := len(strings.Fields(x)); n < 8 || n > 38 {
			t.Fatalf("%d words in %q", n, x)
		}
	}
}
