//go:build !unix

package engine

// handsOverListener: a restart here starts a new process beside this one,
// which must find the port free once this one exits.
const handsOverListener = false
