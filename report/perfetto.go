package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// traceEvent is one entry of the Chrome trace event format ("JSON Object Format": an object
// with a traceEvents array), which ui.perfetto.dev and chrome://tracing open. appendTo
// encodes it as encoding/json would encode
//
//	struct {
//		Name  string         `json:"name"`
//		Cat   string         `json:"cat,omitempty"`
//		Ph    string         `json:"ph"`
//		TS    float64        `json:"ts"`
//		Dur   *float64       `json:"dur,omitempty"`
//		PID   int            `json:"pid"`
//		TID   int            `json:"tid"`
//		Scope string         `json:"s,omitempty"`
//		Args  map[string]any `json:"args,omitempty"`
//	}
//
// without escaping <, > and & (trace details hold them), but without reflection or a
// map per event: a large run's trace.json has millions of events.
type traceEvent struct {
	Name string
	Cat  string
	// Ph is the phase: "i" an instant, "X" a complete slice (TS and Dur), "C" a counter
	// sample (the argument holds the value), "M" metadata (a thread's name or sort index).
	Ph string
	// TS is the virtual time in microseconds; for a slice, when it began.
	TS float64
	// Dur is a slice's length in microseconds; HasDur says it is set.
	Dur    float64
	HasDur bool
	PID    int
	TID    int
	Scope  string
	// Arg is the one argument, "args":{Arg: value}, when Arg is not empty; the value is
	// ArgString, ArgInt or ArgFloat as ArgKind says.
	Arg       string
	ArgKind   argKind
	ArgString string
	ArgInt    int
	ArgFloat  float64
}

// argKind is the type of a traceEvent's argument.
type argKind uint8

const (
	argString argKind = iota
	argInt
	argFloat
)

// appendTo appends ev's JSON object to b. It fails, as encoding/json does, on a time or value
// that JSON cannot hold (NaN, infinite).
func (ev *traceEvent) appendTo(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"name":`...)
	b = appendJSONString(b, ev.Name)
	if ev.Cat != "" {
		b = append(b, `,"cat":`...)
		b = appendJSONString(b, ev.Cat)
	}
	b = append(b, `,"ph":`...)
	b = appendJSONString(b, ev.Ph)
	b = append(b, `,"ts":`...)
	if b, err = appendJSONFloat(b, ev.TS); err != nil {
		return b, err
	}
	if ev.HasDur {
		b = append(b, `,"dur":`...)
		if b, err = appendJSONFloat(b, ev.Dur); err != nil {
			return b, err
		}
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(ev.PID), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(ev.TID), 10)
	if ev.Scope != "" {
		b = append(b, `,"s":`...)
		b = appendJSONString(b, ev.Scope)
	}
	if ev.Arg != "" {
		b = append(b, `,"args":{`...)
		b = appendJSONString(b, ev.Arg)
		b = append(b, ':')
		switch ev.ArgKind {
		case argInt:
			b = strconv.AppendInt(b, int64(ev.ArgInt), 10)
		case argFloat:
			if b, err = appendJSONFloat(b, ev.ArgFloat); err != nil {
				return b, err
			}
		default:
			b = appendJSONString(b, ev.ArgString)
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendJSONString appends s as a JSON string, with the bytes encoding/json gives when it
// does not escape HTML. Plain printable ASCII, nearly every trace string, is copied; anything
// else goes through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	data, err := marshalNoHTMLEscape(s)
	if err != nil {
		// encoding/json encodes every string (invalid UTF-8 as U+FFFD).
		panic(fmt.Sprintf("report: encoding a string as JSON: %v", err))
	}
	return append(b, data...)
}

// appendJSONFloat appends f as encoding/json encodes a float64: the shortest decimal that
// reads back exactly, with an exponent only below 1e-6 or from 1e21 on (those, and NaN and the
// infinities, which it refuses, go through encoding/json).
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if abs := math.Abs(f); abs == 0 || (abs >= 1e-6 && abs < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	data, err := marshalNoHTMLEscape(f)
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
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
// ..." are skipped; the others are taken in time order (a stable sort). The same inputs give
// the same bytes.
func EncodeTraceEvents(w io.Writer, traceLines []string, series []Series) error {
	enc, err := newTraceEventEncoder(w)
	if err != nil {
		return err
	}
	trace := parseTrace(traceLines)
	for i := range trace {
		if err := enc.line(&trace[i]); err != nil {
			return err
		}
	}
	return enc.finish(series)
}

// traceEventEncoder writes the document EncodeTraceEvents describes one trace line at a
// time, given in time order: what it keeps is one track per component and lane, never the
// lines or the events (a large run's trace has millions of lines).
type traceEventEncoder struct {
	bw    *bufio.Writer
	buf   []byte
	first bool
	// tracks maps a track name to its tid.
	tracks map[string]int
	// laneEnds[component][i] is when the last slice on the component's lane i ended.
	laneEnds map[string]*[]float64
}

// newTraceEventEncoder starts the document on w: its opening and the process's name.
func newTraceEventEncoder(w io.Writer) (*traceEventEncoder, error) {
	e := &traceEventEncoder{bw: bufio.NewWriterSize(w, 1<<16), first: true, tracks: map[string]int{}, laneEnds: map[string]*[]float64{}}
	if _, err := e.bw.WriteString(`{"traceEvents":[`); err != nil {
		return nil, err
	}
	if err := e.emit(&traceEvent{Name: "process_name", Ph: "M", PID: 1, Arg: "name", ArgString: "reconsim (virtual time)"}); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *traceEventEncoder) emit(ev *traceEvent) error {
	b := e.buf[:0]
	if !e.first {
		b = append(b, ',')
	}
	b, err := ev.appendTo(b)
	e.buf = b
	if err != nil {
		return fmt.Errorf("report: encoding trace events: %w", err)
	}
	e.first = false
	_, err = e.bw.Write(b)
	return err
}

// track returns the tid of the track called name, announcing a new track with its name and
// sort index.
func (e *traceEventEncoder) track(name string) (int, error) {
	if tid, ok := e.tracks[name]; ok {
		return tid, nil
	}
	tid := len(e.tracks) + 1
	e.tracks[strings.Clone(name)] = tid // name may be the reading buffer (scanTrace)
	if err := e.emit(&traceEvent{Name: "thread_name", Ph: "M", PID: 1, TID: tid, Arg: "name", ArgString: name}); err != nil {
		return 0, err
	}
	return tid, e.emit(&traceEvent{Name: "thread_sort_index", Ph: "M", PID: 1, TID: tid, Arg: "sort_index", ArgKind: argInt, ArgInt: tid})
}

// line writes the event of one trace line; lines must come in time order. l's strings may
// be scanTrace's reading buffer: what the encoder keeps of them it clones.
func (e *traceEventEncoder) line(l *traceLine) error {
	endUS := l.seconds * 1e6
	dur, isSlice := lineDuration(l.rest)
	if !isSlice {
		tid, err := e.track(l.component)
		if err != nil {
			return err
		}
		ev := traceEvent{Name: l.action, Cat: componentCategory(l.component), Ph: "i", Scope: "t", TS: endUS, PID: 1, TID: tid}
		if l.rest != "" {
			ev.Arg, ev.ArgString = "detail", l.rest
		}
		return e.emit(&ev)
	}
	durUS := float64(dur) / float64(time.Microsecond)
	startUS := endUS - durUS
	if startUS < 0 {
		startUS, durUS = 0, endUS
	}
	lanesOf, ok := e.laneEnds[l.component]
	if !ok {
		lanesOf = new([]float64)
		e.laneEnds[strings.Clone(l.component)] = lanesOf
	}
	lanes := *lanesOf
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
	*lanesOf = lanes
	name := l.component
	if lane > 0 {
		name = fmt.Sprintf("%s #%d", l.component, lane+1)
	}
	tid, err := e.track(name)
	if err != nil {
		return err
	}
	return e.emit(&traceEvent{Name: sliceName(l.action, l.rest), Cat: componentCategory(l.component), Ph: "X",
		TS: startUS, Dur: durUS, HasDur: true, PID: 1, TID: tid, Arg: "detail", ArgString: l.rest})
}

// finish writes the series as counter tracks and closes the document.
func (e *traceEventEncoder) finish(series []Series) error {
	for _, s := range sortedSeries(series) {
		name, key := counterName(s.Name)
		for _, p := range cleanPoints(s.Points) {
			if !finite(p.T * 1e6) {
				continue // a time JSON cannot hold in microseconds (a hand-edited result)
			}
			if err := e.emit(&traceEvent{Name: name, Ph: "C", TS: p.T * 1e6, PID: 1, Arg: key, ArgKind: argFloat, ArgFloat: p.V}); err != nil {
				return err
			}
		}
	}
	if _, err := e.bw.WriteString("],\"displayTimeUnit\":\"ms\"}\n"); err != nil {
		return err
	}
	return e.bw.Flush()
}

// lineDuration finds a took=<d> or duration=<d> token (a Go duration, 0 to 24h) in a trace
// line's details.
func lineDuration(rest string) (time.Duration, bool) {
	if !strings.Contains(rest, "took=") && !strings.Contains(rest, "duration=") {
		return 0, false // most lines: no token can start with either
	}
	for tok := range strings.FieldsSeq(rest) {
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
	for tok := range strings.FieldsSeq(rest) {
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
