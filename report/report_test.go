package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/internal/rewrite"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func ptr(v float64) *float64 { return &v }

func sampleResult() *Result {
	return &Result{
		Scenario:         "node-failure",
		Description:      "One node of three crashes.",
		Seed:             1,
		SimulatorVersion: SimulatorVersion,
		UpstreamVersion:  "1.32",
		Overrides:        []Override{{Key: "kube-controller-manager.node-monitor-grace-period", Value: "20s"}},
		VirtualSeconds:   420.5,
		WallSeconds:      0.25,
		EventsProcessed:  123456,
		StopReason:       "quiescent",
		StopDetail:       "nothing significant happened for 6m0s and no work is pending",
		TraceHash:        TraceHashHex(0xdeadbeef),
		Expectations: []ExpectationResult{
			{Name: "recovered", Passed: true, Message: "converged 355.3s after crash (within 7m)"},
			{Name: "eviction-event", Passed: false, Message: "no TaintManagerEviction event within 8m after crash"},
		},
		Convergence: []Convergence{
			{Action: "node-crash", Name: "crash", At: 60, ConvergedAt: ptr(415.3), Seconds: ptr(355.3), FirstConvergedAt: ptr(400.5), Divergences: 1},
			{Action: "scale", At: 500},
		},
		Verdicts: []Verdict{{Workload: "ReplicaSet default/web", Kind: "ReplicaSet", Namespace: "default", Name: "web",
			Desired: 6, Ready: 4, Short: 2, Reason: "Unschedulable", Message: "0/3 nodes are available: 3 Insufficient cpu"}},
		Series: []Series{
			{Name: "pods.ready", Unit: "pods", Points: []Point{{T: 0, V: 6}, {T: 60, V: 4}}},
			{Name: "nodes.ready", Unit: "nodes", Points: []Point{{T: 0, V: 3}, {T: 115.25, V: 2}}},
		},
		Passed: false,
		Events: []EventRecord{{Time: 1, Reason: "Scheduled"}},
	}
}

// golden compares got with testdata/name, or rewrites it with -rewrite.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if rewrite.Enabled() {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./report -rewrite to create %s", path)
	assert.Equal(t, string(want), string(got), "%s differs; if the change is intended, run go test ./report -rewrite", path)
}

func TestWriteResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "node-failure")
	r := sampleResult()
	require.NoError(t, WriteResult(dir, r), "the directory is created")
	data, err := os.ReadFile(filepath.Join(dir, ResultFile))
	require.NoError(t, err)
	golden(t, "result.golden.json", data)

	assert.Equal(t, "nodes.ready", r.Series[1].Name, "the caller's result is not reordered")
	assert.Empty(t, r.SchemaVersion, "the caller's result is not modified")

	again, err := EncodeResult(sampleResult())
	require.NoError(t, err)
	assert.Equal(t, data, again, "the same result encodes to the same bytes")

	back, err := ReadResult(filepath.Join(dir, ResultFile))
	require.NoError(t, err)
	assert.Equal(t, ResultSchemaVersion, back.SchemaVersion)
	assert.Equal(t, EventsSchemaVersion, back.EventsSchemaVersion)
	assert.Equal(t, "nodes.ready", back.Series[0].Name, "series are written sorted by name")
	assert.Nil(t, back.Convergence[1].ConvergedAt, "never converged is null")
	assert.Equal(t, 355.3, *back.Convergence[0].Seconds)
	assert.Empty(t, back.Events, "events are not part of result.json")
	assert.NotContains(t, string(data), `\u003c`, "no HTML escaping")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
}

func TestEmptyResultHasArraysNotNull(t *testing.T) {
	data, err := EncodeResult(&Result{Scenario: "x", Series: []Series{{Name: "s"}}})
	require.NoError(t, err)
	for _, field := range []string{`"overrides": []`, `"expectations": []`, `"convergence": []`, `"verdicts": []`, `"points": []`} {
		assert.Contains(t, string(data), field)
	}
	assert.NotContains(t, string(data), "null")
}

func TestWriteRejectsNonFiniteNumbers(t *testing.T) {
	cases := map[string]func(r *Result){
		"virtualSeconds":                func(r *Result) { r.VirtualSeconds = math.NaN() },
		"wallSeconds":                   func(r *Result) { r.WallSeconds = math.Inf(1) },
		"convergence[0].seconds":        func(r *Result) { r.Convergence[0].Seconds = ptr(math.Inf(-1)) },
		`series "pods.ready" point 1 v`: func(r *Result) { r.Series[0].Points[1].V = math.NaN() },
	}
	for field, breakIt := range cases {
		t.Run(field, func(t *testing.T) {
			dir := t.TempDir()
			r := sampleResult()
			breakIt(r)
			err := WriteResult(dir, r)
			require.Error(t, err)
			assert.Contains(t, err.Error(), field)
			entries, _ := os.ReadDir(dir)
			assert.Empty(t, entries, "nothing is written")
		})
	}
	err := WriteEvents(t.TempDir(), []EventRecord{{Time: 1}, {Time: math.NaN(), Reason: "Killing", Name: "p"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "event 2 (Killing p)")
}

func TestWriteResultReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteResult(dir, sampleResult()))
	r := sampleResult()
	r.Seed = 99
	require.NoError(t, WriteResult(dir, r))
	back, err := ReadResult(filepath.Join(dir, ResultFile))
	require.NoError(t, err)
	assert.Equal(t, uint64(99), back.Seed)

	r.VirtualSeconds = math.NaN()
	require.Error(t, WriteResult(dir, r))
	back, err = ReadResult(filepath.Join(dir, ResultFile))
	require.NoError(t, err, "a failed write leaves the previous file intact")
	assert.Equal(t, uint64(99), back.Seed)

	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	assert.Error(t, WriteResult(filepath.Join(blocker, "sub"), sampleResult()), "an unusable directory is an error")
}

func TestReadResultChecksTheFormat(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	_, err := ReadResult(write("other.json", `{"schemaVersion": "reconsim.dev/result/v9"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `schemaVersion is "reconsim.dev/result/v9"`)
	_, err = ReadResult(write("unknown.json", `{"schemaVersion": "reconsim.dev/result/v2", "bogus": 1}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bogus")
	_, err = ReadResult(filepath.Join(dir, "missing.json"))
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func TestEvents(t *testing.T) {
	dir := t.TempDir()
	events := []EventRecord{
		{Time: 115.25, Type: model.EventTypeNormal, Reason: "NodeNotReady", Kind: "Node", Name: "worker-0",
			Message: "Node worker-0 status is now: NodeNotReady", Source: "node-controller", Count: 1,
			EventName: "worker-0.1ad608d980", FirstTimestamp: 115.25, LastTimestamp: 115.25, Stored: 115.3},
		{Time: 415.5, Type: model.EventTypeNormal, Reason: "TaintManagerEviction", Kind: "Pod", Namespace: "default",
			Name: "web-abc12", Message: "Marking for deletion Pod default/web-abc12", Source: "taint-eviction-controller", Count: 2,
			EventName: "web-abc12.60bd2e9180", FirstTimestamp: 410, LastTimestamp: 415.5, Stored: 416.25},
	}
	require.NoError(t, WriteEvents(dir, events))
	data, err := os.ReadFile(filepath.Join(dir, EventsFile))
	require.NoError(t, err)
	golden(t, "events.golden.jsonl", data)
	assert.Equal(t, 2, bytes.Count(data, []byte("\n")), "one line per event")

	back, err := ReadEvents(filepath.Join(dir, EventsFile))
	require.NoError(t, err)
	assert.Equal(t, events, back)

	require.NoError(t, WriteEvents(dir, nil))
	data, err = os.ReadFile(filepath.Join(dir, EventsFile))
	require.NoError(t, err)
	assert.Empty(t, data, "no events: an empty file")

	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"time": 1}`+"\n"+`{"time": "x"}`+"\n"), 0o644))
	_, err = ReadEvents(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.jsonl:2:")
}

func TestEventRecordFrom(t *testing.T) {
	e := &model.Event{
		ObjectMeta:     model.ObjectMeta{Name: "web-1.2540be400", Namespace: "default"},
		InvolvedObject: model.ObjectReference{Kind: model.KindPod, Namespace: "default", Name: "web-1"},
		Reason:         "Killing", Message: "Stopping container web", Type: model.EventTypeNormal,
		Source:         model.EventSource{Component: "kubelet", Host: "worker-1"},
		FirstTimestamp: vtime.Time(10e9), LastTimestamp: vtime.Time(12_500_000_000), Count: 3,
	}
	assert.Equal(t, EventRecord{Time: 12.5, Type: "Normal", Reason: "Killing", Kind: "Pod", Namespace: "default", Name: "web-1",
		Message: "Stopping container web", Source: "kubelet", Host: "worker-1", Count: 3,
		EventName: "web-1.2540be400", FirstTimestamp: 10, LastTimestamp: 12.5, Stored: 14}, EventRecordFrom(e, vtime.Time(14e9)))
	e.LastTimestamp, e.Count = 0, 0
	got := EventRecordFrom(e, vtime.Time(14e9))
	assert.Equal(t, 10.0, got.Time, "without a last timestamp the first one is used")
	assert.Equal(t, int32(1), got.Count, "an event happened at least once")
}

func TestSummary(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteSummary(&buf, sampleResult(), SummaryOptions{
		ResultPath: "out/node-failure/result.json", EventsPath: "out/node-failure/events.jsonl",
		Reproduce: "sim run node-failure --seed 1 --set kube-controller-manager.node-monitor-grace-period=20s",
	}))
	golden(t, "summary.golden.txt", buf.Bytes())
	out := buf.String()
	for _, want := range []string{
		"node-failure (seed 1)", "quiescent: nothing significant", "420.5s virtual in 0.25s wall", "(1682 virtual seconds per wall second)",
		"123456 processed (493.8k events/s)", "converged at 415.3s", "never converged", "✓ recovered", "✗ eviction-event",
		"desired 6, ready 4 (short 2)", "reproduce", "FAILED (1/2 expectations held)",
	} {
		assert.Contains(t, out, want)
	}

	buf.Reset()
	require.NoError(t, WriteSummary(&buf, &Result{Scenario: "empty", Passed: true, StopReason: "drained"}, SummaryOptions{}))
	out = buf.String()
	assert.Contains(t, out, "convergence: no timeline actions")
	assert.Contains(t, out, "expectations: none declared")
	assert.Contains(t, out, "verdicts: none")
	assert.Contains(t, out, "(- virtual seconds per wall second)", "no speed without a wall time")
	assert.True(t, strings.HasSuffix(out, "PASSED (0/0 expectations held)\n"))

	assert.Error(t, WriteSummary(failingWriter{}, sampleResult(), SummaryOptions{}))
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFormatting(t *testing.T) {
	assert.Equal(t, "00000000deadbeef", TraceHashHex(0xdeadbeef))
	for in, want := range map[float64]string{60: "60s", 415.3: "415.3s", 0.25: "0.25s", 1.0004: "1s", 2.1256: "2.126s", 0: "0s"} {
		assert.Equal(t, want, seconds(in))
	}
	assert.Equal(t, "-", rate(5, 0))
	assert.Equal(t, "5", rate(5, 1))
	assert.Equal(t, "12.5k", rate(12500, 1))
	assert.Equal(t, "3.00M", rate(3e6, 1))
	assert.Equal(t, "2.00G", rate(2e9, 1))
}

// TestSeriesCSV: one row per sample after a header, series sorted by name, plain decimals that
// read back exactly, formula-like text defused, and a NaN refused.
func TestSeriesCSV(t *testing.T) {
	series := []Series{
		{Name: "pods.ready", Unit: "pods", Points: []Point{{T: 0, V: 6}, {T: 60.000000001, V: 4}}},
		{Name: "nodes.ready", Unit: "nodes", Points: []Point{{T: 0, V: 3}, {T: 115.25, V: 1e6}}},
		{Name: "=cmd", Points: []Point{{T: 1, V: 0.1}}},
	}
	data, err := EncodeSeriesCSV(series)
	require.NoError(t, err)
	assert.Equal(t, "series,unit,t,v\n'=cmd,,1,0.1\nnodes.ready,nodes,0,3\nnodes.ready,nodes,115.25,1000000\npods.ready,pods,0,6\npods.ready,pods,60.000000001,4\n", string(data))
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	require.NoError(t, err)
	assert.Len(t, rows, 1+5, "one row per sample")
	_, err = EncodeSeriesCSV([]Series{{Name: "x", Points: []Point{{T: 1, V: math.NaN()}}}})
	assert.ErrorContains(t, err, `series "x" point 0`)

	dir := t.TempDir()
	require.NoError(t, WriteSeriesCSV(dir, series))
	got, err := os.ReadFile(filepath.Join(dir, SeriesFile))
	require.NoError(t, err)
	assert.Equal(t, data, got)

	// The encoder's own error comes back as it is, and the earlier file stays whole.
	err = WriteSeriesCSV(dir, []Series{{Name: "x", Points: []Point{{T: 1, V: math.Inf(1)}}}})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), `report: series "x" point 0`), err.Error())
	got, err = os.ReadFile(filepath.Join(dir, SeriesFile))
	require.NoError(t, err)
	assert.Equal(t, data, got)
}
