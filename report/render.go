package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

// File names Render writes or reads inside an output directory.
const (
	HTMLFile       = "report.html"
	TraceFile      = "trace.txt"
	TraceEventFile = "trace.json"
)

// maxTraceLines bounds how many trace lines Render reads from trace.txt; a longer trace is
// cut there (the why breakdown and trace.json then cover the start of the run only). A
// variable so that a test can lower it.
var maxTraceLines = 2_000_000

// LoadResult reads dir/result.json and, if present, dir/events.jsonl into one Result. A
// missing events.jsonl gives a Result without events; any other problem (no result.json, an
// unknown schema version, a malformed line) is returned as an error naming the file.
func LoadResult(dir string) (*Result, error) {
	res, err := ReadResult(filepath.Join(dir, ResultFile))
	if err != nil {
		return nil, err
	}
	events, err := ReadEvents(filepath.Join(dir, EventsFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		events = nil
	case err != nil:
		return nil, err
	}
	res.Events = events
	return res, nil
}

// ReadTraceLines reads a trace.txt, one entry per line without the newline, at most
// maxTraceLines of them (a longer trace is cut there: the why breakdown and trace.json then
// cover the start of the run). It returns nil and no error when the file does not exist or is
// empty, and an error when it cannot be read.
func ReadTraceLines(path string) ([]string, error) {
	var lines []string
	_, err := scanTrace(path, func(line string) error {
		lines = append(lines, strings.Clone(line))
		return nil
	})
	return lines, err
}

// scanTrace calls fn with each line of the trace.txt at path, as ReadTraceLines reads them
// (the same cut, the same errors), one at a time, and returns how many there were: none when
// the file does not exist. It stops at fn's first error and returns it. The line fn is given
// is valid only during the call: it is the reading buffer, not a copy (a large run's trace
// has a million lines, which are garbage as soon as they are encoded); fn clones what it
// keeps, map keys it adds included.
func scanTrace(path string, fn func(line string) error) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	return scanTraceFrom(f, path, fn)
}

// scanTraceFrom is scanTrace on the bytes of the trace.txt at path, read from r: the one
// place that says what a trace's lines are.
func scanTraceFrom(r io.Reader, path string, fn func(line string) error) (int, error) {
	n := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if n == maxTraceLines {
			break
		}
		n++
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if err := fn(unsafe.String(unsafe.SliceData(b), len(b))); err != nil {
			return n, err
		}
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("report: reading %s: %w", path, err)
	}
	return n, nil
}

// traceScanner is scanTrace or scanTraceFrom over one trace.
type traceScanner func(fn func(line string) error) (int, error)

// fileTrace scans the trace.txt at path.
func fileTrace(path string) traceScanner {
	return func(fn func(line string) error) (int, error) { return scanTrace(path, fn) }
}

// traceDigest is what Render needs of a trace.txt besides trace.json, read in the same pass
// without keeping the trace.
type traceDigest struct {
	// present: the file exists and has a line (ReadTraceLines gives a non-nil slice).
	present bool
	// sorted: the lines that parse are in time order already, so that trace.json could be
	// encoded from the file as it was read.
	sorted bool
	// why holds the parsed lines Why uses (whyUses), in time order.
	why []traceLine
}

// digestTrace reads the trace.txt at path into a traceDigest.
func digestTrace(path string) (traceDigest, error) {
	d, _, err := readTrace(fileTrace(path), nil)
	return d, err
}

// readTrace reads the trace scan gives into a traceDigest and, while its lines are in time
// order, hands each line that parses to encode (unless nil) until encode fails; encodeErr is
// that failure. err is an error reading the trace.
func readTrace(scan traceScanner, encode func(*traceLine) error) (d traceDigest, encodeErr, err error) {
	d.sorted = true
	last := 0.0
	var l traceLine // one for every line: encode's pointer would move each to the heap
	n, err := scan(func(line string) error {
		var ok bool
		if l, ok = parseTraceLine(line); !ok {
			return nil
		}
		if l.seconds < last {
			d.sorted = false
		}
		last = l.seconds
		if whyUses(l) {
			kept, _ := parseTraceLine(strings.Clone(line)) // line is scanTrace's buffer
			d.why = append(d.why, kept)
		}
		if d.sorted && encode != nil && encodeErr == nil {
			encodeErr = encode(&l)
		}
		return nil
	})
	if err != nil {
		return traceDigest{}, encodeErr, err
	}
	d.present = n > 0
	sortTrace(d.why)
	return d, encodeErr, nil
}

// errTraceNotStreamed ends the streamed write of trace.json, discarding the file, when the
// trace turns out to be missing, empty or out of time order, or cannot be read.
var errTraceNotStreamed = errors.New("report: the trace cannot be streamed")

// encodeTraceEventsFile reads the trace.txt at path once (readTrace) and, if its lines are in
// time order, writes EncodeTraceEvents(w, ReadTraceLines(path), series) to w from them as they
// are read, so that neither the trace nor its events are held in memory. Without a trace, or
// with one out of time order, what it wrote is incomplete and err is errTraceNotStreamed.
// readErr is an error reading the trace (err is then errTraceNotStreamed too); err otherwise
// one encoding or writing.
func encodeTraceEventsFile(w io.Writer, path string, series []Series) (d traceDigest, readErr, err error) {
	return encodeTraceEventsFrom(w, fileTrace(path), func() ([]Series, error) { return series, nil })
}

// encodeTraceEventsFrom is encodeTraceEventsFile on the trace scan gives, with the series
// asked for only once every line is encoded (a trace written as a run goes has no series
// before the run ends); an error from series ends the write with that error.
func encodeTraceEventsFrom(w io.Writer, scan traceScanner, series func() ([]Series, error)) (d traceDigest, readErr, err error) {
	enc, encodeErr := newTraceEventEncoder(w)
	var encode func(*traceLine) error
	if encodeErr == nil {
		encode = enc.line
	}
	d, lineErr, readErr := readTrace(scan, encode)
	switch {
	case readErr != nil || !d.present || !d.sorted:
		return d, readErr, errTraceNotStreamed
	case encodeErr != nil:
		return d, nil, encodeErr
	case lineErr != nil:
		return d, nil, lineErr
	}
	s, err := series()
	if err != nil {
		return d, nil, err
	}
	return d, nil, enc.finish(s)
}

// renderTrace writes dir/trace.json for the trace.txt at path with the bytes
// WriteTraceEvents(dir, ReadTraceLines(path), series) gives, and returns the trace's digest
// for the page, reading the trace once when it is in time order (as every trace a run writes
// is). A trace out of time order (a hand-edited one) is then read whole and sorted; without a
// trace, a trace.json of an earlier run in dir is removed, as it would describe another run.
// readErr is an error reading the trace (nothing is written then), writeErr one writing
// trace.json.
func renderTrace(dir, path string, series []Series) (d traceDigest, readErr, writeErr error) {
	d, readErr, writeErr = streamTraceEvents(dir, fileTrace(path), func() ([]Series, error) { return series, nil })
	return settleTraceEvents(dir, path, series, d, readErr, writeErr)
}

// streamTraceEvents is the first part of renderTrace: dir/trace.json written atomically from
// one pass over the trace scan gives (encodeTraceEventsFrom), and the trace's digest.
func streamTraceEvents(dir string, scan traceScanner, series func() ([]Series, error)) (d traceDigest, readErr, writeErr error) {
	writeErr = writeAtomic(dir, TraceEventFile, func(w io.Writer) error {
		var err error
		d, readErr, err = encodeTraceEventsFrom(w, scan, series)
		return err
	})
	return d, readErr, writeErr
}

// settleTraceEvents is the rest of renderTrace, once streamTraceEvents has read the
// trace.txt at path (which must be in place by then): the trace.json of a trace that could
// not be streamed.
func settleTraceEvents(dir, path string, series []Series, d traceDigest, readErr, writeErr error) (traceDigest, error, error) {
	switch {
	case readErr != nil:
		return traceDigest{}, readErr, nil
	case !d.present:
		if err := os.Remove(filepath.Join(dir, TraceEventFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return d, nil, fmt.Errorf("report: removing the stale %s: %w", TraceEventFile, err)
		}
		return d, nil, nil
	case !d.sorted:
		lines, err := ReadTraceLines(path)
		if err != nil {
			return d, nil, err
		}
		return d, nil, WriteTraceEvents(dir, lines, series)
	}
	return d, nil, writeErr
}

// Render writes everything a person looks at for a run into dir: dir/series.csv (see
// WriteSeriesCSV), the plots
// (dir/plots/*.png and *.svg, see WritePlots), dir/report.html (see WriteHTML, with the why
// breakdown when dir/trace.txt exists) and, when dir/trace.txt exists, dir/trace.json (see
// WriteTraceEvents). Every file is written atomically, with the bytes the functions named give
// (each plot's SVG is drawn once, for its file and the page). The trace is never held in
// memory: one pass over trace.txt keeps the few lines the why breakdown uses and encodes
// trace.json as it reads (renderTrace). The plots are drawn on goroutines of their own (drawPlots)
// during that pass: the two take seconds each for a large run and read res and the trace
// without modifying them; the page, which needs both, comes last. It returns the first error,
// in the order reading the trace, plots, page, trace.json; a panic while drawing the plots is
// returned as an error.
func Render(dir string, res *Result) error {
	if res == nil {
		return errors.New("report: Render: nil result")
	}
	return render(dir, res, func() (traceDigest, error, error) {
		return renderTrace(dir, filepath.Join(dir, TraceFile), res.Series)
	})
}

// RenderStreamed is Render for the trace t wrote, after t.Commit: the same files with the
// same bytes, but trace.json is finished from what t's goroutine encoded as the run went
// (with res's series) and the why breakdown's lines are the ones it kept, so trace.txt is
// not read again. If t was not committed (it could not be written), it is discarded and
// this is Render, which finds no trace.txt of t's.
func RenderStreamed(dir string, res *Result, t *TraceWriter) error {
	if res == nil {
		return errors.New("report: RenderStreamed: nil result")
	}
	if !t.committed {
		t.Discard()
		return Render(dir, res)
	}
	return render(dir, res, func() (traceDigest, error, error) {
		o := t.finish(res.Series)
		return settleTraceEvents(dir, filepath.Join(dir, TraceFile), res.Series, o.digest, o.readErr, o.writeErr)
	})
}

// render is Render with trace writing trace.json and returning the trace's digest, as
// renderTrace does.
func render(dir string, res *Result, trace func() (traceDigest, error, error)) error {
	if err := WriteSeriesCSV(dir, res.Series); err != nil {
		return err
	}
	type plotFiles struct {
		written []string
		svgs    [][]byte
		err     error
	}
	plotsDone := make(chan plotFiles, 1)
	go func() {
		var out plotFiles
		defer func() {
			if r := recover(); r != nil {
				out.err = fmt.Errorf("report: drawing the plots: panic: %v", r)
			}
			plotsDone <- out
		}()
		out.written, out.svgs, out.err = writePlotFiles(dir, Plots(res))
		if out.err == nil {
			out.err = removeStalePlots(dir, out.written)
		}
	}()
	digest, readErr, encodeErr := trace()
	plots := <-plotsDone
	if readErr != nil {
		return readErr
	}
	if plots.err != nil {
		return plots.err
	}
	if err := writeHTML(dir, res, digest.why, digest.present, plots.svgs); err != nil {
		return err
	}
	return encodeErr
}

// removeStalePlots removes the plot files (.png, .svg) in dir/plots that this render did not
// write: plots of an earlier run in the same directory, of workloads this run does not have.
func removeStalePlots(dir string, written []string) error {
	keep := make(map[string]bool, len(written))
	for _, w := range written {
		keep[filepath.Base(w)] = true
	}
	entries, err := os.ReadDir(filepath.Join(dir, PlotsDir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("report: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || keep[name] || !(strings.HasSuffix(name, ".png") || strings.HasSuffix(name, ".svg")) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, PlotsDir, name)); err != nil {
			return fmt.Errorf("report: removing the stale plot %s: %w", name, err)
		}
	}
	return nil
}
