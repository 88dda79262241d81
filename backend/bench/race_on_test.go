//go:build race

package bench

// raceEnabled: the race detector slows the SQLite store some thirty times,
// so the LoCoMo test asks fewer questions under it.
const raceEnabled = true
