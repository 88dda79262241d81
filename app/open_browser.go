package app

import "github.com/pkg/browser"

// openInBrowser opens a local page in the person's default browser (the
// system's opener: xdg-open, open, or the Windows shell), which Wails'
// BrowserOpenURL refuses for a file.
func openInBrowser(path string) error { return browser.OpenFile(path) }
