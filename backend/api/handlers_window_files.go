package api

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"hyatlas/backend/atomicfile"
	"hyatlas/backend/memory"
)

// FileDialogs asks the person at the desktop window for a file, for what
// a browser does with a download and a file input (a webview does
// neither). Each returns "" when the person cancels.
type FileDialogs struct {
	// Save asks where to save; name is the suggested file name.
	Save func(title, name string) (string, error)
	// Open asks which file to open.
	Open func(title string) (string, error)
}

// windowFiles holds the window's dialogs (nil when headless) and lets one
// dialog open at a time.
type windowFiles struct {
	mu      sync.Mutex
	dialogs *FileDialogs
}

// SetFileDialogs sets the window's file dialogs (nil: there is no window).
func (s *Server) SetFileDialogs(d *FileDialogs) {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	s.files.dialogs = d
}

// fileDialogs returns the window's dialogs, or why there are none: only
// the window's own pages (in-process) may open one, on the person's
// screen.
func (s *Server) fileDialogs(r *http.Request) (*FileDialogs, error) {
	if !inProcess(r) {
		return nil, memory.Errorf(memory.ECONFLICT, "only the desktop window asks for a file; a browser page downloads the export (GET /api/v1/export) and uploads an import (POST /api/v1/import)")
	}
	if s.files.dialogs == nil {
		return nil, memory.Errorf(memory.ECONFLICT, "this HyAtlas runs without a window")
	}
	return s.files.dialogs, nil
}

// ExportedFile is POST /api/v1/window/export's answer.
type ExportedFile struct {
	Cancelled bool   `json:"cancelled"`
	Path      string `json:"path,omitempty"`
	Bytes     int64  `json:"bytes,omitempty"`
	memory.ExportReport
}

// windowExport asks where to save an export of everything (format jsonl,
// the default, or markdown) and writes it there: beside the file and
// renamed, readable by the user alone, so a failed export leaves no half
// file under the name.
func (s *Server) windowExport(w http.ResponseWriter, r *http.Request) error {
	markdown := false
	switch f := r.URL.Query().Get("format"); f {
	case "", "jsonl":
	case "markdown", "md":
		markdown = true
	default:
		return memory.Errorf(memory.EINVALID, "format must be jsonl or markdown, not %q", f)
	}
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	d, err := s.fileDialogs(r)
	if err != nil {
		return err
	}
	name, title := "hyatlas-export-"+time.Now().Format("20060102")+".jsonl", "Export every memory (for import)"
	if markdown {
		name, title = "hyatlas-memory-"+time.Now().Format("20060102")+".md", "Export every memory to read (Markdown)"
	}
	path, err := d.Save(title, name)
	if err != nil {
		return memory.Errorf(memory.EINTERNAL, "the save dialog failed: %v", err)
	}
	if path == "" {
		writeJSON(w, http.StatusOK, ExportedFile{Cancelled: true})
		return nil
	}
	var rep memory.ExportReport
	var exportErr error
	file := &FailWriter{} // tells the file's own failure (a full disk) from the store's
	err = atomicfile.WriteFrom(path, 0o600, func(f io.Writer) error {
		file.W = f
		if markdown {
			rep, exportErr = s.mem.ExportMarkdown(r.Context(), file, memory.ExportInput{})
		} else {
			rep, exportErr = s.mem.Export(r.Context(), file, memory.ExportInput{})
		}
		return exportErr
	})
	switch {
	case file.Err != nil: // the place chosen has no room, or failed
		return memory.Errorf(memory.EINVALID, "could not write the export to %s (nothing was written there): %v", path, file.Err)
	case exportErr != nil:
		return exportErr
	case err != nil: // the place chosen: no right to write there
		return memory.Errorf(memory.EINVALID, "could not write the export to %s (nothing was written there): %v", path, errors.Unwrap(err))
	}
	out := ExportedFile{Path: path, ExportReport: rep}
	if fi, err := os.Stat(path); err == nil {
		out.Bytes = fi.Size()
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// FailWriter passes writes to W and keeps the first error of its own in
// Err, so a failed copy can tell its own write (a full disk, a closed
// pipe) from the other side's failure. The CLI's export uses it too.
type FailWriter struct {
	W   io.Writer
	Err error
}

func (f *FailWriter) Write(p []byte) (int, error) {
	n, err := f.W.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite // a writer that breaks io.Writer's contract
	}
	if err != nil && f.Err == nil {
		f.Err = err
	}
	return n, err
}

// ChosenFile is POST /api/v1/window/import/choose's answer: the export
// the person picked, not read yet.
type ChosenFile struct {
	Cancelled bool   `json:"cancelled"`
	Path      string `json:"path,omitempty"`
	Name      string `json:"name,omitempty"`
	Bytes     int64  `json:"bytes,omitempty"`
}

// windowChooseImport asks which export to import (the system's open
// dialog) and says which, reading nothing yet: the page makes its undo
// snapshot only once there is a file to import.
func (s *Server) windowChooseImport(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err // a junk body is refused, not ignored
	}
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	d, err := s.fileDialogs(r)
	if err != nil {
		return err
	}
	path, err := d.Open("Import a HyAtlas export (.jsonl)")
	if err != nil {
		return memory.Errorf(memory.EINTERNAL, "the open dialog failed: %v", err)
	}
	if path == "" {
		writeJSON(w, http.StatusOK, ChosenFile{Cancelled: true})
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return memory.Errorf(memory.EINVALID, "could not read %s: not a file", path)
	}
	writeJSON(w, http.StatusOK, ChosenFile{Path: path, Name: filepath.Base(path), Bytes: fi.Size()})
	return nil
}

// ImportedFile is POST /api/v1/window/import's answer.
type ImportedFile struct {
	Path string `json:"path"`
	memory.ImportReport
}

// windowImport merges in the export at path (the one windowChooseImport
// returned), as POST /api/v1/import does with its body. Only the window's
// own pages may name a file.
func (s *Server) windowImport(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.fileDialogs(r); err != nil {
		return err
	}
	var req struct {
		Path string `json:"path"`
	}
	if err := decodeJSON(r, &req, false, true); err != nil {
		return err
	}
	if req.Path == "" || !filepath.IsAbs(req.Path) {
		return memory.Errorf(memory.EBADREQUEST, "path: the absolute path of the export to import")
	}
	fi, err := os.Stat(req.Path)
	switch {
	case err != nil:
		return memory.Errorf(memory.EINVALID, "could not read %s: %v", req.Path, err)
	case fi.Size() > MaxImportBytes:
		return importTooLarge()
	}
	f, err := os.Open(req.Path)
	if err != nil {
		return memory.Errorf(memory.EINVALID, "could not read %s: %v", req.Path, err)
	}
	defer f.Close()
	rep, err := s.mem.Import(r.Context(), f)
	if err != nil {
		return err
	}
	if rep.FilesSkipped == nil {
		rep.FilesSkipped = []string{}
	}
	writeJSON(w, http.StatusOK, ImportedFile{Path: req.Path, ImportReport: rep})
	return nil
}
