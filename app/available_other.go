//go:build !desktop

package app

// Available reports whether this build can open a window: Wails needs the
// desktop build tag (make build and wails build set it).
const Available = false
