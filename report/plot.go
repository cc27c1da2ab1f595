package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reconsim/reconsim/internal/plotstyle"
)

// PlotsDir is the directory, inside an output directory, that WritePlots writes into.
const PlotsDir = "plots"

// Limits that keep a figure readable and its rendering bounded. A figure that would hold more
// lines than maxLinesPerPanel shows the ones with the largest peak and says so in its title.
const (
	maxLinesPerPanel = 10
	// maxMarkers bounds the labelled action markers drawn on every time axis.
	maxMarkers = 50
)

// Plot is one figure of a run: a title, one or more panels stacked vertically that share the
// virtual-time axis, the timeline's actions as labelled vertical markers, and a legend below
// the panels. Render it with PNG or SVG; the same Plot always gives the same bytes.
type Plot struct {
	// Name is the file stem the figure is written under (plots/<Name>.png and .svg):
	// convergence-<kind>-<namespace>-<name> (one per workload), pods, nodes, apiserver,
	// workqueue, hpa or endpoints.
	Name string
	// Title is the heading drawn above the panels.
	Title string

	panels  []panel
	axis    timeAxis
	markers []marker
}

// panel is one chart of a figure: lines sharing one y axis.
type panel struct {
	yLabel string
	// integer says the values are counts, so y ticks fall on whole numbers.
	integer bool
	lines   []line
}

// line is one step line: the value holds from each point until the next.
type line struct {
	label  string
	points []Point
	style  lineStyle
}

type lineStyle struct {
	color color.RGBA
	// widthPx is the stroke width in pixels.
	widthPx float64
	// dashPx is the dash pattern in pixels; nil draws a solid line.
	dashPx []float64
}

// marker is one timeline action drawn as a vertical line at virtual second At.
type marker struct {
	at    float64
	label string
}

// timeAxis says how virtual seconds are shown on the x axis.
type timeAxis struct {
	// maxSeconds is the right end of the axis (the end of the run).
	maxSeconds float64
	// unitSeconds is how many seconds one axis unit is (1, 60 or 3600).
	unitSeconds float64
	unitName    string
}

// newTimeAxis picks the unit by run length: seconds up to 5 minutes, minutes up to 5 hours,
// hours beyond, so the tick labels stay short numbers.
func newTimeAxis(maxSeconds float64) timeAxis {
	if !(maxSeconds > 0) || math.IsInf(maxSeconds, 0) {
		maxSeconds = 1
	}
	switch {
	case maxSeconds <= 300:
		return timeAxis{maxSeconds: maxSeconds, unitSeconds: 1, unitName: "seconds"}
	case maxSeconds <= 5*3600:
		return timeAxis{maxSeconds: maxSeconds, unitSeconds: 60, unitName: "minutes"}
	default:
		return timeAxis{maxSeconds: maxSeconds, unitSeconds: 3600, unitName: "hours"}
	}
}

// label is the x-axis label, naming the unit.
func (a timeAxis) label() string { return "virtual time (" + a.unitName + ")" }

func solid(c color.RGBA) lineStyle { return lineStyle{color: c, widthPx: 2} }

// Plots returns the figures that res has data for, in a fixed order: convergence (desired,
// ready, available and serving replicas, one figure per workload, at most
// MaxConvergencePlots), pods by phase, node readiness, API server load,
// workqueue depth per controller, HPA load and replicas, Service endpoints, the leader of
// each replicated component, and the GitOps application's sync status. A figure whose
// series are all absent is left out, so a run without an HPA has no hpa figure. Points that
// are NaN or infinite are skipped. The result is the same for the same res.
func Plots(res *Result) []Plot {
	if res == nil {
		return nil
	}
	idx := indexSeries(res.Series)
	axis := newTimeAxis(runEnd(res))
	markers := actionMarkers(res)

	var figs []Plot
	add := func(p Plot, ok bool) {
		if !ok {
			return
		}
		p.axis = axis
		p.markers = markers
		figs = append(figs, p)
	}
	for _, p := range convergencePlots(idx) {
		add(p, true)
	}
	add(podsPlot(idx))
	add(nodesPlot(idx))
	add(apiserverPlot(idx))
	add(apfPlot(idx))
	add(workqueuePlot(idx))
	add(hpaPlot(idx))
	add(endpointsPlot(idx))
	add(leadersPlot(idx))
	add(gitopsPlot(idx))
	return figs
}

// leadersPlot is the leadership lane: for each component that ran leader election, the
// index of the replica that leads, -1 while none does.
func leadersPlot(idx seriesIndex) (Plot, bool) {
	p := familyPanel(idx, "leader.", "leading replica (-1: none)", true, nil, nil)
	return singlePanel("leaders", "Leader per replicated component", p)
}

// gitopsPlot is the GitOps agent's Application: Synced (1) or not, and the resources out of
// sync.
func gitopsPlot(idx seriesIndex) (Plot, bool) {
	p := familyPanel(idx, "gitops.", "synced / resources out of sync", true,
		[]string{"app.synced", "app.out_of_sync"},
		map[string]lineStyle{"app.synced": solid(plotstyle.Green), "app.out_of_sync": solid(plotstyle.Red)})
	return singlePanel("gitops", "GitOps application sync status", p)
}

// singlePanel is the plot of the one panel p, or none when p has no lines.
func singlePanel(name, title string, p panel) (Plot, bool) {
	if len(p.lines) == 0 {
		return Plot{}, false
	}
	return Plot{Name: name, Title: title, panels: []panel{p}}, true
}

// WritePlots renders every figure of Plots(res) into dir/plots as <name>.png and <name>.svg,
// creating the directories as needed, and returns the paths written in order. Each file is
// written to a temporary name and renamed into place. On error it returns the paths written
// so far and an error naming the figure.
func WritePlots(dir string, res *Result) ([]string, error) {
	written, _, err := writePlotFiles(dir, Plots(res))
	return written, err
}

// writePlotFiles writes each figure as PNG and SVG under dir/plots and returns the paths
// written and the SVG of each figure, in order. The files are drawn on up to GOMAXPROCS
// goroutines (drawPlots) and written in order as they come, so that the files, the paths
// and the first error are what drawing and writing one file after the other gives.
func writePlotFiles(dir string, figs []Plot) (written []string, svgs [][]byte, _ error) {
	out := filepath.Join(dir, PlotsDir)
	drawn := drawPlots(figs, runtime.GOMAXPROCS(0))
	defer drawn.stop()
	for i, f := range figs {
		for k, format := range plotFormats {
			d := drawn.get(i*len(plotFormats) + k)
			if d.err != nil {
				return written, svgs, d.err
			}
			if format == "svg" {
				svgs = append(svgs, d.data)
			}
			name := f.Name + "." + format
			if err := writeAtomicBytes(out, name, d.data); err != nil {
				return written, svgs, err
			}
			written = append(written, filepath.Join(out, name))
		}
	}
	return written, svgs, nil
}

// plotFormats are the files of a figure, in the order they are written.
var plotFormats = []string{"png", "svg"}

// drawnPlot is one file of a figure, drawn: its bytes or the error drawing it.
type drawnPlot struct {
	data []byte
	err  error
}

// plotDrawing draws the files of figures on goroutines; get waits for one.
type plotDrawing struct {
	files []drawnPlot
	// ready[j] is closed once files[j] is drawn (or will not be, after stop).
	ready []chan struct{}
	next  atomic.Int64
	done  sync.WaitGroup
}

// drawPlots starts drawing every file of figs, figure by figure in plotFormats' order (file
// j is figure j/len(plotFormats)), on min(workers, files) goroutines that each take the
// next file not taken. Each file's bytes depend on its figure alone (gonum/plot keeps no
// state between figures but its font cache, which it locks).
func drawPlots(figs []Plot, workers int) *plotDrawing {
	n := len(figs) * len(plotFormats)
	d := &plotDrawing{files: make([]drawnPlot, n), ready: make([]chan struct{}, n)}
	for j := range d.ready {
		d.ready[j] = make(chan struct{})
	}
	for range max(1, min(workers, n)) {
		d.done.Add(1)
		go func() {
			defer d.done.Done()
			for {
				j := int(d.next.Add(1) - 1)
				if j >= n {
					return
				}
				d.files[j] = drawPlotFile(figs[j/len(plotFormats)], plotFormats[j%len(plotFormats)])
				close(d.ready[j])
			}
		}()
	}
	return d
}

// drawPlotFile draws one file of f; a panic is returned as an error, as Render returns one.
func drawPlotFile(f Plot, format string) (d drawnPlot) {
	defer func() {
		if r := recover(); r != nil {
			d = drawnPlot{err: fmt.Errorf("report: drawing the plots: panic: %v", r)}
		}
	}()
	if format == "png" {
		d.data, d.err = f.PNG()
	} else {
		d.data, d.err = f.SVG()
	}
	return d
}

// get waits for file j and returns it.
func (d *plotDrawing) get(j int) drawnPlot {
	<-d.ready[j]
	return d.files[j]
}

// stop lets the goroutines take no further file and waits for them to end.
func (d *plotDrawing) stop() {
	d.next.Store(int64(len(d.files)))
	d.done.Wait()
}

// runEnd is the right end of every time axis: the end of the run, or the last sample if a
// caller's result has samples past it.
func runEnd(res *Result) float64 {
	end := res.VirtualSeconds
	if !finite(end) {
		end = 0
	}
	for _, s := range res.Series {
		for _, p := range s.Points {
			if finite(p.T) && p.T > end {
				end = p.T
			}
		}
	}
	return end
}

// actionMarkers turns the timeline actions (every Convergence entry but the implicit
// "start") into markers, labelled with the entry's name or else its action kind.
func actionMarkers(res *Result) []marker {
	var ms []marker
	for _, c := range res.Convergence {
		if c.Action == "start" || !finite(c.At) {
			continue
		}
		label := c.Name
		if label == "" {
			label = c.Action
		}
		ms = append(ms, marker{at: c.At, label: label})
		if len(ms) == maxMarkers {
			break
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].at < ms[j].at })
	return ms
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// seriesIndex finds series by name; the first of duplicate names wins.
type seriesIndex struct {
	byName map[string]*Series
	names  []string // sorted
}

func indexSeries(series []Series) seriesIndex {
	idx := seriesIndex{byName: make(map[string]*Series, len(series))}
	for i := range series {
		s := &series[i]
		if _, dup := idx.byName[s.Name]; dup {
			continue
		}
		idx.byName[s.Name] = s
		idx.names = append(idx.names, s.Name)
	}
	sort.Strings(idx.names)
	return idx
}

// get returns the named series if it has at least one finite point.
func (idx seriesIndex) get(name string) (*Series, bool) {
	s, ok := idx.byName[name]
	if !ok || len(cleanPoints(s.Points)) == 0 {
		return nil, false
	}
	return s, true
}

// withPrefix returns the names that start with prefix, sorted.
func (idx seriesIndex) withPrefix(prefix string) []string {
	i := sort.SearchStrings(idx.names, prefix)
	var out []string
	for ; i < len(idx.names) && strings.HasPrefix(idx.names[i], prefix); i++ {
		out = append(out, idx.names[i])
	}
	return out
}

// objects returns the distinct <ns>/<name> keys of series named <prefix><key>.<metric>, sorted.
func (idx seriesIndex) objects(prefix string) []string {
	seen := map[string]bool{}
	var keys []string
	for _, n := range idx.withPrefix(prefix) {
		rest := strings.TrimPrefix(n, prefix)
		dot := strings.LastIndexByte(rest, '.')
		if dot <= 0 {
			continue
		}
		key := rest[:dot]
		if !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
	}
	return keys
}

// cleanPoints drops points with a NaN or infinite coordinate.
func cleanPoints(ps []Point) []Point {
	ok := true
	for _, p := range ps {
		if !finite(p.T) || !finite(p.V) {
			ok = false
			break
		}
	}
	if ok {
		return ps
	}
	out := make([]Point, 0, len(ps))
	for _, p := range ps {
		if finite(p.T) && finite(p.V) {
			out = append(out, p)
		}
	}
	return out
}

func peak(ps []Point) float64 {
	m := math.Inf(-1)
	for _, p := range ps {
		if p.V > m {
			m = p.V
		}
	}
	return m
}

// topByPeak keeps at most max names, those whose series peak highest (ties by name), and
// returns them in name order with how many were left out.
func topByPeak(idx seriesIndex, names []string, max int) ([]string, int) {
	if len(names) <= max {
		return names, 0
	}
	type np struct {
		name string
		peak float64
	}
	all := make([]np, len(names))
	for i, n := range names {
		all[i] = np{n, peak(cleanPoints(idx.byName[n].Points))}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].peak > all[j].peak })
	kept := make([]string, 0, max)
	for _, x := range all[:max] {
		kept = append(kept, x.name)
	}
	sort.Strings(kept)
	return kept, len(names) - max
}

// workloadSeries is one workload's replica series, by metric.
type workloadSeries struct {
	kind    string // Deployment, ReplicaSet, StatefulSet or DaemonSet
	key     string // <ns>/<name>
	metrics map[string]*Series
}

// convergenceMetrics are drawn in this order, later lines on top, widest first, so that lines
// that coincide (ready = available = serving most of the time) all stay visible; desired is a
// dashed target drawn last.
var convergenceMetrics = []struct {
	name  string
	label string
	style lineStyle
}{
	{"ready", "ready", lineStyle{color: plotstyle.Blue, widthPx: 6}},
	{"available", "available", lineStyle{color: plotstyle.Green, widthPx: 3.5}},
	{"updated", "updated", lineStyle{color: plotstyle.Purple, widthPx: 2, dashPx: []float64{2, 3}}},
	{"serving", "serving (ready, node up)", lineStyle{color: plotstyle.Orange, widthPx: 2.5}},
	{"desired", "desired", lineStyle{color: plotstyle.Grey, widthPx: 2, dashPx: []float64{8, 5}}},
}

// workloadKinds maps the series prefix of each workload kind to the kind's name, in the
// order the convergence figures are drawn.
var workloadKinds = []struct{ prefix, kind string }{
	{"deployment.", "Deployment"},
	{"statefulset.", "StatefulSet"},
	{"daemonset.", "DaemonSet"},
	{"replicaset.", "ReplicaSet"},
}

// convergenceWorkloads lists the workloads with replica series: Deployments, StatefulSets,
// DaemonSets, then ReplicaSets. A ReplicaSet named <deployment>-<hash> is dropped when the
// Deployment has no "serving" series of its own; otherwise it would only repeat the
// Deployment's lines.
func convergenceWorkloads(idx seriesIndex) []workloadSeries {
	var out []workloadSeries
	var deployments []workloadSeries
	for _, wk := range workloadKinds {
		for _, key := range idx.objects(wk.prefix) {
			if wk.kind == "ReplicaSet" && ownedByDeployment(deployments, key) {
				continue
			}
			w := workloadSeries{kind: wk.kind, key: key, metrics: map[string]*Series{}}
			for _, m := range convergenceMetrics {
				if s, ok := idx.get(wk.prefix + key + "." + m.name); ok {
					w.metrics[m.name] = s
				}
			}
			if len(w.metrics) == 0 {
				continue
			}
			out = append(out, w)
			if wk.kind == "Deployment" {
				deployments = append(deployments, w)
			}
		}
	}
	return out
}

func ownedByDeployment(deployments []workloadSeries, rsKey string) bool {
	for _, d := range deployments {
		if strings.HasPrefix(rsKey, d.key+"-") && d.metrics["serving"] != nil {
			return true
		}
	}
	return false
}

// ConvergenceCoverage says how many workloads have replica series and how many of them get a
// convergence figure of their own (at most MaxConvergencePlots).
func ConvergenceCoverage(res *Result) (drawn, total int) {
	if res == nil {
		return 0, 0
	}
	total = len(convergenceWorkloads(indexSeries(res.Series)))
	return min(total, MaxConvergencePlots), total
}

// MaxConvergencePlots bounds the per-workload convergence figures; past it, the workloads
// with the largest desired replica count are drawn (ties by kind order, then name).
const MaxConvergencePlots = 8

// convergencePlots returns one figure per workload, at most MaxConvergencePlots of them.
func convergencePlots(idx seriesIndex) []Plot {
	ws := convergenceWorkloads(idx)
	if len(ws) > MaxConvergencePlots {
		size := func(w workloadSeries) float64 {
			for _, m := range []string{"desired", "ready"} {
				if s := w.metrics[m]; s != nil {
					return peak(cleanPoints(s.Points))
				}
			}
			return 0
		}
		sort.SliceStable(ws, func(i, j int) bool { return size(ws[i]) > size(ws[j]) })
		ws = ws[:MaxConvergencePlots]
	}
	var out []Plot
	for _, w := range ws {
		p := panel{yLabel: "replicas", integer: true}
		for _, m := range convergenceMetrics {
			if s := w.metrics[m.name]; s != nil {
				p.lines = append(p.lines, line{label: m.label, points: cleanPoints(s.Points), style: m.style})
			}
		}
		out = append(out, Plot{
			Name:   "convergence-" + workloadStem(w.kind, w.key),
			Title:  "Convergence: " + w.kind + " " + w.key,
			panels: []panel{p},
		})
	}
	return out
}

// maxStem is the longest file stem workloadStem writes before its hash suffix.
const maxStem = 80

// workloadStem names a workload's plot file: its kind, namespace and name joined by "-"
// (replicaset-default-web), which is unique when the namespace has no "-" (a name may have
// them) and nothing had to be replaced or cut. Otherwise it is the first maxStem bytes of that
// followed by "_" and a hash of kind and key: "_" never appears in Kubernetes names, so a
// hashed stem cannot equal a plain one, and the hash keeps a/b-web and a-b/web apart.
func workloadStem(kind, key string) string {
	plain := strings.ToLower(kind) + "-" + strings.Replace(key, "/", "-", 1)
	ns, _, _ := strings.Cut(key, "/")
	stem := fileStem(plain)
	if stem == plain && !strings.Contains(ns, "-") && len(stem) <= maxStem {
		return stem
	}
	sum := sha256.Sum256([]byte(kind + "\x00" + key))
	return strings.TrimRight(stem[:min(len(stem), maxStem)], "-") + "_" + hex.EncodeToString(sum[:5])
}

// fileStem maps s to a file name made of [a-z0-9.-] only ("_" is left for workloadStem's
// hash suffix), replacing every other character with "-".
func fileStem(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// familyPanel draws the series <prefix><metric> for the known metrics in order with their
// styles, then any other series under prefix in name order with plotstyle.Palette colours.
func familyPanel(idx seriesIndex, prefix, yLabel string, integer bool, known []string, styles map[string]lineStyle) panel {
	p := panel{yLabel: yLabel, integer: integer}
	used := map[string]bool{}
	next := 0
	for _, m := range known {
		used[prefix+m] = true
		if s, ok := idx.get(prefix + m); ok {
			p.lines = append(p.lines, line{label: strings.ReplaceAll(m, "_", " "), points: cleanPoints(s.Points), style: styles[m]})
			if p.yLabel == "" {
				p.yLabel = s.Unit
			}
		}
	}
	var rest []string
	for _, n := range idx.withPrefix(prefix) {
		if !used[n] {
			if _, ok := idx.get(n); ok {
				rest = append(rest, n)
			}
		}
	}
	rest, _ = topByPeak(idx, rest, maxLinesPerPanel-len(p.lines))
	for _, n := range rest {
		s := idx.byName[n]
		for next < len(plotstyle.Palette) && usesColor(p.lines, plotstyle.Palette[next]) {
			next++
		}
		c := plotstyle.Palette[next%len(plotstyle.Palette)]
		next++
		p.lines = append(p.lines, line{label: strings.ReplaceAll(strings.TrimPrefix(n, prefix), "_", " "), points: cleanPoints(s.Points), style: solid(c)})
	}
	return p
}

func usesColor(lines []line, c color.RGBA) bool {
	for _, l := range lines {
		if l.style.color == c {
			return true
		}
	}
	return false
}

func podsPlot(idx seriesIndex) (Plot, bool) {
	p := familyPanel(idx, "pods.", "pods", true,
		[]string{"pending", "running", "terminating", "succeeded", "failed", "unknown"},
		map[string]lineStyle{
			"pending": solid(plotstyle.Orange), "running": solid(plotstyle.Green), "terminating": solid(plotstyle.Red),
			"succeeded": solid(plotstyle.Blue), "failed": solid(plotstyle.Brown), "unknown": solid(plotstyle.Grey),
		})
	return singlePanel("pods", "Pods by phase", p)
}

func nodesPlot(idx seriesIndex) (Plot, bool) {
	p := familyPanel(idx, "nodes.", "nodes", true,
		[]string{"ready", "notready"},
		map[string]lineStyle{"ready": solid(plotstyle.Green), "notready": solid(plotstyle.Red)})
	for i := range p.lines {
		if p.lines[i].label == "notready" {
			p.lines[i].label = "not ready"
		}
	}
	return singlePanel("nodes", "Node readiness", p)
}

// apiserverPlot stacks up to three panels, one per unit: request and rejection rates,
// requests in flight, and latency.
func apiserverPlot(idx seriesIndex) (Plot, bool) {
	const prefix = "apiserver."
	type group struct {
		yLabel  string
		integer bool
		match   func(metric string) bool
		styles  map[string]lineStyle
	}
	groups := []group{
		{"requests/s", false, func(m string) bool { return strings.HasSuffix(m, "_per_second") },
			map[string]lineStyle{"requests_per_second": solid(plotstyle.Blue), "throttled_429_per_second": solid(plotstyle.Red)}},
		{"in flight", true, func(m string) bool { return strings.HasPrefix(m, "inflight") },
			map[string]lineStyle{"inflight_readonly": solid(plotstyle.Teal), "inflight_mutating": solid(plotstyle.Orange)}},
		{"seconds", false, func(m string) bool { return strings.HasPrefix(m, "latency") },
			map[string]lineStyle{"latency_p99_seconds": solid(plotstyle.Purple)}},
	}
	labels := map[string]string{
		"requests_per_second":      "requests/s",
		"throttled_429_per_second": "429 Too Many Requests/s",
		"inflight_readonly":        "in flight, read-only",
		"inflight_mutating":        "in flight, mutating",
		"latency_p99_seconds":      "latency p99",
	}
	var panels []panel
	for _, g := range groups {
		p := panel{yLabel: g.yLabel, integer: g.integer}
		var names []string
		for _, n := range idx.withPrefix(prefix) {
			if _, ok := idx.get(n); ok && g.match(strings.TrimPrefix(n, prefix)) {
				names = append(names, n)
			}
		}
		names, _ = topByPeak(idx, names, maxLinesPerPanel)
		// Known metrics first, in the order above, so the common ones keep their colours.
		sort.SliceStable(names, func(i, j int) bool {
			_, ki := g.styles[strings.TrimPrefix(names[i], prefix)]
			_, kj := g.styles[strings.TrimPrefix(names[j], prefix)]
			return ki && !kj
		})
		for i, n := range names {
			m := strings.TrimPrefix(n, prefix)
			st, ok := g.styles[m]
			if !ok {
				st = solid(plotstyle.Palette[(i+5)%len(plotstyle.Palette)])
			}
			label, ok := labels[m]
			if !ok {
				label = strings.ReplaceAll(m, "_", " ")
			}
			p.lines = append(p.lines, line{label: label, points: cleanPoints(idx.byName[n].Points), style: st})
		}
		if len(p.lines) > 0 {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return Plot{}, false
	}
	return Plot{Name: "apiserver", Title: "API server load", panels: panels}, true
}

// apfLevelColours keeps the bootstrap priority levels' colours fixed from run to run.
var apfLevelColours = map[string]color.RGBA{
	"exempt": plotstyle.Grey, "catch-all": plotstyle.Brown, "system": plotstyle.Teal, "node-high": plotstyle.Green, "leader-election": plotstyle.Purple,
	"workload-high": plotstyle.Blue, "workload-low": plotstyle.Gold, "global-default": plotstyle.Red,
}

// apfPlot is API Priority and Fairness per priority level (the apf.<level>.<metric> series):
// seats executing against the level's current limit (dashed), requests in queue, 429s per
// second and the mean queue wait, one panel each.
func apfPlot(idx seriesIndex) (Plot, bool) {
	const prefix = "apf."
	names := idx.withPrefix(prefix)
	var levels []string
	seen := map[string]bool{}
	for _, n := range names {
		rest := strings.TrimPrefix(n, prefix)
		i := strings.LastIndexByte(rest, '.')
		if i < 0 || seen[rest[:i]] {
			continue
		}
		seen[rest[:i]] = true
		levels = append(levels, rest[:i])
	}
	colour := func(i int, level string) color.RGBA {
		if c, ok := apfLevelColours[level]; ok {
			return c
		}
		return plotstyle.Palette[i%len(plotstyle.Palette)]
	}
	type group struct {
		metric, yLabel string
		integer        bool
	}
	var panels []panel
	for _, g := range []group{{"executing_seats", "seats executing (dashed: limit)", true}, {"inqueue", "requests in queue", true},
		{"rejected_per_second", "429/s", false}, {"wait_seconds", "mean queue wait (s)", false}} {
		p := panel{yLabel: g.yLabel, integer: g.integer}
		var metricNames []string
		for _, l := range levels {
			if _, ok := idx.get(prefix + l + "." + g.metric); ok {
				metricNames = append(metricNames, prefix+l+"."+g.metric)
			}
		}
		kept, _ := topByPeak(idx, metricNames, maxLinesPerPanel)
		for i, n := range kept {
			l := strings.TrimSuffix(strings.TrimPrefix(n, prefix), "."+g.metric)
			p.lines = append(p.lines, line{label: l, points: cleanPoints(idx.byName[n].Points), style: solid(colour(i, l))})
			if g.metric == "executing_seats" {
				if lim, ok := idx.get(prefix + l + ".current_limit_seats"); ok {
					p.lines = append(p.lines, line{label: l + " limit", points: cleanPoints(lim.Points),
						style: lineStyle{color: colour(i, l), widthPx: 1, dashPx: []float64{6, 4}}})
				}
			}
		}
		if len(p.lines) > 0 {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return Plot{}, false
	}
	return Plot{Name: "apf", Title: "API Priority and Fairness per priority level", panels: panels}, true
}

// workqueuePlot is the depth of each controller's workqueue.
func workqueuePlot(idx seriesIndex) (Plot, bool) {
	return perObjectPlot(idx, "workqueue", "Workqueue depth per controller", "items queued", "workqueue.", ".depth", "deepest")
}

// endpointsPlot is the ready endpoints of each Service.
func endpointsPlot(idx seriesIndex) (Plot, bool) {
	return perObjectPlot(idx, "endpoints", "Service ready endpoints", "ready endpoints", "service.", ".ready_endpoints", "largest")
}

// perObjectPlot is a one-panel plot of an integer series per object, those named
// prefix+OBJECT+suffix, a line each, labelled OBJECT: the maxLinesPerPanel of them with the
// highest peaks, which the title then says in the word largest ("the 12 deepest of 30").
func perObjectPlot(idx seriesIndex, name, title, yLabel, prefix, suffix, largest string) (Plot, bool) {
	var names []string
	for _, n := range idx.withPrefix(prefix) {
		if strings.HasSuffix(n, suffix) {
			if _, ok := idx.get(n); ok {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return Plot{}, false
	}
	kept, dropped := topByPeak(idx, names, maxLinesPerPanel)
	p := panel{yLabel: yLabel, integer: true}
	for i, n := range kept {
		object := strings.TrimSuffix(strings.TrimPrefix(n, prefix), suffix)
		p.lines = append(p.lines, line{label: object, points: cleanPoints(idx.byName[n].Points), style: solid(plotstyle.Palette[i%len(plotstyle.Palette)])})
	}
	if dropped > 0 {
		title += fmt.Sprintf(" (the %d %s of %d)", len(kept), largest, len(names))
	}
	return Plot{Name: name, Title: title, panels: []panel{p}}, true
}

// hpaPlot stacks the offered and served load above the CPU utilization and the HPAs'
// current and desired replicas, so a reader sees the load move and the replicas follow. It
// is drawn when any hpa.* or load.* series exists.
func hpaPlot(idx seriesIndex) (Plot, bool) {
	loads := idx.objects("load.")
	hpas := idx.objects("hpa.")
	if len(loads) > maxLinesPerPanel/2 {
		loads = loads[:maxLinesPerPanel/2]
	}
	if len(hpas) > maxLinesPerPanel/2 {
		hpas = hpas[:maxLinesPerPanel/2]
	}
	type metric struct {
		prefix string
		keys   []string
		name   string
		label  string
		dashPx []float64
	}
	groups := []struct {
		yLabel  string
		integer bool
		metrics []metric
	}{
		{"load (requests/s)", false, []metric{
			{"load.", loads, "offered", "offered", nil},
			{"load.", loads, "served", "served", []float64{6, 3}},
		}},
		{"CPU utilization (%)", false, []metric{
			{"load.", loads, "cpu_utilization_percent", "CPU utilization", nil},
		}},
		{"replicas", true, []metric{
			{"hpa.", hpas, "replicas", "HPA replicas", nil},
			{"hpa.", hpas, "desired", "HPA desired", []float64{6, 3}},
			{"load.", loads, "ready_pods", "ready pods", []float64{2, 3}},
		}},
	}
	var panels []panel
	colorOf := 0
	for _, g := range groups {
		p := panel{yLabel: g.yLabel, integer: g.integer}
		for _, m := range g.metrics {
			for _, k := range m.keys {
				s, ok := idx.get(m.prefix + k + "." + m.name)
				if !ok {
					continue
				}
				label := m.label
				if len(m.keys) > 1 {
					label = k + " " + m.label
				}
				st := solid(plotstyle.Palette[colorOf%len(plotstyle.Palette)])
				colorOf++
				st.dashPx = m.dashPx
				p.lines = append(p.lines, line{label: label, points: cleanPoints(s.Points), style: st})
			}
		}
		if len(p.lines) > 0 {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return Plot{}, false
	}
	return Plot{Name: "hpa", Title: "Autoscaling: load, utilization and replicas", panels: panels}, true
}

// PNG renders the figure as a PNG image (96 dpi, 900 pixels wide). It returns an error if
// rendering fails.
func (p Plot) PNG() ([]byte, error) {
	var buf bytes.Buffer
	if err := p.render(&buf, "png"); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// SVG renders the figure as a standalone SVG document. Text uses the Liberation Sans family
// without embedding the font, so the file stays small; viewers substitute a metric-compatible
// sans-serif (Arial, Helvetica). It returns an error if rendering fails.
func (p Plot) SVG() ([]byte, error) {
	var buf bytes.Buffer
	if err := p.render(&buf, "svg"); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
