package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceTraceEvent is traceEvent as encoding/json would encode it: the encoding that
// traceEvent.appendTo must reproduce byte for byte.
type referenceTraceEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	TS    float64        `json:"ts"`
	Dur   *float64       `json:"dur,omitempty"`
	PID   int            `json:"pid"`
	TID   int            `json:"tid"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

func referenceEncode(ev *traceEvent) ([]byte, error) {
	r := referenceTraceEvent{Name: ev.Name, Cat: ev.Cat, Ph: ev.Ph, TS: ev.TS, PID: ev.PID, TID: ev.TID, Scope: ev.Scope}
	if ev.HasDur {
		d := ev.Dur
		r.Dur = &d
	}
	if ev.Arg != "" {
		switch ev.ArgKind {
		case argInt:
			r.Args = map[string]any{ev.Arg: ev.ArgInt}
		case argFloat:
			r.Args = map[string]any{ev.Arg: ev.ArgFloat}
		default:
			r.Args = map[string]any{ev.Arg: ev.ArgString}
		}
	}
	return marshalNoHTMLEscape(r)
}

// checkEncoding fails the test if appendTo and encoding/json disagree on ev.
func checkEncoding(t *testing.T, ev traceEvent) {
	t.Helper()
	want, wantErr := referenceEncode(&ev)
	got, gotErr := ev.appendTo([]byte("prefix"))
	if wantErr != nil {
		require.Error(t, gotErr, "encoding/json refuses %+v", ev)
		assert.Equal(t, wantErr.Error(), gotErr.Error())
		return
	}
	require.NoError(t, gotErr)
	assert.Equal(t, "prefix"+string(want), string(got), "%+v", ev)
}

// TestTraceEventEncodingIsEncodingJSON: the hand-written encoder gives the bytes
// encoding/json gives, for the strings and numbers that need its care.
func TestTraceEventEncodingIsEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "<html> & more", "tab\tnew\nline\r\x00\x1f\x7f",
		"ünïcödé", "\u2028\u2029", "bad utf8 \xff\xfe", "emoji 😀", "\b\f"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, -1e-7, 1e20, 1e21, -1e21, 123456789.123456,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 60000000.000001, math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, s := range strs {
		checkEncoding(t, traceEvent{Name: s, Cat: s, Ph: "i", Scope: s, Arg: "detail", ArgString: s})
		checkEncoding(t, traceEvent{Name: "n", Ph: s, Arg: s, ArgKind: argInt, ArgInt: -3})
	}
	for _, f := range floats {
		checkEncoding(t, traceEvent{Name: "x", Ph: "X", TS: f, Dur: f, HasDur: true, PID: 1, TID: 7, Arg: "detail"})
		checkEncoding(t, traceEvent{Name: "c", Ph: "C", TS: 1, Arg: "value", ArgKind: argFloat, ArgFloat: f})
	}
	checkEncoding(t, traceEvent{Name: "M", Ph: "M"})
}

func FuzzTraceEventEncoding(f *testing.F) {
	f.Add("reconcile", "kube-controller-manager", "detail <a> \"b\"", 1.5, 0.25, 3)
	f.Add("\xff", "\u2028", "\x00", 1e-9, 1e22, -1)
	f.Fuzz(func(t *testing.T, name, cat, detail string, ts, v float64, tid int) {
		checkEncoding(t, traceEvent{Name: name, Cat: cat, Ph: "X", TS: ts, Dur: v, HasDur: true, TID: tid, Scope: cat, Arg: "detail", ArgString: detail})
		checkEncoding(t, traceEvent{Name: name, Ph: "C", TS: ts, Arg: cat, ArgKind: argFloat, ArgFloat: v})
	})
}

// TestRenderIsTheEncodersOnEveryTrace: Render, which streams trace.txt, writes exactly what
// EncodeHTML and EncodeTraceEvents give from the whole trace in memory, for a trace in time
// order (streamed), a long one (whose many components and slices the encoder keeps while
// the lines it read them from are overwritten), one out of order (read whole and sorted),
// one with CRLF endings, garbage lines and none that parse, an empty one and none at all.
func TestRenderIsTheEncodersOnEveryTrace(t *testing.T) {
	sorted := nodeFailureTrace()
	shuffled := append([]string(nil), sorted...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	long := filepath.Join(t.TempDir(), "long.txt")
	writeSyntheticTrace(t, long, 60_000)
	longTrace, err := os.ReadFile(long)
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		content *string // nil: no trace.txt
	}{
		{name: "in time order", content: ptrTo(strings.Join(sorted, "\n") + "\n")},
		{name: "long", content: ptrTo(string(longTrace))},
		{name: "out of order", content: ptrTo(strings.Join(shuffled, "\n"))},
		{name: "CRLF and garbage", content: ptrTo("garbage\r\n\r\n" + strings.Join(sorted, "\r\n") + "\r\nsummary: done\r\n")},
		{name: "nothing parses", content: ptrTo("x\ny z\n")},
		{name: "one empty line", content: ptrTo("\n")},
		{name: "empty", content: ptrTo("")},
		{name: "absent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, TraceFile)
			// A trace.json of an earlier run, which a run without a trace must remove.
			require.NoError(t, os.WriteFile(filepath.Join(dir, TraceEventFile), []byte("stale"), 0o644))
			if tc.content != nil {
				require.NoError(t, os.WriteFile(path, []byte(*tc.content), 0o644))
			}
			res := plotFixture()
			res.Series = res.Series[:1] // fewer plots to draw: the trace is what is tested
			require.NoError(t, Render(dir, res))
			lines, err := ReadTraceLines(path)
			require.NoError(t, err)

			var page bytes.Buffer
			require.NoError(t, EncodeHTML(&page, res, lines))
			gotPage, err := os.ReadFile(filepath.Join(dir, HTMLFile))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(page.Bytes(), gotPage), "report.html differs from EncodeHTML")

			gotEvents, err := os.ReadFile(filepath.Join(dir, TraceEventFile))
			if lines == nil {
				assert.ErrorIs(t, err, os.ErrNotExist, "no trace, no trace.json")
				return
			}
			require.NoError(t, err)
			var events bytes.Buffer
			require.NoError(t, EncodeTraceEvents(&events, lines, res.Series))
			assert.True(t, bytes.Equal(events.Bytes(), gotEvents), "trace.json differs from EncodeTraceEvents")
		})
	}
}

func ptrTo(s string) *string { return &s }

// heapProbe is a writer that, every MiB written to it, collects garbage and records the
// live heap: what the writing side holds while it streams.
type heapProbe struct {
	since, maxLive uint64
}

func (p *heapProbe) Write(b []byte) (int, error) {
	p.since += uint64(len(b))
	if p.since >= 1<<20 {
		p.since = 0
		p.maxLive = max(p.maxLive, liveHeap())
	}
	return len(b), nil
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestTraceIsStreamedNotHeld: trace.json is encoded from trace.txt as it is read, and the
// why breakdown keeps only the lines it uses, so the memory they hold does not grow with the
// trace. The trace here is ~16 MiB; holding its lines (as the writer did before) or its events
// costs several times the 4 MiB allowed.
func TestTraceIsStreamedNotHeld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TraceFile)
	size := writeSyntheticTrace(t, path, 200_000)
	series := []Series{steps("pods.running", "pods", 0, 1, 10, 2)}

	base := liveHeap()
	digest, err := digestTrace(path)
	require.NoError(t, err)
	assert.True(t, digest.present && digest.sorted)
	assert.Len(t, digest.why, 4, "the why breakdown keeps the taint lines and nothing else")

	probe := &heapProbe{}
	_, readErr, err := encodeTraceEventsFile(probe, path, series)
	require.NoError(t, readErr)
	require.NoError(t, err)
	const allowed = 4 << 20
	grown := int64(probe.maxLive) - int64(base)
	t.Logf("trace.txt %d MiB; live heap grew by at most %d KiB while trace.json was written", size>>20, grown>>10)
	assert.Greater(t, size, uint64(4*allowed), "the trace must dwarf the allowance for the test to mean anything")
	assert.Less(t, grown, int64(allowed), "writing trace.json holds memory that grows with the trace")
}

// writeSyntheticTrace writes a trace.txt of n lines in time order, like a large run's: API
// writes, kubelet container starts (slices) and, every 50,000 lines, a NoExecute taint (a why
// milestone). It returns the file's size.
func writeSyntheticTrace(t testing.TB, path string, n int) uint64 {
	var buf bytes.Buffer
	for i := range n {
		sec := float64(i) / 1000
		switch {
		case i%50_000 == 7:
			fmt.Fprintf(&buf, "%.6f nodelifecycle taint-add Node worker-%d rv=%d NoExecute\n", sec, i, i)
		case i%3 == 0:
			fmt.Fprintf(&buf, "%.6f kubelet/worker-%d container-start Pod default/web-%d took=%dms\n", sec, i%500, i, i%700)
		default:
			fmt.Fprintf(&buf, "%.6f apiserver update Pod default/web-%d rv=%d status phase=Running node=worker-%d\n", sec, i, i, i%500)
		}
	}
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return uint64(buf.Len())
}

// BenchmarkRenderLargeTrace renders a directory with a 200,000-line (17 MiB) trace.txt: the
// series, plots, page and trace.json. B/op is everything allocated, most of it garbage at once.
func BenchmarkRenderLargeTrace(b *testing.B) {
	dir := b.TempDir()
	writeSyntheticTrace(b, filepath.Join(dir, TraceFile), 200_000)
	res := plotFixture()
	b.ReportAllocs()
	for b.Loop() {
		if err := Render(dir, res); err != nil {
			b.Fatal(err)
		}
	}
}
