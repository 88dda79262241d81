package memory

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// The agent workspace (the MeepaGateway model): per agent, three Markdown
// files beside the memory store. SOUL.md is the agent's persona, MEMORY.md
// its long-term notes, USER.md the user's profile. They are read and
// replaced whole; every version has an ETag, and a write that names the
// version it was based on (If-Match) fails with ESTALE when the file
// changed since, so a concurrent edit is never silently overwritten.

// WorkspaceFile names one of the three files.
type WorkspaceFile string

// The workspace files.
const (
	FileSoul   WorkspaceFile = "SOUL.md"
	FileMemory WorkspaceFile = "MEMORY.md"
	FileUser   WorkspaceFile = "USER.md"
)

// MaxWorkspaceBytes bounds one workspace file.
const MaxWorkspaceBytes = 256 << 10

// DefaultAgent is the workspace of a caller that names no agent.
const DefaultAgent = "default"

var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// WorkspaceFiles are the files of an agent's workspace.
var WorkspaceFiles = []WorkspaceFile{FileSoul, FileMemory, FileUser}

// IsAgentFolder says whether name, as a folder is spelt on disk, is an
// agent's workspace folder.
func IsAgentFolder(name string) bool {
	a, err := ParseAgent(name)
	return err == nil && a == name
}

// IsWorkspaceEntry says whether agent/file, as a folder and a file name
// are spelt on disk, is an agent's workspace file: what snapshots keep
// and restore. Anything else in the workspace folder is not HyAtlas's.
func IsWorkspaceEntry(agent, file string) bool {
	if !IsAgentFolder(agent) {
		return false
	}
	f, err := ParseWorkspaceFile(file)
	return err == nil && string(f) == file
}

// ParseWorkspaceFile reads a file name: SOUL.md, MEMORY.md or USER.md
// (any case, with or without .md).
func ParseWorkspaceFile(s string) (WorkspaceFile, error) {
	name := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), ".MD") + ".md"
	for _, f := range WorkspaceFiles {
		if string(f) == name {
			return f, nil
		}
	}
	return "", Errorf(EINVALID, "unknown workspace file %q (SOUL.md, MEMORY.md or USER.md)", s)
}

// ParseAgent checks an agent name ("" is DefaultAgent): letters, digits,
// dots, dashes and underscores, at most 64, not starting with a dot.
func ParseAgent(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultAgent, nil
	}
	if !agentName.MatchString(s) {
		return "", Errorf(EINVALID, "agent %q: use the letters a-z and A-Z, digits, '.', '-' and '_' (at most 64, not starting with '.' or '-')", s)
	}
	return s, nil
}

// WorkspaceDoc is one version of a workspace file. A file never written
// reads as empty, with Exists false.
type WorkspaceDoc struct {
	Agent      string        `json:"agent"`
	File       WorkspaceFile `json:"file"`
	Content    string        `json:"content"`
	ETag       string        `json:"etag"`
	Exists     bool          `json:"exists"`
	ModifiedAt time.Time     `json:"modified_at"`
}

// Workspace keeps the files (backend/workspace implements it on disk).
type Workspace interface {
	Read(ctx context.Context, agent string, f WorkspaceFile) (WorkspaceDoc, error)
	// Write replaces the file atomically. With ifMatch set, it fails with
	// ESTALE unless the file's current ETag is ifMatch.
	Write(ctx context.Context, agent string, f WorkspaceFile, content, ifMatch string) (WorkspaceDoc, error)
	// Append adds text at the end of the file (after a blank line when the
	// file does not end with one), atomically.
	Append(ctx context.Context, agent string, f WorkspaceFile, text string) (WorkspaceDoc, error)
	// List returns every file that exists, by agent then file name.
	List(ctx context.Context) ([]WorkspaceDoc, error)
	// Remove deletes the file if its ETag is still ifMatch (an import
	// takes back the files it wrote when it fails); a file changed since,
	// or gone, is left as it is.
	Remove(ctx context.Context, agent string, f WorkspaceFile, ifMatch string) error
}

func (s *Service) workspaceReady() error {
	if s.workspace == nil {
		return Errorf(EUNAVAILABLE, "the agent workspace is not available")
	}
	return nil
}

// ReadWorkspace reads an agent's file.
func (s *Service) ReadWorkspace(ctx context.Context, agent, file string) (WorkspaceDoc, error) {
	a, f, err := s.workspaceTarget(agent, file)
	if err != nil {
		return WorkspaceDoc{}, err
	}
	return s.workspace.Read(ctx, a, f)
}

// WriteWorkspace replaces an agent's file (see Workspace.Write).
func (s *Service) WriteWorkspace(ctx context.Context, agent, file, content, ifMatch string) (WorkspaceDoc, error) {
	a, f, err := s.workspaceTarget(agent, file)
	if err != nil {
		return WorkspaceDoc{}, err
	}
	if err := checkWorkspaceText(content); err != nil {
		return WorkspaceDoc{}, err
	}
	d, err := s.workspace.Write(ctx, a, f, content, strings.TrimSpace(ifMatch))
	if err == nil {
		s.events.Publish(Event{Type: "workspace.changed", At: s.now().UTC(), Data: map[string]any{"agent": a, "file": f}})
	}
	return d, err
}

// AppendWorkspace adds a note at the end of an agent's file.
func (s *Service) AppendWorkspace(ctx context.Context, agent, file, text string) (WorkspaceDoc, error) {
	a, f, err := s.workspaceTarget(agent, file)
	if err != nil {
		return WorkspaceDoc{}, err
	}
	if strings.TrimSpace(text) == "" {
		return WorkspaceDoc{}, Errorf(EBADREQUEST, "the note is empty")
	}
	if err := checkWorkspaceText(text); err != nil {
		return WorkspaceDoc{}, err
	}
	d, err := s.workspace.Append(ctx, a, f, text)
	if err == nil {
		s.events.Publish(Event{Type: "workspace.changed", At: s.now().UTC(), Data: map[string]any{"agent": a, "file": f}})
	}
	return d, err
}

func (s *Service) workspaceTarget(agent, file string) (string, WorkspaceFile, error) {
	if err := s.workspaceReady(); err != nil {
		return "", "", err
	}
	a, err := ParseAgent(agent)
	if err != nil {
		return "", "", err
	}
	f, err := ParseWorkspaceFile(file)
	return a, f, err
}

func checkWorkspaceText(s string) error {
	if !utf8.ValidString(s) {
		return Errorf(EINVALID, "the text is not valid UTF-8")
	}
	if len(s) > MaxWorkspaceBytes {
		return Errorf(EINVALID, "a workspace file is at most %d KiB", MaxWorkspaceBytes>>10)
	}
	return nil
}
