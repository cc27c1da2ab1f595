package report

import (
	"bufio"
	"errors"
	"fmt"
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
// cover the start of the run). It returns nil and no error when the file does not exist, and an
// error when it cannot be read.
func ReadTraceLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if len(lines) == maxTraceLines {
			break
		}
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("report: reading %s: %w", path, err)
	}
	return lines, nil
}

// Render writes everything a person looks at for a run into dir: dir/series.csv (see
// WriteSeriesCSV), the plots
// (dir/plots/*.png and *.svg, see WritePlots), dir/report.html (see WriteHTML, with the why
// breakdown when dir/trace.txt exists) and, when dir/trace.txt exists, dir/trace.json (see
// WriteTraceEvents). Every file is written atomically, with the bytes the functions named give
// (each plot's SVG is drawn once, for its file and the page). trace.json is encoded on a
// goroutine of its own while the plots and the page are drawn: the two take seconds each for a
// large run and read res and the trace without modifying them. It returns the first error, in
// the order plots, page, trace.json; a panic while encoding trace.json is returned as an error.
func Render(dir string, res *Result) error {
	if res == nil {
		return errors.New("report: Render: nil result")
	}
	if err := WriteSeriesCSV(dir, res.Series); err != nil {
		return err
	}
	trace, err := ReadTraceLines(filepath.Join(dir, TraceFile))
	if err != nil {
		return err
	}
	traceDone := make(chan error, 1)
	if trace != nil {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					traceDone <- fmt.Errorf("report: encoding %s: panic: %v", TraceEventFile, r)
				}
			}()
			traceDone <- WriteTraceEvents(dir, trace, res.Series)
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
		err = writeHTML(dir, res, trace, svgs)
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
