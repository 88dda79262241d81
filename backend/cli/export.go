package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"hyatlas/backend/api/client"
	"hyatlas/backend/atomicfile"
	"hyatlas/backend/memory"
)

// runExport writes an export to a file (or stdout with -o -).
func runExport(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	out := fs.String("o", "-", "the file to write (- is standard output)")
	markdown := fs.Bool("markdown", false, "a Markdown export for reading (not for import)")
	vectors := fs.Bool("vectors", false, "include each memory's vector (an import then needs no re-embedding)")
	user := fs.String("user", "", "only this user's memories")
	agent := fs.String("agent", "", "only this agent's memories and workspace")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"-o needs a file name (- for standard output)"}
	}
	special := false // a pipe or a device (-o /dev/stdout, a FIFO): written into, not replaced
	if *out != "-" {
		fi, err := os.Stat(*out)
		switch {
		case err == nil && fi.IsDir():
			return usageError{fmt.Sprintf("-o %s is a directory: give a file name", *out)}
		case err == nil:
			special = !fi.Mode().IsRegular()
		default:
			if d, err := os.Stat(filepath.Dir(*out)); err != nil || !d.IsDir() {
				// Not bad usage: the command is right, the folder is not there (exit 1).
				return fmt.Errorf("-o %s: the folder %s does not exist; nothing was exported", *out, filepath.Dir(*out))
			}
		}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	opts := client.ExportOptions{Markdown: *markdown, Vectors: *vectors, UserID: *user, AgentID: *agent}
	if *out == "-" {
		return explain(c.Long().Export(ctx, opts, e.Stdout))
	}
	if special {
		f, err := os.OpenFile(*out, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("export to %s: %w", *out, err)
		}
		defer f.Close()
		return explain(c.Long().Export(ctx, opts, f))
	}
	// Written beside the target and renamed (through a symbolic link, the
	// file it points to), so a failed export never leaves a half file
	// under the name.
	if err := atomicfile.WriteFrom(*out, 0o600, func(w io.Writer) error { return c.Long().Export(ctx, opts, w) }); err != nil {
		return explain(err)
	}
	st, _ := os.Stat(*out)
	fmt.Fprintf(e.Stdout, "exported to %s (%d bytes)\n", *out, st.Size())
	return nil
}

// runImport merges an export into the running instance.
func runImport(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	var r io.Reader = e.Stdin
	if pos[0] != "-" {
		if fi, err := os.Stat(pos[0]); err == nil && fi.IsDir() {
			return usageError{fmt.Sprintf("%s is a directory: give the export file", pos[0])}
		}
		f, err := os.Open(pos[0])
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r = f
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	c = c.Long()
	before, err := snapshotBeforeImport(ctx, c)
	if err != nil {
		return err
	}
	rep, err := c.Import(ctx, r)
	var answered *client.Error
	switch {
	case errors.As(err, &answered):
		// Refused or failed: an import is all or nothing, so nothing came in.
		_ = c.Do(ctx, http.MethodDelete, "/api/v1/snapshots/"+url.PathEscape(before), nil, nil)
		return explain(err)
	case err != nil:
		// The answer was lost: it may have come in, and the snapshot undoes it.
		return fmt.Errorf("%w\nthe snapshot made just before it is kept: hyatlas snapshot restore %s undoes the import if it came in", explain(err), before)
	case !importedAnything(rep):
		_ = c.Do(ctx, http.MethodDelete, "/api/v1/snapshots/"+url.PathEscape(before), nil, nil)
	default:
		defer fmt.Fprintf(e.Stderr, "undo with: hyatlas snapshot restore %s (the snapshot made just before the import)\n", before)
	}
	if *asJSON {
		return printJSON(e.Stdout, rep)
	}
	fmt.Fprintf(e.Stdout, "imported %d memories (%d were already here, left as they are); %d workspace files\n",
		rep.Imported, rep.Skipped, rep.Files)
	if g := rep.Graph; g.Nodes+g.Relations+g.Links > 0 {
		fmt.Fprintf(e.Stdout, "knowledge graph: %d new entities, %d new relations (with their history), %d links\n",
			g.Nodes, g.Relations, g.Links)
	}
	if rep.Topics > 0 {
		fmt.Fprintf(e.Stdout, "consolidation: the topics of %d owners came along (not sent to the model again)\n", rep.Topics)
	}
	if rep.Reembed > 0 {
		fmt.Fprintf(e.Stdout, "%d need a vector from this machine's model: re-embedding runs in the background (`hyatlas status` shows it)\n", rep.Reembed)
	}
	for _, f := range rep.FilesSkipped {
		fmt.Fprintf(e.Stdout, "kept this instance's %s (the import's differs)\n", f)
	}
	return nil
}

// snapshotBeforeImport makes the snapshot that undoes an import, as the
// window does; without it nothing is imported.
func snapshotBeforeImport(ctx context.Context, c *client.Client) (string, error) {
	var snap struct {
		ID string `json:"id"`
	}
	if err := c.Do(ctx, http.MethodPost, "/api/v1/snapshots", nil, &snap); err != nil {
		return "", fmt.Errorf("nothing was imported: the snapshot that makes the import undoable could not be made: %w", explain(err))
	}
	return snap.ID, nil
}

// importedAnything says whether an import changed anything (memories,
// files, the graph, topics); with nothing new no undo is needed.
func importedAnything(r memory.ImportReport) bool {
	return r.Imported > 0 || r.Files > 0 || r.Graph.Nodes+r.Graph.Relations+r.Graph.Links > 0 || r.Topics > 0
}
