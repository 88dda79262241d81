package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// Import bounds.
const (
	maxImportLine   = 64 << 20 // one line (a memory with its vector, a workspace file)
	maxImportErrors = 20       // reported by line number before the import gives up
)

// ImportReport says what an import did.
type ImportReport struct {
	Lines    int `json:"lines"`
	Memories int `json:"memories"` // memory records read
	Imported int `json:"imported"` // written (new ids)
	Skipped  int `json:"skipped"`  // already here (same id): left as they are
	// Reembed counts imported rows that came without a vector of the
	// embedder in use; the background re-embedding gives them one.
	Reembed      int      `json:"reembed"`
	Files        int      `json:"files"`         // workspace files written
	FilesSkipped []string `json:"files_skipped"` // already here with other content: kept
	// Graph counts the entities, relations and links added to the graph.
	Graph GraphImportReport `json:"graph"`
}

// importBatch is what an export holds, checked.
type importBatch struct {
	rows  []ExportRow
	files []WorkspaceDoc
	graph GraphExport
}

// Import reads an export (see Export) and merges it in: every memory whose
// id is new is written with all its fields, history and (if it came with
// one) vector, in one transaction; one already here is left as it is.
// Every line is checked first: if any is invalid, the error lists the
// first ones by line number and nothing is written. A workspace file is
// written when the agent has none; one with other content is kept.
func (s *Service) Import(ctx context.Context, r io.Reader) (ImportReport, error) {
	var rep ImportReport
	b, err := s.readExport(r, &rep)
	if err != nil {
		return rep, err
	}
	rows, files := b.rows, b.files
	// New ids only, like adds: the read lock keeps an embedder switch
	// from coming between the commit and the index update.
	s.indexSync.RLock()
	written, graph, err := s.store.ImportRows(ctx, rows, b.graph)
	if err == nil {
		s.indexImported(written, rows, &rep)
		rep.Graph = graph
	}
	s.indexSync.RUnlock()
	if err != nil {
		return rep, err
	}
	rep.Imported, rep.Skipped = len(written), len(rows)-len(written)
	if rep.Reembed > 0 {
		s.kickReembed()
	}
	for _, f := range files {
		if err := s.importFile(ctx, f, &rep); err != nil {
			return rep, err
		}
	}
	s.events.Publish(Event{Type: "import.done", At: s.now().UTC(), Data: rep})
	return rep, nil
}

// readExport parses and checks every line; it returns what they hold only
// if all are valid.
func (s *Service) readExport(r io.Reader, rep *ImportReport) (importBatch, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxImportLine)
	var rows []ExportRow
	var files []WorkspaceDoc
	var graph GraphExport
	var problems []string
	seen := map[string]int{}
	ended := false
	fail := func(n int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: ", n)+fmt.Sprintf(format, args...))
	}
	for sc.Scan() && len(problems) < maxImportErrors {
		rep.Lines++
		n := rep.Lines
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l exportLine
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			if n == 1 { // a Markdown export, or some other file
				return importBatch{}, Errorf(EINVALID, "not a HyAtlas export: line 1 is not a JSON record (a Markdown export is for reading; import a JSON Lines export)")
			}
			fail(n, "not a record: %s", strings.TrimPrefix(err.Error(), "json: "))
			continue
		}
		switch {
		case n == 1 && (l.Type != "header" || l.Format != ExportFormat):
			return importBatch{}, Errorf(EINVALID, "line 1: not a HyAtlas export (no %q header)", ExportFormat)
		case l.Type == "header":
			if n != 1 {
				fail(n, "a second header")
			} else if l.Version < 1 || l.Version > ExportVersion {
				return importBatch{}, Errorf(EINVALID, "line 1: export version %d; this HyAtlas reads versions 1 to %d", l.Version, ExportVersion)
			}
		case l.Type == "end":
			if l.Memories == nil || l.Files == nil || *l.Memories != len(rows) || *l.Files != len(files) ||
				!countMatches(l.Nodes, len(graph.Nodes)) || !countMatches(l.Relations, len(graph.Relations)) ||
				!countMatches(l.Links, len(graph.Links)) {
				fail(n, "the end record does not match the records before it")
			}
			ended = true
		case ended:
			fail(n, "a record after the end record")
		case l.Type == "memory":
			row, err := checkImported(l)
			if err != nil {
				fail(n, "%v", err)
				continue
			}
			if first, dup := seen[row.Memory.ID]; dup {
				fail(n, "memory %s is also on line %d", row.Memory.ID, first)
				continue
			}
			seen[row.Memory.ID] = n
			rows = append(rows, row)
		case l.Type == "workspace":
			doc, err := checkImportedFile(l)
			if err != nil {
				fail(n, "%v", err)
				continue
			}
			files = append(files, doc)
		case l.Type == "graph_node":
			node, err := checkImportedNode(l)
			if err != nil {
				fail(n, "%v", err)
				continue
			}
			graph.Nodes = append(graph.Nodes, node)
		case l.Type == "graph_relation":
			rel, err := checkImportedRelation(l)
			if err != nil {
				fail(n, "%v", err)
				continue
			}
			graph.Relations = append(graph.Relations, rel)
		case l.Type == "link":
			link, err := checkImportedLink(l)
			if err != nil {
				fail(n, "%v", err)
				continue
			}
			graph.Links = append(graph.Links, link)
		default:
			fail(n, "unknown record type %q", l.Type)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			fail(rep.Lines+1, "longer than %d MiB", maxImportLine>>20)
		} else {
			return importBatch{}, fmt.Errorf("read the import: %w", err)
		}
	}
	if rep.Lines == 0 {
		return importBatch{}, Errorf(EBADREQUEST, "the import is empty")
	}
	if !ended && len(problems) == 0 {
		fail(rep.Lines, "the export is cut short (no end record); export it again")
	}
	if len(problems) == 0 {
		if err := checkGraph(graph); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return importBatch{}, Errorf(EINVALID, "nothing was imported: %s", strings.Join(problems, "; "))
	}
	rep.Memories = len(rows)
	return importBatch{rows: rows, files: files, graph: graph}, nil
}

// countMatches checks an end record's count of a kind of record; a
// version 1 export has none (and no such records).
func countMatches(said *int, got int) bool {
	if said == nil {
		return got == 0
	}
	return *said == got
}

// checkImported validates one memory record.
func checkImported(l exportLine) (ExportRow, error) {
	m := l.Memory
	if m == nil {
		return ExportRow{}, fmt.Errorf("a memory record without its memory")
	}
	switch {
	case strings.TrimSpace(m.ID) == "" || checkLabel("id", m.ID) != nil || m.ID == "." || m.ID == ".." || strings.ContainsAny(m.ID, "/\\"):
		return ExportRow{}, fmt.Errorf("a memory needs an id (at most 256 bytes, no control characters, no / or \\, not . or ..)")
	case checkLabel("category", m.Category) != nil || len(m.Category) > maxCategoryLen:
		return ExportRow{}, fmt.Errorf("memory %s: category must be at most %d bytes of plain text", m.ID, maxCategoryLen)
	case checkLabel("source", m.Source) != nil:
		return ExportRow{}, fmt.Errorf("memory %s: source must be at most %d bytes of plain text", m.ID, maxIDLen)
	case !m.Layer.Valid():
		return ExportRow{}, fmt.Errorf("memory %s: unknown layer %q", m.ID, m.Layer)
	case strings.TrimSpace(m.Content) == "" || !utf8.ValidString(m.Content):
		return ExportRow{}, fmt.Errorf("memory %s: content must be non-empty UTF-8 text", m.ID)
	case m.Owner.UserID == "" || checkLabel("user_id", m.Owner.UserID) != nil || checkLabel("agent_id", m.Owner.AgentID) != nil:
		return ExportRow{}, fmt.Errorf("memory %s: a user_id is required (and ids are at most 256 bytes)", m.ID)
	case math.IsNaN(m.Strength) || m.Strength < 0 || m.Strength > 1:
		return ExportRow{}, fmt.Errorf("memory %s: strength must be between 0 and 1", m.ID)
	case m.CreatedAt.IsZero():
		return ExportRow{}, fmt.Errorf("memory %s: created_at is required", m.ID)
	case !m.RetiredAt.IsZero() && !retireHows[m.RetiredHow]:
		return ExportRow{}, fmt.Errorf("memory %s: retired with an unknown kind %q", m.ID, m.RetiredHow)
	}
	if err := checkMetadata(m.Metadata); err != nil {
		return ExportRow{}, fmt.Errorf("memory %s: %s", m.ID, ErrorMessage(err))
	}
	switch m.Extraction {
	case "":
		m.Extraction = ExtractSkipped
	case ExtractSkipped, ExtractPending, ExtractDone, ExtractFailed:
	default:
		return ExportRow{}, fmt.Errorf("memory %s: unknown extraction state %q", m.ID, m.Extraction)
	}
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = m.CreatedAt
	}
	row := ExportRow{Memory: *m, History: l.History, DecayedAt: l.DecayedAt}
	if l.Vector != nil {
		v, err := l.Vector.unpack()
		if err != nil {
			return ExportRow{}, fmt.Errorf("memory %s: %v", m.ID, err)
		}
		row.Vector = &v
	}
	return row, nil
}

// checkImportedFile validates one workspace record.
func checkImportedFile(l exportLine) (WorkspaceDoc, error) {
	agent, err := ParseAgent(l.Agent)
	if err != nil {
		return WorkspaceDoc{}, errors.New(ErrorMessage(err))
	}
	f, err := ParseWorkspaceFile(string(l.File))
	if err != nil {
		return WorkspaceDoc{}, errors.New(ErrorMessage(err))
	}
	if l.Content == nil {
		return WorkspaceDoc{}, fmt.Errorf("workspace file %s/%s without content", agent, f)
	}
	if err := checkWorkspaceText(*l.Content); err != nil {
		return WorkspaceDoc{}, errors.New(ErrorMessage(err))
	}
	return WorkspaceDoc{Agent: agent, File: f, Content: *l.Content}, nil
}

// indexImported puts the written live rows that came with a vector of the
// embedder in use in the index and counts the rest for re-embedding. The
// caller holds indexSync.
func (s *Service) indexImported(written []string, rows []ExportRow, rep *ImportReport) {
	byID := make(map[string]*ExportRow, len(rows))
	for i := range rows {
		byID[rows[i].Memory.ID] = &rows[i]
	}
	id := s.current().embedder.Info().ID
	for _, w := range written {
		r := byID[w]
		if r.Vector == nil || r.Vector.Embedder != id {
			rep.Reembed++
			continue
		}
		if r.Memory.Live() {
			s.indexRow(r.Memory, *r.Vector)
		}
	}
}

// importFile writes a workspace file the agent does not have yet.
func (s *Service) importFile(ctx context.Context, f WorkspaceDoc, rep *ImportReport) error {
	if s.workspace == nil {
		rep.FilesSkipped = append(rep.FilesSkipped, f.Agent+"/"+string(f.File))
		return nil
	}
	cur, err := s.workspace.Read(ctx, f.Agent, f.File)
	if err != nil {
		return err
	}
	switch {
	case cur.Exists && cur.Content == f.Content:
	case cur.Exists:
		rep.FilesSkipped = append(rep.FilesSkipped, f.Agent+"/"+string(f.File))
	default:
		if _, err := s.workspace.Write(ctx, f.Agent, f.File, f.Content, cur.ETag); err != nil {
			return fmt.Errorf("import %s/%s: %w", f.Agent, f.File, err)
		}
		rep.Files++
	}
	return nil
}
