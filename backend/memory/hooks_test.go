package memory

// DecayBatch lets the tests of package memory_test fade in small batches.
var DecayBatch = &decayBatch
