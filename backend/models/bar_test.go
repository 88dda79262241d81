package models

import (
	"strings"
	"testing"
	"time"
)

// fakeClock advances one second per call.
func fakeClock() func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func TestBarTTY(t *testing.T) {
	var out strings.Builder
	b := &bar{w: &out, tty: true, now: fakeClock()}
	b.update(Progress{Model: "bge-small", File: "model.onnx", Done: 0, Total: 133_100_000, Phase: PhaseDownload})
	b.update(Progress{Model: "bge-small", File: "model.onnx", Done: 60_100_000, Total: 133_100_000, Phase: PhaseDownload})
	b.update(Progress{Model: "bge-small", File: "model.onnx", Done: 133_100_000, Total: 133_100_000, Phase: PhaseDone})
	s := out.String()
	for _, want := range []string{
		"\rbge-small model.onnx  45% 60.1/133.1 MB  30.1 MB/s",
		"\rbge-small model.onnx 100% 133.1/133.1 MB",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output %q lacks %q", s, want)
		}
	}
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
		t.Errorf("output %q: want one newline, at the end", s)
	}
}

func TestBarPlain(t *testing.T) {
	var out strings.Builder
	b := &bar{w: &out, tty: false, now: fakeClock()}
	const total = 1000
	for done := int64(0); done <= total; done += 7 {
		b.update(Progress{Model: "m", File: "f", Done: done, Total: total, Phase: PhaseDownload})
	}
	b.update(Progress{Model: "m", File: "f", Done: total, Total: total, Phase: PhaseDownload})
	b.update(Progress{Model: "m", File: "f", Done: total, Total: total, Phase: PhaseDone})
	b.update(Progress{Model: "m", File: "g", Done: 5, Total: 5, Phase: PhaseVerify})
	b.update(Progress{Model: "m", File: "g", Done: 5, Total: 5, Phase: PhaseDone})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 10 + 1:\n%s", len(lines), out.String())
	}
	if !strings.HasPrefix(lines[0], "m f  10% ") || !strings.HasPrefix(lines[9], "m f 100% ") {
		t.Errorf("lines = %q", lines)
	}
	if !strings.Contains(lines[10], "m g  ok") || strings.Contains(out.String(), "\r") {
		t.Errorf("output = %q", out.String())
	}
}
