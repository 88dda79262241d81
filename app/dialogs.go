package app

import (
	"context"
	"path/filepath"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"hyatlas/backend/engine"
)

// fileDialogs are the window's native file dialogs, for Export and Import
// (a webview neither downloads nor, everywhere, opens a file input).
func fileDialogs(ctx context.Context) *engine.FileDialogs {
	return &engine.FileDialogs{
		Save: func(title, name string) (string, error) {
			filter := runtime.FileFilter{DisplayName: "JSON Lines (*.jsonl)", Pattern: "*.jsonl"}
			if filepath.Ext(name) == ".md" {
				filter = runtime.FileFilter{DisplayName: "Markdown (*.md)", Pattern: "*.md"}
			}
			return runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{Title: title, DefaultFilename: name,
				Filters: []runtime.FileFilter{filter}, CanCreateDirectories: true})
		},
		Open: func(title string) (string, error) {
			return runtime.OpenFileDialog(ctx, runtime.OpenDialogOptions{Title: title,
				Filters: []runtime.FileFilter{{DisplayName: "HyAtlas exports (*.jsonl)", Pattern: "*.jsonl"},
					{DisplayName: "All files", Pattern: "*"}}})
		},
	}
}
