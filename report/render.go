package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
		lines = append(lines, line)
		return nil
	})
	return lines, err
}

// scanTrace calls fn with each line of the trace.txt at path, as ReadTraceLines reads them
// (the same cut, the same errors), one at a time, and returns how many there were: none when
// the file does not exist. It stops at fn's first error and returns it.
func scanTrace(path string, fn func(line string) error) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if n == maxTraceLines {
			break
		}
		n++
		if err := fn(strings.TrimRight(sc.Text(), "\r")); err != nil {
			return n, err
		}
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("report: reading %s: %w", path, err)
	}
	return n, nil
}

// traceDigest is what Render needs of a trace.txt before it writes anything from it, read in
// one pass without keeping the trace.
type traceDigest struct {
	// present: the file exists and has a line (ReadTraceLines gives a non-nil slice).
	present bool
	// sorted: the lines that parse are in time order already, so that trace.json can be
	// encoded from the file as it is read.
	sorted bool
	// why holds the parsed lines Why uses (whyUses), in time order.
	why []traceLine
}

// digestTrace reads the trace.txt at path into a traceDigest.
func digestTrace(path string) (traceDigest, error) {
	d := traceDigest{sorted: true}
	last := 0.0
	n, err := scanTrace(path, func(line string) error {
		l, ok := parseTraceLine(line)
		if !ok {
			return nil
		}
		if l.seconds < last {
			d.sorted = false
		}
		last = l.seconds
		if whyUses(l) {
			d.why = append(d.why, l)
		}
		return nil
	})
	if err != nil {
		return traceDigest{}, err
	}
	d.present = n > 0
	sortTrace(d.why)
	return d, nil
}

// writeTraceEventsFile writes dir/trace.json as WriteTraceEvents(dir, ReadTraceLines(path),
// series) does, with the same bytes. A trace in time order (sorted, as every trace a run
// writes is) is encoded line by line as it is read, so that neither the trace nor its events
// are ever held in memory; another is read whole and sorted.
func writeTraceEventsFile(dir, path string, sorted bool, series []Series) error {
	if !sorted {
		lines, err := ReadTraceLines(path)
		if err != nil {
			return err
		}
		return WriteTraceEvents(dir, lines, series)
	}
	return writeAtomic(dir, TraceEventFile, func(w io.Writer) error {
		return encodeTraceEventsFile(w, path, series)
	})
}

// encodeTraceEventsFile writes EncodeTraceEvents(w, ReadTraceLines(path), series) to w from
// the trace.txt at path, which must be in time order, one line at a time.
func encodeTraceEventsFile(w io.Writer, path string, series []Series) error {
	enc, err := newTraceEventEncoder(w)
	if err != nil {
		return err
	}
	_, err = scanTrace(path, func(line string) error {
		l, ok := parseTraceLine(line)
		if !ok {
			return nil
		}
		return enc.line(&l)
	})
	if err != nil {
		return err
	}
	return enc.finish(series)
}

// Render writes everything a person looks at for a run into dir: dir/series.csv (see
// WriteSeriesCSV), the plots
// (dir/plots/*.png and *.svg, see WritePlots), dir/report.html (see WriteHTML, with the why
// breakdown when dir/trace.txt exists) and, when dir/trace.txt exists, dir/trace.json (see
// WriteTraceEvents). Every file is written atomically, with the bytes the functions named give
// (each plot's SVG is drawn once, for its file and the page). The trace is never held in
// memory: one pass over trace.txt keeps the few lines the why breakdown uses, and trace.json
// is encoded from a second pass as it reads. trace.json is encoded on a goroutine of its own
// while the plots and the page are drawn: the two take seconds each for a large run and read
// res and the trace without modifying them. It returns the first error, in the order plots,
// page, trace.json; a panic while encoding trace.json is returned as an error.
func Render(dir string, res *Result) error {
	if res == nil {
		return errors.New("report: Render: nil result")
	}
	if err := WriteSeriesCSV(dir, res.Series); err != nil {
		return err
	}
	tracePath := filepath.Join(dir, TraceFile)
	trace, err := digestTrace(tracePath)
	if err != nil {
		return err
	}
	traceDone := make(chan error, 1)
	if trace.present {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					traceDone <- fmt.Errorf("report: encoding %s: panic: %v", TraceEventFile, r)
				}
			}()
			traceDone <- writeTraceEventsFile(dir, tracePath, trace.sorted, res.Series)
		}()
	} else {
		// A trace.json of an earlier run in dir would describe another run.
		if err := os.Remove(filepath.Join(dir, TraceEventFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("report: removing the stale %s: %w", TraceEventFile, err)
		}
		traceDone <- nil
	}
	written, svgs, err := writePlotFiles(dir, Plots(res))
	if err == nil {
		err = removeStalePlots(dir, written)
	}
	if err == nil {
		err = writeHTML(dir, res, trace.why, trace.present, svgs)
	}
	traceErr := <-traceDone
	if err != nil {
		return err
	}
	return traceErr
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
