// Package tracefold folds a run's trace into its FNV-1a hash on a goroutine of its own, so that
// the simulation's goroutine only gathers the lines (sim.HashFolder, sim.Trace.SetFolder).
//
// A Folder sees nothing but chunks of finished lines, folded in the order they were given, so
// the hash is exactly the one the trace would fold itself, and nothing it does can reach the
// simulation: it is not on the simulation path (internal/detlint). Its goroutine runs from
// Start to Close; every buffer it hands back is one it was given or one of a few it makes, so
// its memory is a few chunks whatever the run's length.
package tracefold
