package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }})
	return code, out.String(), errOut.String()
}

func TestBenchRecall_MissingDataIsSkipped(t *testing.T) {
	absent := filepath.Join(t.TempDir(), "locomo10.json")
	for _, args := range [][]string{
		{"bench", "recall", "--locomo", absent},
		{"bench", "recall"},
	} {
		code, out, errOut := runArgs(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errOut)
		}
		if !strings.Contains(out, "skipped") || !strings.Contains(out, "snap-research/LoCoMo") || !strings.Contains(out, "data/locomo10.json") {
			t.Errorf("%q: the message does not say where to get the data: %q", args, out)
		}
	}
	code, out, _ := runArgs(t, "bench", "recall", "--json", "--locomo", absent)
	if code != 0 || !strings.Contains(out, `"skipped": true`) {
		t.Errorf("--json: exit %d, %q", code, out)
	}
}

func TestBench_BadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "recall", "--embed", "bert"},
		{"bench", "recall", "--conversations", "-1"},
		{"bench", "recall", "extra"},
		{"bench", "search", "--n", "ten"},
		{"bench", "search", "--n", "0"},
		{"bench", "search", "--n", "99999999999999"},
		{"bench", "graph", "--n", "1000001"},
		{"bench", "export", "--n", "1000001"},
		{"bench", "snapshot", "--n", "1000001"},
		{"bench", "search", "--embed", "bert"},
		{"bench", "search", "--queries", "0"},
		{"bench", "graph", "--n", "0"},
		{"bench", "graph", "--queries", "-2"},
		{"bench", "graph", "extra"},
		{"bench", "--bogus"},
		{"bench", "bogus"},
		{"bench", "--json", "search"},
	} {
		code, _, errOut := runArgs(t, args...)
		if code != 2 || !strings.Contains(errOut, "usage: hyatlas bench") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error", args, code, errOut)
		}
	}
}

// TestBench_NameAfterFlags: a bench named after its flags is a usage error
// that shows the command in the order that works.
func TestBench_NameAfterFlags(t *testing.T) {
	code, _, errOut := runArgs(t, "bench", "--json", "--n", "100", "search")
	if code != 2 || !strings.Contains(errOut, "hyatlas bench search --json --n 100") {
		t.Errorf("exit %d, stderr %q; want a usage error showing `hyatlas bench search --json --n 100`", code, errOut)
	}
}

func TestSizeList(t *testing.T) {
	var s sizeList
	for _, v := range []string{"10000", "5000, 100000"} {
		if err := s.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if want := (sizeList{10000, 5000, 100000}); !reflect.DeepEqual(s, want) || s.String() != "10000,5000,100000" {
		t.Errorf("sizes %v (%s), want %v", s, s.String(), want)
	}
	for _, bad := range []string{"", "x", "-3", "1,,2"} {
		var s sizeList
		if err := s.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
}
