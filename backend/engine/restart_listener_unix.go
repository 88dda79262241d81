//go:build unix

package engine

// handsOverListener: a restart here is an exec, which can keep the
// listening socket open for the process it starts.
const handsOverListener = true
