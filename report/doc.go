// Package report defines what a run leaves behind and writes it: result.json (the versioned
// Result), events.jsonl (one EventRecord per line, the Kubernetes Events the run recorded), the
// short text summary the CLI prints, and what Render draws from them: PNG and SVG plots
// (gonum/plot), a self-contained report.html with a "why did it take this long" breakdown of
// each convergence interval (Why), and trace.json, the trace in the Chrome trace event format
// that ui.perfetto.dev opens.
//
// It promises:
//
//   - Versioned formats: a Result always carries SchemaVersion ResultSchemaVersion and names
//     the events.jsonl format (EventsSchemaVersion). A change that breaks readers gets a new
//     version string; adding a field does not.
//   - Deterministic bytes: the same Result and events give the same files byte for byte. Field
//     order is struct order, series are written sorted by name, floats use Go's shortest
//     round-trip formatting, and nothing reads the wall clock. The only run-dependent numbers
//     are the ones the caller puts in (WallSeconds).
//   - Atomic files: every writer (results, events, plots, HTML, trace.json) writes a temporary file in the target directory
//     and rename it into place, so a reader never sees a half-written file and an interrupted
//     write leaves the previous file intact.
//   - Memory that does not grow with the trace: Render reads trace.txt twice, line by line,
//     keeping only the few lines the why breakdown uses and encoding trace.json as it reads;
//     report.html and series.csv are encoded straight into their files. (A trace out of time
//     order, which only a hand-edited file is, is read whole and sorted.) A TraceWriter, which
//     `sim run` hands the simulation as its trace, does the same pass as the run goes, on a
//     goroutine of its own that writes trace.txt and encodes trace.json from a few chunks of
//     the trace at a time; RenderStreamed then leaves the files Render would leave.
//   - Valid JSON or an error: a NaN or infinite number is reported as an error naming the
//     field instead of being written.
//
// The package depends on model only for converting Events; it does not know how a run is
// performed.
package report
