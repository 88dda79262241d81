package memory

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
)

// ExportMarkdown writes a person-readable export: live memories by layer,
// oldest first, each with its date, category and strength; then the
// retired ones with how and why; then the workspace files. It is for
// reading, not for import (use Export for that).
func (s *Service) ExportMarkdown(ctx context.Context, w io.Writer, in ExportInput) (ExportReport, error) {
	var rep ExportReport
	scope, err := s.scope([]string{in.UserID}, in.AgentID)
	if err != nil {
		return rep, err // before a byte is written
	}
	byLayer := map[Layer][]Memory{}
	var retired []Memory
	agents := map[string]bool{}
	err = s.store.ScanExport(ctx, scope, false, func(r ExportRow) error {
		rep.Memories++
		agents[r.Memory.Owner.AgentID] = true
		if r.Memory.Live() {
			byLayer[r.Memory.Layer] = append(byLayer[r.Memory.Layer], r.Memory)
		} else {
			retired = append(retired, r.Memory)
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# HyAtlas memory\n\nExported %s: %d memories.\n", s.now().UTC().Format("2006-01-02 15:04 UTC"), rep.Memories)
	for _, l := range Layers {
		rows := byLayer[l]
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n## %s (%s, %d)\n\n", l.Title(), l, len(rows))
		for _, m := range rows {
			fmt.Fprintf(bw, "- %s · %s%s\n", dateOf(m), mdLabel(m), mdText(m.Content))
		}
	}
	if len(retired) > 0 {
		fmt.Fprintf(bw, "\n## Retired (%d)\n\n", len(retired))
		for _, m := range retired {
			why := string(m.RetiredHow)
			if m.RetireReason != "" {
				why += ": " + m.RetireReason
			}
			fmt.Fprintf(bw, "- %s · %s · %s (%s)\n", dateOf(m), m.Layer.Title(), mdText(m.Content), why)
		}
	}
	docs, err := s.exportedFiles(ctx, in, agents)
	if err != nil {
		return rep, err
	}
	for _, d := range docs {
		fmt.Fprintf(bw, "\n## %s/%s\n\n%s\n", d.Agent, d.File, strings.TrimRight(d.Content, "\n"))
		rep.Files++
	}
	if err := bw.Flush(); err != nil {
		return rep, fmt.Errorf("export: %w", err)
	}
	return rep, nil
}

// dateOf is the memory's event date, else the day it was written.
func dateOf(m Memory) string {
	if !m.EventAt.IsZero() {
		return m.EventAt.UTC().Format("2006-01-02")
	}
	return m.CreatedAt.UTC().Format("2006-01-02")
}

// mdLabel is "(category, 0.80) " for curated rows, "" for others.
func mdLabel(m Memory) string {
	if !m.Layer.Curated() {
		return ""
	}
	c := m.Category
	if c == "" {
		c = CategoryFact
	}
	return fmt.Sprintf("(%s, %.2f) ", c, m.Strength)
}

// mdText keeps a multi-line text inside its list item.
func mdText(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}
