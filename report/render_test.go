package report

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/reconsim/reconsim/internal/rewrite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// steps builds a step series from (t, v) pairs.
func steps(name, unit string, tv ...float64) Series {
	s := Series{Name: name, Unit: unit}
	for i := 0; i+1 < len(tv); i += 2 {
		s.Points = append(s.Points, Point{T: tv[i], V: tv[i+1]})
	}
	return s
}

// plotFixture is a small synthetic run with every family of series the plots know, shaped
// like node-failure (crash at 60 s, replacements at 415 s) plus an autoscaled load.
func plotFixture() *Result {
	return &Result{
		SchemaVersion:    ResultSchemaVersion,
		Scenario:         "plot-fixture",
		Description:      "A synthetic run that exercises every plot.",
		Seed:             7,
		SimulatorVersion: SimulatorVersion,
		UpstreamVersion:  "1.32",
		Overrides:        []Override{{Key: "kube-controller-manager.node-monitor-grace-period", Value: "20s"}},
		VirtualSeconds:   776,
		WallSeconds:      0.02,
		EventsProcessed:  4790,
		StopReason:       "quiescent",
		TraceHash:        TraceHashHex(42),
		Expectations: []ExpectationResult{
			{Name: "recovered", Passed: true, Message: "converged"},
			{Name: "fast", Passed: false, Message: "took 356 s, want 60 s"},
		},
		Convergence: []Convergence{
			{Action: "start", Name: "start", At: 0, ConvergedAt: ptr(0), Seconds: ptr(0)},
			{Action: "node-crash", Name: "crash", At: 60, ConvergedAt: ptr(416.042), Seconds: ptr(356.042)},
			{Action: "scale", Name: "scale-up", At: 500, ConvergedAt: ptr(512), Seconds: ptr(12)},
		},
		Series: []Series{
			steps("replicaset.default/web.desired", "pods", 0, 6, 500, 8),
			steps("replicaset.default/web.ready", "pods", 0, 6, 110, 4, 416, 6, 505, 7, 512, 8),
			steps("replicaset.default/web.available", "pods", 0, 6, 110, 4, 416, 6, 506, 7, 512, 8),
			steps("replicaset.default/web.serving", "pods", 0, 6, 60, 4, 416, 6, 505, 7, 512, 8),
			steps("deployment.default/api.desired", "pods", 0, 3),
			steps("deployment.default/api.ready", "pods", 0, 3, 110, 2, 416, 3),
			steps("deployment.default/api.available", "pods", 0, 3, 110, 2, 416, 3),
			steps("pods.pending", "pods", 0, 0, 415, 2, 416, 0, 500, 2, 510, 0),
			steps("pods.running", "pods", 0, 9, 416, 11, 512, 13),
			steps("pods.terminating", "pods", 0, 0, 415, 2, 445, 0),
			steps("nodes.ready", "nodes", 0, 3, 110, 2),
			steps("nodes.notready", "nodes", 0, 0, 110, 1),
			steps("apiserver.requests_per_second", "requests/s", 0, 60, 10, 5, 415, 21, 420, 4),
			steps("apiserver.throttled_429_per_second", "requests/s", 0, 0, 415, 3, 420, 0),
			steps("apiserver.inflight_readonly", "requests", 0, 0, 415, 2, 416, 0),
			steps("apiserver.inflight_mutating", "requests", 0, 0, 415, 4, 416, 0),
			steps("apiserver.latency_p99_seconds", "seconds", 0, 0.2, 10, 0.02, 415, 0.05, 420, 0.02),
			steps("apf.node-high.executing_seats", "seats", 0, 1, 110, 0, 415, 3, 420, 1),
			steps("apf.node-high.current_limit_seats", "seats", 0, 4, 420, 5),
			steps("apf.workload-high.executing_seats", "seats", 0, 2, 415, 5, 430, 2),
			steps("apf.workload-high.current_limit_seats", "seats", 0, 5, 420, 4),
			steps("apf.workload-high.inqueue", "requests", 0, 0, 415, 12, 440, 0),
			steps("apf.workload-high.rejected_per_second", "requests/s", 0, 0, 416, 3, 418, 0),
			steps("apf.workload-high.wait_seconds", "seconds", 0, 0, 415, 1.5, 440, 0),
			steps("workqueue.replicaset-controller.depth", "items", 0, 0, 415, 2, 415.2, 0),
			steps("workqueue.kube-scheduler.depth", "items", 0, 0, 415.1, 2, 415.3, 0),
			steps("service.default/web.ready_endpoints", "endpoints", 0, 6, 110, 4, 416, 6),
			steps("hpa.default/web.replicas", "pods", 0, 6, 500, 8),
			steps("hpa.default/web.desired", "pods", 0, 6, 490, 8),
			steps("load.web.offered", "requests/s", 0, 300, 480, 450),
			steps("load.web.served", "requests/s", 0, 300, 480, 360, 512, 450),
			steps("load.web.cpu_utilization_percent", "%", 0, 50, 480, 75, 512, 56),
		},
		Events: []EventRecord{
			{Time: 0, Type: "Normal", Reason: "Starting", Kind: "Node", Name: "worker-0", Message: "Starting kubelet.", Source: "kubelet", Host: "worker-0", Count: 1},
			{Time: 110.025, Type: "Normal", Reason: "NodeNotReady", Kind: "Node", Name: "worker-0", Message: "Node worker-0 status is now: NodeNotReady", Source: "node-controller", Count: 1},
			{Time: 110.03, Type: "Warning", Reason: "NodeNotReady", Kind: "Pod", Namespace: "default", Name: "web-a", Message: "Node is not ready", Source: "node-controller", Count: 1},
			{Time: 415.145, Type: "Normal", Reason: "TaintManagerEviction", Kind: "Pod", Namespace: "default", Name: "web-a", Message: "Marking for deletion Pod default/web-a", Source: "taint-eviction-controller", Count: 1},
		},
	}
}

// pixelsDiffer counts the pixels of a and b whose colour differs by more than tolerance in
// any channel (0-255 scale); images of different sizes differ everywhere.
func pixelsDiffer(a, b image.Image, tolerance int) (differ, total int) {
	if a.Bounds() != b.Bounds() {
		n := max(a.Bounds().Dx()*a.Bounds().Dy(), b.Bounds().Dx()*b.Bounds().Dy())
		return n, n
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, aa := a.At(x, y).RGBA()
			br, bg, bb, ba := b.At(x, y).RGBA()
			for _, d := range []int{int(ar>>8) - int(br>>8), int(ag>>8) - int(bg>>8), int(ab>>8) - int(bb>>8), int(aa>>8) - int(ba>>8)} {
				if d > tolerance || -d > tolerance {
					differ++
					break
				}
			}
		}
	}
	return differ, r.Dx() * r.Dy()
}

// TestPlotsGolden compares every figure of the fixture with testdata/plots/<name>.png,
// allowing small antialiasing differences: a pixel may differ by 16/255 per channel, and
// at most 0.2% of the pixels may differ by more. Run with -rewrite to rewrite the goldens.
func TestPlotsGolden(t *testing.T) {
	const channelTolerance, maxDifferingFraction = 16, 0.002
	figs := Plots(plotFixture())
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	require.Equal(t, []string{
		"convergence-deployment-default-api", "convergence-replicaset-default-web",
		"pods", "nodes", "apiserver", "apf", "workqueue", "hpa", "endpoints",
	}, names)
	dir := filepath.Join("testdata", "plots")
	for _, f := range figs {
		t.Run(f.Name, func(t *testing.T) {
			data, err := f.PNG()
			require.NoError(t, err)
			path := filepath.Join(dir, f.Name+".png")
			if rewrite.Enabled() {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				require.NoError(t, os.WriteFile(path, data, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./report -run TestPlotsGolden -rewrite to create it")
			got, err := png.Decode(bytes.NewReader(data))
			require.NoError(t, err)
			wantImg, err := png.Decode(bytes.NewReader(want))
			require.NoError(t, err)
			differ, total := pixelsDiffer(got, wantImg, channelTolerance)
			assert.LessOrEqual(t, float64(differ)/float64(total), maxDifferingFraction,
				"%d of %d pixels differ from %s; look at the new figure and rerun with -rewrite if it is right", differ, total, path)
		})
	}
}

func TestPixelsDifferDetectsChange(t *testing.T) {
	figs := Plots(plotFixture())
	a, err := figs[0].PNG()
	require.NoError(t, err)
	b, err := figs[1].PNG()
	require.NoError(t, err)
	ia, err := png.Decode(bytes.NewReader(a))
	require.NoError(t, err)
	ib, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	differ, total := pixelsDiffer(ia, ia, 0)
	assert.Zero(t, differ)
	assert.Positive(t, total)
	differ, total = pixelsDiffer(ia, ib, 16)
	assert.Greater(t, float64(differ)/float64(total), 0.002, "two different figures must not pass as equal")
}

func TestRenderIsDeterministic(t *testing.T) {
	render := func() map[string][]byte {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, TraceFile), []byte(strings.Join(nodeFailureTrace(), "\n")+"\n"), 0o644))
		require.NoError(t, Render(dir, plotFixture()))
		files := map[string][]byte{}
		require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			require.NoError(t, err)
			if !info.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				data, err := os.ReadFile(p)
				require.NoError(t, err)
				files[rel] = data
			}
			return nil
		}))
		return files
	}
	a, b := render(), render()
	var names []string
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	assert.Contains(t, names, HTMLFile)
	assert.Contains(t, names, TraceEventFile)
	assert.Contains(t, names, filepath.Join(PlotsDir, "pods.png"))
	assert.Contains(t, names, filepath.Join(PlotsDir, "pods.svg"))
	require.Equal(t, len(a), len(b))
	for _, n := range names {
		assert.True(t, bytes.Equal(a[n], b[n]), "%s differs between two renders of the same result", n)
		assert.False(t, strings.HasSuffix(n, ".tmp"), "temporary file %s left behind", n)
	}
}

func TestHTMLEscapesUserText(t *testing.T) {
	res := plotFixture()
	res.Scenario = `<script>alert("scenario")</script>`
	res.Description = `<img src=x onerror=alert(1)>`
	res.Series = append(res.Series, steps(`replicaset.default/<script>x</script>.ready`, "pods", 0, 1))
	res.Events = append(res.Events, EventRecord{Time: 1, Type: `Normal"><script>`, Reason: "<b>bold</b>", Message: "</td><script>alert(2)</script>"})
	res.Overrides = append(res.Overrides, Override{Key: "a", Value: "'; rm -rf /"})
	var buf bytes.Buffer
	require.NoError(t, EncodeHTML(&buf, res, nil))
	page := buf.String()
	assert.Equal(t, 1, strings.Count(page, "<script>"), "only the page's own script may appear unescaped")
	assert.NotContains(t, page, "<img src=x")
	assert.NotContains(t, page, "<b>bold</b>")
	assert.Contains(t, page, "&lt;script&gt;alert(&#34;scenario&#34;)&lt;/script&gt;")
	assert.Contains(t, page, `--set &#39;a=&#39;\&#39;&#39;; rm -rf /&#39;`)
}

func TestHTMLHasEverySection(t *testing.T) {
	res := plotFixture()
	var buf bytes.Buffer
	require.NoError(t, EncodeHTML(&buf, res, nodeFailureTrace()))
	page := buf.String()
	for _, want := range []string{
		`id="summary"`, `id="plots"`, `id="timeline"`, `id="expectations"`, `id="why"`,
		`id="events"`, `id="event-filter"`, `id="event-type"`, `id="event-reason"`, `id="reproduce"`,
		`<option value="TaintManagerEviction">TaintManagerEviction</option>`, `data-reason="TaintManagerEviction"`,
		"sim run plot-fixture --seed 7 --set kube-controller-manager.node-monitor-grace-period=20s",
		`<span class="badge fail" id="verdict">FAILED</span>`,
		"✓", "✗", "TaintManagerEviction", "toleration", "scale-up",
		`<figure id="plot-convergence-replicaset-default-web"><svg`, `<figure id="plot-hpa"><svg`,
	} {
		assert.Contains(t, page, want)
	}
	for _, bad := range []string{"http://", "https://", "ZgotmplZ", "<link", "src="} {
		if bad == "http://" {
			// SVG namespaces are identifiers, not fetches.
			page = strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
			page = strings.ReplaceAll(page, `xmlns:xlink="http://www.w3.org/1999/xlink"`, "")
		}
		assert.NotContains(t, page, bad)
	}
}

func TestHTMLNotesCappedConvergencePlots(t *testing.T) {
	res := plotFixture()
	for i := 0; i < MaxConvergencePlots+3; i++ {
		name := "replicaset.default/extra-" + string(rune('a'+i))
		res.Series = append(res.Series, steps(name+".desired", "pods", 0, float64(i+1)), steps(name+".ready", "pods", 0, float64(i+1)))
	}
	drawn, total := ConvergenceCoverage(res)
	assert.Equal(t, MaxConvergencePlots, drawn)
	assert.Equal(t, MaxConvergencePlots+5, total)
	var buf bytes.Buffer
	require.NoError(t, EncodeHTML(&buf, res, nil))
	assert.Contains(t, buf.String(), "13 workloads have replica series; the convergence figures show the 8 largest")
	assert.Equal(t, MaxConvergencePlots, strings.Count(buf.String(), `<figure id="plot-convergence-`))
}

func TestPlotsSkipAbsentSeries(t *testing.T) {
	res := &Result{VirtualSeconds: 100, Series: []Series{steps("nodes.ready", "nodes", 0, 3, 50, 2)}}
	figs := Plots(res)
	require.Len(t, figs, 1)
	assert.Equal(t, "nodes", figs[0].Name)
	assert.Equal(t, "virtual time (seconds)", figs[0].axis.label())
	assert.Empty(t, Plots(&Result{}))
	assert.Nil(t, Plots(nil))
}

func TestLoadResultRoundTrip(t *testing.T) {
	dir := t.TempDir()
	res := plotFixture()
	require.NoError(t, WriteResult(dir, res))
	_, err := LoadResult(dir)
	require.NoError(t, err, "events.jsonl is optional")
	require.NoError(t, WriteEvents(dir, res.Events))
	got, err := LoadResult(dir)
	require.NoError(t, err)
	assert.Equal(t, res.Events, got.Events)
	assert.Equal(t, res.Scenario, got.Scenario)
	_, err = LoadResult(t.TempDir())
	assert.Error(t, err)
}

// chromeTrace is the part of trace.json the tests read back.
type chromeTrace struct {
	TraceEvents []struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		TS   float64        `json:"ts"`
		Dur  *float64       `json:"dur"`
		TID  int            `json:"tid"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
}

func decodeChromeTrace(t *testing.T, lines []string, series []Series) (chromeTrace, map[int]string) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, EncodeTraceEvents(&buf, lines, series))
	var doc chromeTrace
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc), "trace.json is valid JSON")
	threads := map[int]string{}
	for _, e := range doc.TraceEvents {
		assert.Contains(t, []string{"M", "i", "X", "C"}, e.Ph, "only phases of the trace event format")
		if e.Ph == "M" && e.Name == "thread_name" {
			threads[e.TID] = e.Args["name"].(string)
		}
	}
	return doc, threads
}

func TestTraceEventsAreValidJSON(t *testing.T) {
	doc, threads := decodeChromeTrace(t, append(nodeFailureTrace(), "garbage", ""), nil)
	named := map[int]bool{}
	instants := 0
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				named[e.TID] = true
			}
		case "i":
			instants++
			assert.True(t, named[e.TID], "an event's thread is named before it")
		}
	}
	assert.Equal(t, len(nodeFailureTrace()), instants)
	assert.Equal(t, map[int]string{1: "timeline", 2: "node-controller", 3: "nodelifecycle", 4: "tainteviction",
		5: "taint-eviction-controller", 6: "replicaset-controller", 7: "cluster"}, threads)
	last := doc.TraceEvents[len(doc.TraceEvents)-1]
	assert.InDelta(t, 416.042009e6, last.TS, 1, "ts is in microseconds")
}

// TestTraceEventsSlicesAndCounters: lines with their own duration become slices that end at
// the line's time, overlapping slices of one component go to separate tracks (slices on one
// track must nest), lines without a duration stay instants, and every series is a counter.
func TestTraceEventsSlicesAndCounters(t *testing.T) {
	lines := []string{
		"415.358462 kubelet/worker-2 sandbox Pod default/web-a ip=10.1.0.3 took=161.587493ms",
		"415.400000 kubelet/worker-2 sandbox Pod default/web-b ip=10.1.0.4 took=100ms",
		"415.503541 kubelet/worker-2 container-start Pod default/web-a container=web restarts=0 took=145.079346ms",
		"416.000000 replicaset-controller reconcile default/web ok",
	}
	series := []Series{
		{Name: "workqueue.replicaset-controller.depth", Points: []Point{{T: 0, V: 0}, {T: 415.2, V: 2}}},
		{Name: "pods.running", Points: []Point{{T: 0, V: 6}}},
	}
	doc, threads := decodeChromeTrace(t, lines, series)

	type slice struct {
		track, name string
		startUS     float64
		durUS       float64
	}
	var slices []slice
	counters := map[string][]float64{}
	instants := 0
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "X":
			require.NotNil(t, e.Dur, "a complete slice has a duration")
			slices = append(slices, slice{threads[e.TID], e.Name, e.TS, *e.Dur})
		case "C":
			for k, v := range e.Args {
				counters[e.Name+" "+k] = append(counters[e.Name+" "+k], v.(float64))
			}
		case "i":
			instants++
			assert.Equal(t, "reconcile", e.Name, "only the line without a duration is an instant")
		}
	}
	require.Len(t, slices, 3)
	assert.Equal(t, slice{"kubelet/worker-2", "sandbox Pod default/web-a", 415358462 - 161587.493, 161587.493}, slices[0])
	assert.Equal(t, "kubelet/worker-2 #2", slices[1].track, "a slice overlapping the first goes to a second track")
	assert.Equal(t, "kubelet/worker-2", slices[2].track, "the first track is free again once its slice ended")
	assert.Equal(t, "container-start Pod default/web-a", slices[2].name)
	assert.InDelta(t, 415358462, slices[2].startUS, 1e-3,
		"a slice that seems to start under 1 µs before the previous one ended (trace times are rounded) starts at its end")
	assert.InDelta(t, 415503541-415358462, slices[2].durUS, 1e-3)
	assert.Equal(t, 1, instants)
	assert.Equal(t, map[string][]float64{
		"workqueue.replicaset-controller depth": {0, 2},
		"pods running":                          {6},
	}, counters)
}

// TestLongTracesAreCutNotRefused: a trace longer than the cap is read up to it; rendering a
// large run must never fail because of its trace's size.
func TestLongTracesAreCutNotRefused(t *testing.T) {
	saved := maxTraceLines
	maxTraceLines = 3
	defer func() { maxTraceLines = saved }()
	dir := t.TempDir()
	path := filepath.Join(dir, TraceFile)
	require.NoError(t, os.WriteFile(path, []byte("1.0 a x o\n2.0 b y o\n3.0 c z o\n4.0 d w o\n"), 0o644))
	lines, err := ReadTraceLines(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"1.0 a x o", "2.0 b y o", "3.0 c z o"}, lines)
}

// TestRenderWritesWhatTheEncodersGive: Render draws each SVG once and encodes trace.json
// concurrently with the page; the files must still be byte for byte what EncodeHTML,
// EncodeTraceEvents and each plot's SVG give on their own.
func TestRenderWritesWhatTheEncodersGive(t *testing.T) {
	dir := t.TempDir()
	trace := nodeFailureTrace()
	require.NoError(t, os.WriteFile(filepath.Join(dir, TraceFile), []byte(strings.Join(trace, "\n")+"\n"), 0o644))
	res := plotFixture()
	require.NoError(t, Render(dir, res))

	var page, events bytes.Buffer
	require.NoError(t, EncodeHTML(&page, res, trace))
	require.NoError(t, EncodeTraceEvents(&events, trace, res.Series))
	gotPage, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(page.Bytes(), gotPage), "report.html differs from EncodeHTML")
	gotEvents, err := os.ReadFile(filepath.Join(dir, TraceEventFile))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(events.Bytes(), gotEvents), "trace.json differs from EncodeTraceEvents")
	figs := Plots(res)
	require.NotEmpty(t, figs)
	for _, f := range figs {
		svg, err := f.SVG()
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, PlotsDir, f.Name+".svg"))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(svg, got), "%s.svg differs from Plot.SVG", f.Name)
	}
}

// TestHTMLNoteWithoutTraceSaysWhereTraceComesFrom: without trace.txt the report says how to
// get one, and that is a run into the directory (sim run always writes trace.txt), not
// redirecting --trace.
func TestHTMLNoteWithoutTraceSaysWhereTraceComesFrom(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, EncodeHTML(&buf, plotFixture(), nil))
	page := buf.String()
	assert.Contains(t, page, "No trace.txt beside result.json")
	assert.Contains(t, page, "Every &#39;sim run&#39; writes DIR/trace.txt")
	assert.NotContains(t, page, "--trace &gt;", "trace.txt does not come from redirecting --trace")

	buf.Reset()
	require.NoError(t, EncodeHTML(&buf, plotFixture(), nodeFailureTrace()))
	assert.NotContains(t, buf.String(), "No trace.txt beside result.json")
}

// TestHTMLShowsRedivergence: the report's convergence table has the last convergence, the
// first one and the divergences in between, and the verdicts their reason and message.
func TestHTMLShowsRedivergence(t *testing.T) {
	res := plotFixture()
	res.Convergence[1].FirstConvergedAt = ptr(380.5)
	res.Convergence[1].Divergences = 2
	res.Verdicts = []Verdict{{Workload: "Pod default/trainer", Kind: "Pod", Namespace: "default", Name: "trainer",
		Desired: 1, Short: 1, Reason: "Unschedulable", Message: "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}}
	var buf bytes.Buffer
	require.NoError(t, EncodeHTML(&buf, res, nil))
	page := buf.String()
	for _, want := range []string{"<th class=\"num\">first converged</th>", "<th class=\"num\">diverged again</th>",
		`<span class="bad">2</span>`, "380.5", "<td>Unschedulable</td>", "Insufficient nvidia.com/gpu."} {
		assert.Contains(t, page, want)
	}
}

// TestHTMLShowsActorsAndLeadership: the convergence table and the timeline name who did each
// action (as:), and the leadership lane lists each term, an open one until the end.
func TestHTMLShowsActorsAndLeadership(t *testing.T) {
	res := plotFixture()
	res.Convergence = append(res.Convergence, Convergence{Action: "edit", Name: "hand-edit", Actor: "alice", At: 30})
	to := 90.0
	res.Leadership = []LeaderTerm{
		{Component: "kube-controller-manager", Replica: 0, Identity: "control-plane-0_1", From: 0, To: &to},
		{Component: "kube-controller-manager", Replica: 1, Identity: "control-plane-1_2", From: 104.4},
	}
	var buf bytes.Buffer
	require.NoError(t, EncodeHTML(&buf, res, nil))
	page := buf.String()
	assert.Contains(t, page, "<td>hand-edit</td><td>edit</td><td>alice</td>")
	assert.Contains(t, page, "“hand-edit” by alice")
	assert.Contains(t, page, `id="leadership"`)
	assert.Contains(t, page, "<code>control-plane-1_2</code>")
	assert.Contains(t, page, "end of run")
}

// TestLeadersAndGitOpsPlots: the leadership lane and the GitOps status get a figure each when
// their series exist, and none otherwise.
func TestLeadersAndGitOpsPlots(t *testing.T) {
	res := plotFixture()
	names := func() []string {
		var out []string
		for _, p := range Plots(res) {
			out = append(out, p.Name)
		}
		return out
	}
	assert.NotContains(t, names(), "leaders")
	assert.NotContains(t, names(), "gitops")
	res.Series = append(res.Series, steps("leader.kube-controller-manager", "replica", 0, 0, 90, -1, 104, 1),
		steps("gitops.app.synced", "", 0, 1, 300, 0, 301, 1))
	assert.Contains(t, names(), "leaders")
	assert.Contains(t, names(), "gitops")
	for _, p := range Plots(res) {
		if p.Name == "leaders" || p.Name == "gitops" {
			svg, err := p.SVG()
			require.NoError(t, err)
			assert.Contains(t, string(svg), "<svg")
		}
	}
}

// TestPhaseColorsAreThePalette: the why bars are coloured with the figures' palette, written
// as CSS.
func TestPhaseColorsAreThePalette(t *testing.T) {
	assert.Equal(t, []string{"#e15759", "#f28e2b", "#4e79a7", "#59a14f", "#76b7b2", "#b07aa1", "#9c755f", "#79706e"}, phaseColors)
}
