package memory

// DecayBatch lets the tests of package memory_test fade in small batches.
var DecayBatch = &decayBatch

// AfterImportFiles sets what runs between an import's files and its
// commit (where a crash would cut it off), for package memory_test.
func AfterImportFiles(f func()) (undo func()) {
	afterImportFiles = f
	return func() { afterImportFiles = nil }
}

// ImportWaits sets what runs when an import waits for another, for
// package memory_test.
func ImportWaits(f func()) (undo func()) {
	importWaits = f
	return func() { importWaits = nil }
}

// PassJoined sets what runs when a consolidation call waits for the pass
// already running, for package memory_test.
func PassJoined(f func()) (undo func()) {
	passJoined = f
	return func() { passJoined = nil }
}
