package memory

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// Topics counts the consolidation owners whose topics the import
	// added to (see MergeTopics).
	Topics int `json:"topics"`
}

// importBatch is what an export holds, checked.
type importBatch struct {
	rows   []ExportRow
	files  []WorkspaceDoc
	graph  GraphExport
	topics []OwnerTopics
}

// Import reads an export (see Export) and merges it in: every memory whose
// id is new is written with all its fields, history and (if it came with
// one) vector, in one transaction; one already here is left as it is.
// Every line is checked first: if any is invalid, the error lists the
// first ones by line number and nothing is written. A workspace file is
// written when the agent has none; one with other content is kept.
//
// The files are written before the memories are committed: if a file or
// the commit fails (a full disk), the files this import wrote are taken
// back, so a failed import leaves nothing. Across a crash too: the files
// it is about to write are written down first (the JournalImport entry,
// which the commit clears), and FinishImport takes back those a crash
// left without their memories.
func (s *Service) Import(ctx context.Context, r io.Reader) (ImportReport, error) {
	var rep ImportReport
	b, err := s.readExport(r, &rep)
	if err != nil {
		return rep, err
	}
	written, err := s.importLocked(ctx, b, &rep)
	if err != nil {
		return ImportReport{Lines: rep.Lines}, err
	}
	rows := b.rows
	rep.Imported, rep.Skipped = len(written), len(rows)-len(written)
	if rep.Reembed > 0 {
		s.kickReembed()
	}
	s.queueImportedTurns(written, rows)
	s.events.Publish(Event{Type: "import.done", At: s.now().UTC(), Data: rep})
	return rep, nil
}

// importLocked writes the files and commits the memories of b, and
// returns the ids written. Imports write one at a time (Service.importing);
// each reads and checks its file before it waits. The files and the
// memories go in under one read lock of indexSync: a snapshot restore
// (which takes it) waits for the whole import and never swaps the
// workspace between the two, so an acknowledged import is in the restored
// data whole; and an embedder switch cannot come between the commit and
// the index update.
func (s *Service) importLocked(ctx context.Context, b importBatch, rep *ImportReport) ([]string, error) {
	if !s.importing.TryLock() {
		if importWaits != nil {
			importWaits()
		}
		s.importing.Lock()
	}
	defer s.importing.Unlock()
	s.indexSync.RLock()
	defer s.indexSync.RUnlock()
	var wrote []WorkspaceDoc
	undoFiles := func() {
		for _, f := range wrote { // best effort: the error already says what failed
			_ = s.workspace.Remove(context.WithoutCancel(ctx), f.Agent, f.File, f.ETag)
		}
		_ = s.store.SetJournal(context.WithoutCancel(ctx), JournalImport, "")
	}
	if err := s.journalFiles(ctx, b.files); err != nil {
		return nil, err
	}
	for _, f := range b.files {
		doc, err := s.importFile(ctx, f, rep)
		if err != nil {
			undoFiles()
			return nil, err
		}
		if doc != nil {
			wrote = append(wrote, *doc)
		}
	}
	if afterImportFiles != nil {
		afterImportFiles()
	}
	brought := make(map[string]bool, len(b.rows))
	for _, r := range b.rows {
		brought[r.Memory.ID] = true
	}
	done, err := s.store.ImportRows(ctx, ImportSet{Rows: b.rows, Graph: b.graph, Topics: keepMembers(b.topics, brought), At: s.now().UTC()})
	if err != nil {
		undoFiles()
		return nil, err
	}
	s.indexImported(done.IDs, b.rows, rep)
	if len(done.Retired) > 0 { // under indexSync, which no edit of them can pass
		s.applyCascade(ctx, Cascade{Retired: done.Retired})
	}
	rep.Graph, rep.Topics = done.Graph, done.Topics
	return done.IDs, nil
}

// readExport parses and checks every line; it returns what they hold only
// if all are valid.
func (s *Service) readExport(r io.Reader, rep *ImportReport) (importBatch, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxImportLine)
	var rows []ExportRow
	var files []WorkspaceDoc
	var graph GraphExport
	var lines graphRecordLines // the line of each graph record, for checkGraph's problems
	var topics []OwnerTopics
	var problems []string
	seen, seenFiles, seenTopics := map[string]int{}, map[string]int{}, map[string]int{}
	ended, records := false, 0
	emb := s.current().embedder.Info()
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
		records++
		first := records == 1 // the header, on line n (blank lines before it are allowed)
		if !utf8.Valid(b) {   // the decoder would store U+FFFD in its place
			if first {
				return importBatch{}, Errorf(EINVALID, "not a HyAtlas export: line %d is not UTF-8 text", n)
			}
			fail(n, "not valid UTF-8")
			continue
		}
		var l exportLine
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			if first { // a Markdown export, or some other file
				return importBatch{}, Errorf(EINVALID, "not a HyAtlas export: line %d is not a JSON record (a Markdown export is for reading; import a JSON Lines export)", n)
			}
			fail(n, "%s", decodeProblem(err))
			continue
		}
		switch {
		case first && (l.Type != "header" || l.Format != ExportFormat):
			return importBatch{}, Errorf(EINVALID, "line %d: not a HyAtlas export (no %q header)", n, ExportFormat)
		case l.Type == "header":
			if !first {
				fail(n, "a second header")
			} else if l.Version < 1 || l.Version > ExportVersion {
				return importBatch{}, Errorf(EINVALID, "line %d: export version %d; this HyAtlas reads versions 1 to %d", n, l.Version, ExportVersion)
			}
		case l.Type == "end" && ended:
			fail(n, "a second end record")
		case l.Type == "end":
			if l.Memories == nil || l.Files == nil || *l.Memories != len(rows) || *l.Files != len(files) ||
				!countMatches(l.Nodes, len(graph.Nodes)) || !countMatches(l.Relations, len(graph.Relations)) ||
				!countMatches(l.Links, len(graph.Links)) || !countMatches(l.TopicOwners, len(topics)) {
				if len(problems) == 0 { // else the counts are off because of those lines
					fail(n, "the end record does not match the records before it")
				}
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
			if other, dup := seen[row.Memory.ID]; dup {
				fail(n, "memory %s is also on line %d", row.Memory.ID, other)
				continue
			}
			if v := row.Vector; v != nil && v.Embedder == emb.ID && len(v.Values) != emb.Dims {
				fail(n, "memory %s: its vector has %d numbers, but %s makes %d", row.Memory.ID, len(v.Values), emb.ID, emb.Dims)
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
			key := doc.Agent + "/" + string(doc.File)
			if other, dup := seenFiles[key]; dup {
				fail(n, "workspace file %s is also on line %d", key, other)
				continue
			}
			seenFiles[key] = n
			files = append(files, doc)
		case l.Type == "graph_node":
			node, err := checkImportedNode(l)
			if err != nil {
				fail(n, "%v", err)
				continue
			}
			graph.Nodes = append(graph.Nodes, node)
			lines.nodes = append(lines.nodes, n)
		case l.Type == "graph_relation":
			rel, err := checkImportedRelation(l)
			if err != nil {
				fail(n, "%v", err)
				continue
			}
			graph.Relations = append(graph.Relations, rel)
			lines.relations = append(lines.relations, n)
		case l.Type == "topics":
			t, err := checkImportedTopics(l)
			if err != nil {
				fail(n, "%v", err)
				continue
			}
			if other, dup := seenTopics[t.Owner]; dup {
				fail(n, "the topics of %s are also on line %d", t.Owner, other)
				continue
			}
			seenTopics[t.Owner] = n
			topics = append(topics, t)
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
	if rep.Lines == 0 && len(problems) == 0 { // a first line too long is not an empty import
		return importBatch{}, Errorf(EBADREQUEST, "the import is empty")
	}
	if !ended && len(problems) == 0 {
		fail(rep.Lines, "the export is cut short (no end record); export it again")
	}
	if len(problems) == 0 {
		if err := checkGraph(graph, lines); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return importBatch{}, Errorf(EINVALID, "nothing was imported: %s", strings.Join(problems, "; "))
	}
	rep.Memories = len(rows)
	return importBatch{rows: rows, files: files, graph: graph, topics: topics}, nil
}

// countMatches checks an end record's count of a kind of record; an
// export of a version without the kind has none (and no such records).
func countMatches(said *int, got int) bool {
	if said == nil {
		return got == 0
	}
	return *said == got
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

// importFile writes a workspace file the agent does not have yet, and
// returns it as written (nil when it wrote nothing).
func (s *Service) importFile(ctx context.Context, f WorkspaceDoc, rep *ImportReport) (*WorkspaceDoc, error) {
	if s.workspace == nil {
		rep.FilesSkipped = append(rep.FilesSkipped, f.Agent+"/"+string(f.File))
		return nil, nil
	}
	cur, err := s.workspace.Read(ctx, f.Agent, f.File)
	if err != nil {
		return nil, err
	}
	switch {
	case cur.Exists && cur.Content == f.Content:
	case cur.Exists:
		rep.FilesSkipped = append(rep.FilesSkipped, f.Agent+"/"+string(f.File))
	default:
		doc, err := s.workspace.Write(ctx, f.Agent, f.File, f.Content, cur.ETag)
		if err != nil {
			return nil, fmt.Errorf("import %s/%s: %w", f.Agent, f.File, err)
		}
		rep.Files++
		return &doc, nil
	}
	return nil, nil
}

// decodeProblem words why a line is not a record, for a person: which
// field holds what kind of value, not the decoder's Go names.
func decodeProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the record"
		}
		return fmt.Sprintf("%s is %s, where %s belongs", field, jsonKind(te.Value), goKind(te.Type.Kind().String()))
	case errors.As(err, &se):
		return fmt.Sprintf("not JSON (at character %d)", se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "not JSON (the line ends part way through a record)"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "a field an export does not have: " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "not a record: " + strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKind(v string) string {
	switch v {
	case "number", "string", "object", "array", "bool":
		return map[string]string{"number": "a number", "string": "text", "object": "an object", "array": "a list", "bool": "true or false"}[v]
	}
	return v
}

func goKind(k string) string {
	switch {
	case k == "string":
		return "text"
	case strings.HasPrefix(k, "int") || strings.HasPrefix(k, "uint") || strings.HasPrefix(k, "float"):
		return "a number"
	case k == "bool":
		return "true or false"
	case k == "slice" || k == "array":
		return "a list"
	case k == "map" || k == "struct" || k == "ptr":
		return "an object"
	}
	return k
}

// JournalImport names the journal entry of an import under way: the
// workspace files it writes before its rows commit.
const JournalImport = "import"

// journaledFile is a workspace file an import writes, by the hash of the
// content it writes: a file changed since is not the import's to take back.
type journaledFile struct {
	Agent  string        `json:"agent"`
	File   WorkspaceFile `json:"file"`
	SHA256 string        `json:"sha256"`
}

// afterImportFiles, when set (tests), runs between an import's files and
// its commit: where a crash leaves the files without their memories.
var afterImportFiles func()

// importWaits, when set (tests), runs when an import waits for another.
var importWaits func()

// journalFiles writes down the workspace files an import is about to
// write: those the agent does not have yet (a file already there is never
// the import's to take back).
func (s *Service) journalFiles(ctx context.Context, files []WorkspaceDoc) error {
	if s.workspace == nil {
		return nil
	}
	var list []journaledFile
	for _, f := range files {
		cur, err := s.workspace.Read(ctx, f.Agent, f.File)
		if err != nil {
			return err
		}
		if cur.Exists {
			continue
		}
		sum := sha256.Sum256([]byte(f.Content))
		list = append(list, journaledFile{Agent: f.Agent, File: f.File, SHA256: hex.EncodeToString(sum[:])})
	}
	if len(list) == 0 {
		return nil
	}
	doc, err := json.Marshal(list)
	if err != nil {
		return fmt.Errorf("journal the import: %w", err)
	}
	return s.store.SetJournal(ctx, JournalImport, string(doc))
}

// FinishImport takes back the workspace files of an import a crash cut
// off before its memories were committed (the journal entry is still
// there): each file that still holds what the import wrote goes. The
// engine calls it at start. It returns how many files it took back.
func (s *Service) FinishImport(ctx context.Context) (int, error) {
	doc, err := s.store.Journal(ctx, JournalImport)
	if err != nil || doc == "" {
		return 0, err
	}
	var list []journaledFile
	if err := json.Unmarshal([]byte(doc), &list); err != nil {
		return 0, s.store.SetJournal(ctx, JournalImport, "") // unreadable: nothing to go by
	}
	n := 0
	for _, f := range list {
		if s.workspace == nil {
			break
		}
		cur, err := s.workspace.Read(ctx, f.Agent, f.File)
		if err != nil {
			return n, fmt.Errorf("finish an interrupted import: %w", err)
		}
		sum := sha256.Sum256([]byte(cur.Content))
		if !cur.Exists || hex.EncodeToString(sum[:]) != f.SHA256 {
			continue // not written yet, or changed since: not the import's
		}
		if err := s.workspace.Remove(ctx, f.Agent, f.File, cur.ETag); err != nil {
			return n, fmt.Errorf("finish an interrupted import: %w", err)
		}
		n++
	}
	return n, s.store.SetJournal(ctx, JournalImport, "")
}
