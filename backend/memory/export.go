package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Export writes everything a person would need to move their memory:
// JSON Lines, one record per line. The first line is a header; then one
// "memory" record per row (every field, both time axes, provenance, when
// it last faded, its history and, optionally, its vector); then the
// knowledge graph: a "graph_node" record per entity, a "graph_relation"
// record per belief record of each relation (expired ones too, with the
// relation's evidence) and a "link" record per link between facts; then
// a "topics" record per consolidation owner (its topics and where their
// calls stand, so an imported store does not send them all to the model
// again); then one "workspace" record per workspace file. Import reads the
// same format (and versions 1, which had no graph, and 2, no topics).
//
//	{"type":"header","format":"hyatlas-export","version":3,"exported_at":...,"embedder":"glove-..."}
//	{"type":"memory","memory":{...},"decayed_at":...,"history":[...],"vector":{"embedder":...,"dims":300,"parts":2,"data":"<base64>"}}
//	{"type":"graph_node","user_id":"alice","node":{"id":"e...","label":"Globex","type":"organization",...}}
//	{"type":"graph_relation","user_id":"alice","relation":{"id":"r...","from":"e...","to":"e...","relation":"works at",...,"facts":[...],"turns":[...]}}
//	{"type":"link","link":{"a":"m...","b":"m...","kind":"supports","at":...}}
//	{"type":"topics","topics":{"owner":"alice/hermes","state":{"clusters":[...],"next_seq":4,...}}}
//	{"type":"workspace","agent":"meepa","file":"SOUL.md","content":"..."}
//	{"type":"end","memories":N,"files":M,"nodes":N,"relations":R,"links":L,"topic_owners":T}
//
// The end record lets an import tell a complete export from one cut short.

// Export format identifiers.
const (
	ExportFormat  = "hyatlas-export"
	ExportVersion = 3
)

// ExportRow is one memory with its history and, when exported, its
// vector.
type ExportRow struct {
	Memory  Memory
	History []HistoryEntry
	Vector  *Vector
	// DecayedAt is when the row last faded for neglect (zero: never); an
	// import keeps it, so the copy does not fade again early.
	DecayedAt time.Time
}

// exportLine is one line of an export.
type exportLine struct {
	Type string `json:"type"` // header | memory | graph_node | graph_relation | link | topics | workspace | end

	Format     string    `json:"format,omitempty"`
	Version    int       `json:"version,omitempty"`
	ExportedAt time.Time `json:"exported_at,omitzero"`
	Embedder   string    `json:"embedder,omitempty"`

	Memory    *Memory        `json:"memory,omitempty"`
	DecayedAt time.Time      `json:"decayed_at,omitzero"`
	History   []HistoryEntry `json:"history,omitempty"`
	Vector    *exportVector  `json:"vector,omitempty"`

	UserID   string      `json:"user_id,omitempty"` // a graph record's owner
	AgentID  string      `json:"agent_id,omitempty"`
	Node     *GraphNode  `json:"node,omitempty"`
	Relation *GraphEdge  `json:"relation,omitempty"`
	Link     *exportLink `json:"link,omitempty"`

	Topics *OwnerTopics `json:"topics,omitempty"`

	Agent   string        `json:"agent,omitempty"`
	File    WorkspaceFile `json:"file,omitempty"`
	Content *string       `json:"content,omitempty"`

	Memories  *int `json:"memories,omitempty"` // end: how many memory records came before
	Files     *int `json:"files,omitempty"`    // end: how many workspace records
	Nodes     *int `json:"nodes,omitempty"`    // end: graph records (version 2)
	Relations *int `json:"relations,omitempty"`
	Links     *int `json:"links,omitempty"`
	// TopicOwners counts the topics records (version 3).
	TopicOwners *int `json:"topic_owners,omitempty"`
}

// exportVector is a vector as base64 of little-endian float32s: the
// row's vector, then each of its sentence parts.
type exportVector struct {
	Embedder string `json:"embedder"`
	Dims     int    `json:"dims"`
	Parts    int    `json:"parts,omitempty"`
	Data     string `json:"data"`
}

func packVector(v Vector) *exportVector {
	floats := append([]float32(nil), v.Values...)
	for _, p := range v.Parts {
		floats = append(floats, p...)
	}
	b := make([]byte, 4*len(floats))
	for i, f := range floats {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return &exportVector{Embedder: v.Embedder, Dims: len(v.Values), Parts: len(v.Parts), Data: base64.StdEncoding.EncodeToString(b)}
}

func (e *exportVector) unpack() (Vector, error) {
	b, err := base64.StdEncoding.DecodeString(e.Data)
	if err != nil {
		return Vector{}, fmt.Errorf("vector data is not base64")
	}
	if e.Dims < 1 || e.Dims > 8192 || e.Parts < 0 || e.Parts > 64 || len(b) != 4*e.Dims*(1+e.Parts) {
		return Vector{}, fmt.Errorf("vector of %d dims and %d parts does not match its %d bytes", e.Dims, e.Parts, len(b))
	}
	floats := make([]float32, len(b)/4)
	for i := range floats {
		floats[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	v := Vector{Embedder: e.Embedder, Values: floats[:e.Dims]}
	if !usable(v.Values) {
		return Vector{}, fmt.Errorf("vector is zero or not finite")
	}
	for p := range e.Parts {
		part := floats[e.Dims*(1+p) : e.Dims*(2+p)]
		if !usable(part) { // the index would refuse the row, and rebuilding it at start
			return Vector{}, fmt.Errorf("sentence vector %d is zero or not finite", p+1)
		}
		v.Parts = append(v.Parts, part)
	}
	return v, nil
}

// ExportInput selects what to export.
type ExportInput struct {
	UserID, AgentID string // "" every owner (a user id covers its aliases)
	Vectors         bool   // include each row's saved vector
}

// ExportReport counts what an export wrote.
type ExportReport struct {
	Memories  int `json:"memories"`
	Files     int `json:"files"`
	Nodes     int `json:"nodes"`
	Relations int `json:"relations"` // belief records
	Links     int `json:"links"`
	Topics    int `json:"topics"` // consolidation owners whose topics were written
}

// Export writes the JSON Lines export to w, streaming.
func (s *Service) Export(ctx context.Context, w io.Writer, in ExportInput) (ExportReport, error) {
	var rep ExportReport
	scope, err := s.scope([]string{in.UserID}, in.AgentID)
	if err != nil {
		return rep, err // before a byte is written
	}
	if err := s.checkExportFiles(ctx, in); err != nil {
		return rep, err // before a byte is written
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	err = enc.Encode(exportLine{Type: "header", Format: ExportFormat, Version: ExportVersion,
		ExportedAt: s.now().UTC(), Embedder: s.EmbedderInfo().ID})
	if err != nil {
		return rep, fmt.Errorf("export: %w", err)
	}
	topics, err := s.readTopics(ctx)
	if err != nil {
		return rep, err
	}
	agents, facts := map[string]bool{}, map[string]bool{}
	err = s.store.ScanExport(ctx, scope, in.Vectors, func(r ExportRow) error {
		m := r.Memory
		agents[m.Owner.AgentID] = true
		if m.Layer == LayerFact {
			facts[m.ID] = true
		}
		line := exportLine{Type: "memory", Memory: &m, History: r.History, DecayedAt: r.DecayedAt}
		if r.Vector != nil {
			line.Vector = packVector(*r.Vector)
		}
		rep.Memories++
		return enc.Encode(line)
	})
	if err != nil {
		return rep, fmt.Errorf("export: %w", err)
	}
	if s.graphStore != nil {
		g, err := s.graphStore.GraphExport(ctx, scope)
		if err != nil {
			return rep, fmt.Errorf("export the graph: %w", err)
		}
		for _, l := range graphLines(g) {
			if err := enc.Encode(l); err != nil {
				return rep, fmt.Errorf("export: %w", err)
			}
		}
		rep.Nodes, rep.Relations, rep.Links = len(g.Nodes), len(g.Relations), len(g.Links)
	}
	topics = keepMembers(topics, facts)
	for i := range topics {
		if err := enc.Encode(exportLine{Type: "topics", Topics: &topics[i]}); err != nil {
			return rep, fmt.Errorf("export: %w", err)
		}
		rep.Topics++
	}
	docs, err := s.exportedFiles(ctx, in, agents)
	if err != nil {
		return rep, err
	}
	for _, d := range docs {
		line, err := fileLine(d) // checked again: it may have changed since
		if err != nil {
			return rep, err
		}
		if _, err := bw.Write(line); err != nil {
			return rep, fmt.Errorf("export: %w", err)
		}
		rep.Files++
	}
	if err := enc.Encode(exportLine{Type: "end", Memories: &rep.Memories, Files: &rep.Files,
		Nodes: &rep.Nodes, Relations: &rep.Relations, Links: &rep.Links, TopicOwners: &rep.Topics}); err != nil {
		return rep, fmt.Errorf("export: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return rep, fmt.Errorf("export: %w", err)
	}
	return rep, nil
}

// exportedFiles are the workspace files an export carries: the agent's
// when one is named; for one user's export, those of the agents that
// wrote the user's memories (agents, seen while exporting them); else
// every agent's.
func (s *Service) exportedFiles(ctx context.Context, in ExportInput, agents map[string]bool) ([]WorkspaceDoc, error) {
	if s.workspace == nil {
		return nil, nil
	}
	docs, err := s.workspace.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("export the workspace: %w", err)
	}
	keep := func(d WorkspaceDoc) bool {
		switch {
		case in.AgentID != "":
			return d.Agent == in.AgentID
		case strings.TrimSpace(in.UserID) != "":
			// A memory written with no agent went to the default workspace.
			return agents[d.Agent] || d.Agent == DefaultAgent && agents[""]
		}
		return true
	}
	return slices.DeleteFunc(docs, func(d WorkspaceDoc) bool { return !keep(d) }), nil
}

// checkExportFiles refuses, before anything is written, an export that
// would carry a workspace file its import could not read back as it is:
// one not UTF-8 (JSON would carry U+FFFD in place of its bytes) or too
// large for a line of an export. It checks every file the export may
// carry (a user's export carries only some; which, the memories tell).
func (s *Service) checkExportFiles(ctx context.Context, in ExportInput) error {
	if s.workspace == nil {
		return nil
	}
	docs, err := s.workspace.List(ctx)
	if err != nil {
		return nil // a workspace that cannot be read fails the export where it is read, as any failed read does
	}
	for _, d := range docs {
		if in.AgentID != "" && d.Agent != in.AgentID {
			continue
		}
		if _, err := fileLine(d); err != nil {
			return err
		}
	}
	return nil
}

// fileLine is the export's line for a workspace file, or why an import
// could not read it back.
func fileLine(d WorkspaceDoc) ([]byte, error) {
	if !utf8.ValidString(d.Content) {
		return nil, Errorf(EINVALID, "nothing was exported: the workspace file %s/%s is not UTF-8 text, which an export cannot carry as it is: save it as UTF-8 (or move it out of the workspace folder) and export again", d.Agent, d.File)
	}
	content := d.Content
	var b bytes.Buffer // as the export's encoder writes it: a line, < > & as they are
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(exportLine{Type: "workspace", Agent: d.Agent, File: d.File, Content: &content}); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if b.Len() > maxImportLine {
		return nil, Errorf(EINVALID, "nothing was exported: the workspace file %s/%s is too large for an export (its line would pass %d MiB): make it smaller (or move it out of the workspace folder) and export again", d.Agent, d.File, maxImportLine>>20)
	}
	return b.Bytes(), nil
}
