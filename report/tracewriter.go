package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"

	"github.com/reconsim/reconsim/internal/atomicfile"
)

// traceChunkBytes and traceChunks size what a TraceWriter holds: the simulation fills a
// chunk, hands it over and fills the next, and waits only when every chunk is still with the
// goroutine (2 MiB in all; the goroutine needs about a twentieth of a large run's time).
const (
	traceChunkBytes = 256 << 10
	traceChunks     = 8
)

// errTraceAbandoned ends the encoding of a TraceWriter's trace.json that is not rendered.
var errTraceAbandoned = errors.New("report: the trace was discarded")

// A TraceWriter writes a run's trace.txt as the run produces it and, on a goroutine of its
// own meanwhile, encodes dir/trace.json from the same bytes (as Render would from the file
// afterwards), so that neither the file writes nor the encoding wait for the run's end on
// the run's own goroutine: the simulation stays single-threaded, and only copies its lines
// into a chunk. Both files are written atomically: Commit renames trace.txt into place
// (unsynced, as a rerun rewrites it), RenderStreamed finishes trace.json with the run's
// series and renames it, and Discard removes what is left. Write and Commit are for one
// goroutine (the run's); a TraceWriter holds at most traceChunks chunks of trace, never
// the trace.
type TraceWriter struct {
	dir  string
	file *atomicfile.File
	// chunk is the chunk Write fills.
	chunk []byte
	// full carries filled chunks to the goroutine, in order; closed by Commit or Discard.
	full chan []byte
	// free carries the chunks the goroutine is done with back to Write.
	free chan []byte
	// fileErr is the first error writing trace.txt; Write returns it from then on.
	fileErr atomic.Pointer[error]
	closed  bool
	// read is closed once the goroutine has written every chunk to trace.txt.
	read chan struct{}
	// series hands the run's series to the goroutine (RenderStreamed); closed by Discard
	// instead, which ends the encoding.
	series chan []Series
	// done delivers the goroutine's outcome: trace.json as streamTraceEvents leaves it.
	done      chan tracedOutcome
	outcome   *tracedOutcome
	committed bool
}

// tracedOutcome is what streamTraceEvents returned on a TraceWriter's goroutine.
type tracedOutcome struct {
	digest            traceDigest
	readErr, writeErr error
}

// NewTraceWriter starts dir/trace.txt, creating dir when it is missing, and the goroutine
// that writes it and encodes trace.json.
func NewTraceWriter(dir string) (*TraceWriter, error) {
	f, err := atomicfile.Create(dir, TraceFile)
	if err != nil {
		return nil, err
	}
	t := &TraceWriter{
		dir: dir, file: f,
		chunk:  make([]byte, 0, traceChunkBytes),
		full:   make(chan []byte, traceChunks),
		free:   make(chan []byte, traceChunks),
		read:   make(chan struct{}),
		series: make(chan []Series, 1),
		done:   make(chan tracedOutcome, 1),
	}
	for range traceChunks - 1 {
		t.free <- make([]byte, 0, traceChunkBytes)
	}
	go t.run()
	return t, nil
}

// Write copies p into the trace. It returns the first error writing trace.txt once the
// goroutine has met it, as a file's Write would have (a caller stops writing then).
func (t *TraceWriter) Write(p []byte) (int, error) {
	if t.closed {
		return 0, fmt.Errorf("writing %s: %w", TraceFile, errors.New("write after Commit"))
	}
	if err := t.fileErr.Load(); err != nil {
		return 0, *err
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(t.chunk[len(t.chunk):cap(t.chunk)], p)
		t.chunk, p = t.chunk[:len(t.chunk)+k], p[k:]
		if len(t.chunk) == cap(t.chunk) {
			t.full <- t.chunk
			t.chunk = <-t.free
		}
	}
	return n, nil
}

// end hands the last chunk over, closes the trace and waits until trace.txt has every byte.
func (t *TraceWriter) end() {
	if t.closed {
		return
	}
	t.closed = true
	if len(t.chunk) > 0 {
		t.full <- t.chunk
	}
	t.chunk = nil
	close(t.full)
	<-t.read
}

// Commit ends the trace and renames trace.txt into place, unsynced; after an error writing
// it, the file is removed instead and the error returned ("writing trace.txt: ...").
// trace.json stays with the goroutine until RenderStreamed or Discard.
func (t *TraceWriter) Commit() error {
	t.end()
	if err := t.fileErr.Load(); err != nil {
		t.file.Discard()
		return fmt.Errorf("writing %s: %w", TraceFile, *err)
	}
	if err := t.file.Commit(false); err != nil {
		return err
	}
	t.committed = true
	return nil
}

// Discard ends the trace and removes the temporary files that were not committed or
// rendered. It may be called more than once, and after Commit and RenderStreamed.
func (t *TraceWriter) Discard() {
	t.end()
	if t.outcome == nil {
		close(t.series)
		o := <-t.done
		t.outcome = &o
	}
	if !t.committed {
		t.file.Discard()
	}
}

// finish gives the goroutine the series, waits for trace.json and returns the goroutine's
// outcome; the trace must be committed.
func (t *TraceWriter) finish(series []Series) tracedOutcome {
	if t.outcome == nil {
		t.series <- series
		o := <-t.done
		t.outcome = &o
	}
	return *t.outcome
}

// streamTrace is streamTraceEvents; a test makes it fail before it reads the trace.
var streamTrace = streamTraceEvents

// run is the goroutine: it writes each chunk to trace.txt and encodes trace.json from it.
func (t *TraceWriter) run() {
	var o tracedOutcome
	scanned := false
	o.digest, o.readErr, o.writeErr = streamTrace(t.dir, func(fn func(line string) error) (int, error) {
		scanned = true
		return t.scan(fn)
	}, func() ([]Series, error) {
		s, ok := <-t.series
		if !ok {
			return nil, errTraceAbandoned
		}
		return s, nil
	})
	if !scanned {
		// trace.json could not be started (its temporary file): trace.txt still takes
		// every chunk, and the run never waits for a reader that is not there.
		_, _ = t.scan(func(string) error { return nil })
	}
	t.done <- o
}

// scan is the traceScanner of the chunks as they come; it takes every chunk, and has written
// it to trace.txt, before it returns, whether or not the lines ended early (maxTraceLines,
// a line too long). It runs once.
func (t *TraceWriter) scan(fn func(line string) error) (int, error) {
	r := &chunkReader{t: t}
	n, err := scanTraceFrom(r, filepath.Join(t.dir, TraceFile), fn)
	for r.next() {
	}
	close(t.read)
	return n, err
}

// chunkReader reads a TraceWriter's chunks in order, writing each to trace.txt as it takes
// it.
type chunkReader struct {
	t *TraceWriter
	// held is the chunk being read, rest its unread part.
	held, rest []byte
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.rest) == 0 {
		if !r.next() {
			return 0, io.EOF
		}
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// next gives the held chunk back and takes the next one; false when there is none.
func (r *chunkReader) next() bool {
	t := r.t
	if r.held != nil {
		t.free <- r.held[:0]
		r.held, r.rest = nil, nil
	}
	c, ok := <-t.full
	if !ok {
		return false
	}
	if t.fileErr.Load() == nil {
		if _, err := t.file.Write(c); err != nil {
			t.fileErr.Store(&err)
		}
	}
	r.held, r.rest = c, c
	return true
}
