package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// traceEvent is one entry of the Chrome trace event format ("JSON Object Format": an object
// with a traceEvents array), which ui.perfetto.dev and chrome://tracing open.
type traceEvent struct {
	Name string `json:"name"`
	Cat  string `json:"cat,omitempty"`
	// Ph is the phase: "i" an instant, "X" a complete slice (TS and Dur), "C" a counter
	// sample (Args holds the values), "M" metadata (a thread's name or sort index).
	Ph string `json:"ph"`
	// TS is the virtual time in microseconds; for a slice, when it began.
	TS float64 `json:"ts"`
	// Dur is a slice's length in microseconds.
	Dur   *float64       `json:"dur,omitempty"`
	PID   int            `json:"pid"`
	TID   int            `json:"tid"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

// maxLanesPerComponent bounds the extra tracks a component gets for slices that overlap in
// time (a kubelet starting two pods at once); past it, overlapping slices share the last one.
const maxLanesPerComponent = 16

// traceTimeResolutionUS is the resolution of trace.txt times (six decimals of a second).
const traceTimeResolutionUS = 1.0

// EncodeTraceEvents converts trace.txt lines, and the run's series, into a Chrome trace event
// JSON document:
//
//   - one thread (track) per component, numbered in order of first appearance and named by
//     thread_name metadata; a line is an instant event on its component's track, named by
//     its action, with the rest of the line as the "detail" arg;
//   - a line whose details carry its own duration (took=<Go duration> or
//     duration=<Go duration>, as the kubelet's sandbox and container-start lines and a
//     reconcile line with a duration do) is instead a complete slice that ends at the line's
//     time. Slices of one component that overlap go to extra tracks ("<component> #2"), since
//     slices on one track must nest. Trace lines that report only their end (a reconcile
//     line without a duration) stay instants: their start is not in the trace;
//   - each series is a counter track ("workqueue.replicaset-controller depth", "pods
//     running", ...), sampled at its points.
//
// Times are virtual microseconds. Lines that do not parse as "<seconds> <component> <action>
// ..." are skipped. The same inputs give the same bytes.
func EncodeTraceEvents(w io.Writer, traceLines []string, series []Series) error {
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
	if err := emit(traceEvent{Name: "process_name", Ph: "M", PID: 1, Args: map[string]any{"name": "reconsim (virtual time)"}}); err != nil {
		return err
	}

	tracks := map[string]int{} // track name → tid
	track := func(name string) (int, error) {
		if tid, ok := tracks[name]; ok {
			return tid, nil
		}
		tid := len(tracks) + 1
		tracks[name] = tid
		if err := emit(traceEvent{Name: "thread_name", Ph: "M", PID: 1, TID: tid, Args: map[string]any{"name": name}}); err != nil {
			return 0, err
		}
		return tid, emit(traceEvent{Name: "thread_sort_index", Ph: "M", PID: 1, TID: tid, Args: map[string]any{"sort_index": tid}})
	}
	// laneEnds[component][i] is when the last slice on the component's lane i ended.
	laneEnds := map[string][]float64{}

	for _, l := range parseTrace(traceLines) {
		endUS := l.seconds * 1e6
		dur, isSlice := lineDuration(l.rest)
		if !isSlice {
			tid, err := track(l.component)
			if err != nil {
				return err
			}
			ev := traceEvent{Name: l.action, Cat: componentCategory(l.component), Ph: "i", Scope: "t", TS: endUS, PID: 1, TID: tid}
			if l.rest != "" {
				ev.Args = map[string]any{"detail": l.rest}
			}
			if err := emit(ev); err != nil {
				return err
			}
			continue
		}
		durUS := float64(dur) / float64(time.Microsecond)
		startUS := endUS - durUS
		if startUS < 0 {
			startUS, durUS = 0, endUS
		}
		lanes := laneEnds[l.component]
		lane := len(lanes)
		for i, end := range lanes {
			// Trace times are rounded to the microsecond while durations are exact, so a
			// slice that began as the previous one ended can seem to start up to 1 µs early.
			if end <= startUS+traceTimeResolutionUS {
				lane = i
				if end > startUS {
					durUS -= end - startUS
					startUS = end
				}
				break
			}
		}
		if lane == maxLanesPerComponent {
			lane = maxLanesPerComponent - 1
		}
		if lane == len(lanes) {
			lanes = append(lanes, 0)
		}
		lanes[lane] = endUS
		laneEnds[l.component] = lanes
		name := l.component
		if lane > 0 {
			name = fmt.Sprintf("%s #%d", l.component, lane+1)
		}
		tid, err := track(name)
		if err != nil {
			return err
		}
		ev := traceEvent{Name: sliceName(l.action, l.rest), Cat: componentCategory(l.component), Ph: "X",
			TS: startUS, Dur: &durUS, PID: 1, TID: tid, Args: map[string]any{"detail": l.rest}}
		if err := emit(ev); err != nil {
			return err
		}
	}

	for _, s := range sortedSeries(series) {
		name, key := counterName(s.Name)
		for _, p := range cleanPoints(s.Points) {
			if !finite(p.T * 1e6) {
				continue // a time JSON cannot hold in microseconds (a hand-edited result)
			}
			if err := emit(traceEvent{Name: name, Ph: "C", TS: p.T * 1e6, PID: 1, Args: map[string]any{key: p.V}}); err != nil {
				return err
			}
		}
	}
	if _, err := bw.WriteString("],\"displayTimeUnit\":\"ms\"}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// lineDuration finds a took=<d> or duration=<d> token (a Go duration, 0 to 24h) in a trace
// line's details.
func lineDuration(rest string) (time.Duration, bool) {
	for _, tok := range strings.Fields(rest) {
		v, ok := strings.CutPrefix(tok, "took=")
		if !ok {
			v, ok = strings.CutPrefix(tok, "duration=")
		}
		if !ok {
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > 24*time.Hour {
			continue
		}
		return d, true
	}
	return 0, false
}

// sliceName is the action and the object it acted on ("container-start Pod default/web-1",
// "reconcile default/web"): the words of the details before the first key=value, at most two.
func sliceName(action, rest string) string {
	parts := []string{action}
	for _, tok := range strings.Fields(rest) {
		if strings.Contains(tok, "=") || len(parts) == 3 {
			break
		}
		parts = append(parts, tok)
	}
	return strings.Join(parts, " ")
}

// counterName splits a series name at its last dot into the counter's name and its value's
// key, which Perfetto shows together as the track name ("pods running").
func counterName(series string) (name, key string) {
	if i := strings.LastIndexByte(series, '.'); i > 0 && i < len(series)-1 {
		return series[:i], series[i+1:]
	}
	return series, "value"
}

// sortedSeries returns the series in name order without changing the caller's slice.
func sortedSeries(series []Series) []Series {
	idx := indexSeries(series)
	out := make([]Series, 0, len(idx.names))
	for _, n := range idx.names {
		out = append(out, *idx.byName[n])
	}
	return out
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

// WriteTraceEvents writes EncodeTraceEvents(traceLines, series) to dir/trace.json atomically.
func WriteTraceEvents(dir string, traceLines []string, series []Series) error {
	return writeAtomic(dir, TraceEventFile, func(w io.Writer) error {
		return EncodeTraceEvents(w, traceLines, series)
	})
}
