package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// traceEvent is one entry of the Chrome trace event format ("JSON Array Format" with a
// traceEvents object), which ui.perfetto.dev and chrome://tracing open.
type traceEvent struct {
	Name string `json:"name"`
	Cat  string `json:"cat,omitempty"`
	// Ph is the phase: "i" an instant event, "M" metadata (a thread's name).
	Ph string `json:"ph"`
	// TS is the virtual time in microseconds.
	TS    float64           `json:"ts"`
	PID   int               `json:"pid"`
	TID   int               `json:"tid"`
	Scope string            `json:"s,omitempty"`
	Args  map[string]string `json:"args,omitempty"`
}

// EncodeTraceEvents converts trace.txt lines into a Chrome trace event JSON document: one
// thread (track) per component, numbered in order of first appearance and named by a
// thread_name metadata event, and one thread-scoped instant event per line, named by its
// action, at the line's virtual time in microseconds, with the object and details as args.
// Lines that do not parse as "<seconds> <component> <action> ..." are skipped. The same
// lines give the same bytes.
func EncodeTraceEvents(w io.Writer, traceLines []string) error {
	// The events are encoded one at a time into a buffered writer rather than collected into
	// one document: a large run's trace has hundreds of thousands of lines, and holding every
	// event at once cost more memory than the simulation itself.
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString(`{"traceEvents":[`); err != nil {
		return err
	}
	first := true
	emit := func(ev traceEvent) error {
		data, err := marshalNoHTMLEscape(ev)
		if err != nil {
			return fmt.Errorf("report: encoding trace events: %w", err)
		}
		if !first {
			if err := bw.WriteByte(','); err != nil {
				return err
			}
		}
		first = false
		_, err = bw.Write(data)
		return err
	}
	tids := map[string]int{}
	for _, l := range parseTrace(traceLines) {
		tid, ok := tids[l.component]
		if !ok {
			tid = len(tids) + 1
			tids[l.component] = tid
			if err := emit(traceEvent{Name: "thread_name", Ph: "M", PID: 1, TID: tid,
				Args: map[string]string{"name": l.component}}); err != nil {
				return err
			}
		}
		ev := traceEvent{Name: l.action, Cat: componentCategory(l.component), Ph: "i", Scope: "t",
			TS: l.seconds * 1e6, PID: 1, TID: tid}
		if l.rest != "" {
			ev.Args = map[string]string{"detail": l.rest}
		}
		if err := emit(ev); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("],\"displayTimeUnit\":\"ms\"}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// marshalNoHTMLEscape is json.Marshal without escaping <, > and & (trace details hold them).
func marshalNoHTMLEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// componentCategory is the part of a component name before its first "/" (kubelet for
// kubelet/worker-0), so Perfetto can group a component's workers.
func componentCategory(component string) string {
	if i := strings.IndexByte(component, '/'); i > 0 {
		return component[:i]
	}
	return component
}

// WriteTraceEvents writes EncodeTraceEvents(traceLines) to dir/trace.json atomically.
func WriteTraceEvents(dir string, traceLines []string) error {
	return writeAtomic(dir, TraceEventFile, func(w io.Writer) error {
		return EncodeTraceEvents(w, traceLines)
	})
}
