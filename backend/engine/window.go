package engine

import "hyatlas/backend/api"

// FileDialogs asks the person at the desktop window for a file: where to
// save an export, which export to import.
type FileDialogs = api.FileDialogs

// SetFileDialogs gives the window's pages the window's file dialogs (nil:
// the window closed). Only the window's own requests can open one.
func (e *Engine) SetFileDialogs(d *FileDialogs) { e.API.SetFileDialogs(d) }
