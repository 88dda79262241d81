package models

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Bar returns a progress callback for Install that draws
//
//	bge-small model.onnx  45% 60.1/133.1 MB  12.3 MB/s
//
// redrawn in place with \r on a terminal, or as one line per 10% otherwise
// (logs, pipes).
func Bar(w io.Writer, isTTY bool) func(Progress) {
	b := &bar{w: w, tty: isTTY, now: time.Now}
	return b.update
}

type bar struct {
	w   io.Writer
	tty bool
	now func() time.Time

	mu       sync.Mutex
	file     string    // model/file of the current line
	start    time.Time // first download report of the file
	startAt  int64     // bytes done at that report (a resume starts above 0)
	decile   int       // last 10% step printed (non-TTY)
	width    int       // length of the last TTY line, to blank leftovers
	drawn    bool      // a TTY line is open (needs a newline)
	download bool      // the file was downloaded, not just verified
}

func (b *bar) update(p Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := p.Model + "/" + p.File
	if key != b.file {
		b.endLine()
		b.file, b.start, b.startAt, b.decile, b.download = key, time.Time{}, 0, -1, false
	}
	switch p.Phase {
	case PhaseDownload:
		if !b.download {
			b.download, b.start, b.startAt = true, b.now(), p.Done
		}
		line := b.line(p)
		if b.tty {
			b.draw(line)
			return
		}
		if p.Total > 0 {
			if d := int(p.Done * 10 / p.Total); d > b.decile && d > 0 {
				b.decile = d
				fmt.Fprintln(b.w, line)
			}
		}
	case PhaseVerify:
		if b.tty {
			b.draw(fmt.Sprintf("%s %s  verifying %s", p.Model, p.File, percent(p)))
		}
	case PhaseDone:
		var line string
		if b.download {
			p.Total = p.Done
			line = b.line(p)
		} else {
			line = fmt.Sprintf("%s %s  ok (%s MB, already installed)", p.Model, p.File, mb(p.Done))
		}
		if b.tty {
			b.draw(line)
			b.endLine()
		} else if b.decile < 10 {
			fmt.Fprintln(b.w, line)
		}
		b.file = ""
	}
}

// line formats a download report.
func (b *bar) line(p Progress) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s", p.Model, p.File)
	if p.Total > 0 {
		fmt.Fprintf(&s, " %s %s/%s MB", percent(p), mb(p.Done), mb(p.Total))
	} else {
		fmt.Fprintf(&s, "  %s MB", mb(p.Done))
	}
	if secs := b.now().Sub(b.start).Seconds(); secs > 0 {
		fmt.Fprintf(&s, "  %.1f MB/s", float64(p.Done-b.startAt)/1e6/secs)
	}
	return s.String()
}

// draw replaces the current TTY line.
func (b *bar) draw(line string) {
	pad := ""
	if n := b.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprint(b.w, "\r"+line+pad)
	b.width, b.drawn = len(line), true
}

// endLine closes an open TTY line.
func (b *bar) endLine() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
	b.drawn, b.width = false, 0
}

func percent(p Progress) string {
	if p.Total <= 0 {
		return " ?%"
	}
	return fmt.Sprintf("%3d%%", p.Done*100/p.Total)
}

func mb(n int64) string { return fmt.Sprintf("%.1f", float64(n)/1e6) }
