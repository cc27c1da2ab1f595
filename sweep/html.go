package sweep

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
)

// Bounds on what sweep.html lists one by one; the rest are in sweep.json and sweep.csv.
const (
	// maxHTMLRuns bounds the failed runs, and the runs whose scenario expectations failed.
	maxHTMLRuns = 200
	// maxHTMLPoints bounds the grid points in each table.
	maxHTMLPoints = 1000
)

// EncodeHTML returns sweep.html: a self-contained page (inline SVG figures, inline CSS, no
// scripts or external resources) with the sweep's verdict, its expectations, each metric's
// figures and per-point statistics, and the failed runs with the commands that reproduce
// them. It renders the figures itself; WriteResults passes the ones it rendered.
func EncodeHTML(res *Result) ([]byte, error) {
	figs := Figures(res)
	svgs := make([][]byte, len(figs))
	for i, f := range figs {
		svg, err := f.Render("svg")
		if err != nil {
			return nil, err
		}
		svgs[i] = svg
	}
	return encodeHTML(res, figs, svgs)
}

type htmlFigure struct {
	Name, Caption string
	SVG           template.HTML
}

type htmlMetric struct {
	Name, Description string
	Figures           []htmlFigure
	Rows              []htmlAggregateRow
}

type htmlAggregateRow struct {
	Point, Parameters                      string
	N, Missing                             int
	Mean, P50, CI, P90, P95, P99, Min, Max string
}

type htmlPoint struct {
	ID, Parameters string
	Runs, Failed   int
	PassRate       string
	Passed         bool
	Expectations   []PointExpectation
}

type htmlRun struct {
	ID, Parameters, Problem, Reproduce string
	Seed                               uint64
}

type htmlView struct {
	R            *Result
	Parameters   []string
	Metrics      []htmlMetric
	Points       []htmlPoint
	PointsMore   int
	FailedRuns   []htmlRun
	FailedMore   int
	UnpassedRuns []htmlRun
	UnpassedMore int
	Expectations []ExpectationResult
}

func encodeHTML(res *Result, figs []Figure, svgs [][]byte) ([]byte, error) {
	spec := res.Spec
	v := htmlView{R: res, Expectations: res.Expectations}
	for _, p := range spec.Parameters {
		v.Parameters = append(v.Parameters, fmt.Sprintf("%s: %s", p.Key, strings.Join(p.Values, ", ")))
	}
	for mi, m := range spec.Metrics {
		hm := htmlMetric{Name: m.Name, Description: m.Describe()}
		for i, f := range figs {
			if figureMetric(f.Name, spec) == m.Name {
				hm.Figures = append(hm.Figures, htmlFigure{Name: f.Name, Caption: f.Caption, SVG: inlineSVG(svgs[i])})
			}
		}
		unit := m.Unit()
		for _, pr := range res.Points[:min(len(res.Points), maxHTMLPoints)] {
			a := pr.Metrics[mi].Aggregate
			hm.Rows = append(hm.Rows, htmlAggregateRow{
				Point: pr.ID, Parameters: paramsLabel(pr.Parameters), N: a.N, Missing: a.Missing,
				Mean: fmtPtr(unit, a.Mean), P50: fmtPtr(unit, a.P50), P90: fmtPtr(unit, a.P90), P95: fmtPtr(unit, a.P95),
				P99: fmtPtr(unit, a.P99), Min: fmtPtr(unit, a.Min), Max: fmtPtr(unit, a.Max),
				CI: "[" + fmtPtr(unit, a.MedianCI95.Low) + ", " + fmtPtr(unit, a.MedianCI95.High) + "]",
			})
		}
		v.Metrics = append(v.Metrics, hm)
	}
	v.PointsMore = max(len(res.Points)-maxHTMLPoints, 0)
	for _, pr := range res.Points[:min(len(res.Points), maxHTMLPoints)] {
		v.Points = append(v.Points, htmlPoint{ID: pr.ID, Parameters: paramsLabel(pr.Parameters), Runs: pr.Runs,
			Failed: pr.FailedRuns, PassRate: formatNumber(roundSignificant(pr.PassRate, 4)), Passed: pr.Passed, Expectations: pr.Expectations})
	}
	for _, r := range res.Runs {
		hr := htmlRun{ID: r.ID, Parameters: paramsLabel(r.Parameters), Seed: r.Seed, Reproduce: r.Reproduce}
		switch {
		case r.Failed():
			if len(v.FailedRuns) == maxHTMLRuns {
				v.FailedMore++
				continue
			}
			hr.Problem = r.Error
			v.FailedRuns = append(v.FailedRuns, hr)
		case !r.Passed:
			if len(v.UnpassedRuns) == maxHTMLRuns {
				v.UnpassedMore++
				continue
			}
			hr.Problem = "expectations failed: " + strings.Join(r.FailedExpectations, ", ")
			v.UnpassedRuns = append(v.UnpassedRuns, hr)
		}
	}
	var buf bytes.Buffer
	if err := htmlTemplate.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// figureMetric returns the metric a figure belongs to: the one whose file stem, followed by
// one of the figure suffixes, is the figure's name (metric stems may share prefixes).
func figureMetric(name string, spec *Spec) string {
	for _, m := range spec.Metrics {
		stem := fileStem(m.Name)
		if name == stem+"-heatmap" || name == stem+"-cdf" {
			return m.Name
		}
		for _, p := range spec.Parameters {
			if name == stem+"-vs-"+fileStem(p.Key) {
				return m.Name
			}
		}
	}
	return ""
}

func fmtPtr(unit string, v *float64) string {
	if v == nil {
		return "–"
	}
	return formatIn(unit, *v)
}

// inlineSVG drops the XML declaration and comments before the <svg> element, so the image
// can sit inside HTML. The SVG is produced by gonum/plot from numbers and our own labels,
// which its writer escapes, so it is safe to include as HTML.
func inlineSVG(svg []byte) template.HTML {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s)
}

var htmlTemplate = template.Must(template.New("sweep").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Sweep {{.R.Spec.Name}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { margin-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.8em 0 1.6em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #2e7d32; font-weight: bold; }
.fail { color: #c62828; font-weight: bold; }
.finding { color: #e65100; font-weight: bold; }
code { background: #f5f5f5; padding: 0.1em 0.3em; font-size: 0.9em; word-break: break-all; }
figure { margin: 1em 0 2em; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
.desc { color: #555; }
</style>
</head>
<body>
<h1>Sweep {{.R.Spec.Name}} {{if .R.Passed}}<span class="pass">passed</span>{{else}}<span class="fail">failed</span>{{end}}</h1>
{{with .R.Spec.Description}}<p class="desc">{{.}}</p>{{end}}
<table>
<tr><th>scenario</th><td><code>{{.R.Spec.Scenario}}</code> (sha256 {{printf "%.12s" .R.Spec.ScenarioSHA256}})</td></tr>
<tr><th>parameters</th><td>{{range .Parameters}}{{.}}<br>{{else}}none{{end}}</td></tr>
<tr><th>seeds</th><td>{{len .R.Spec.Seeds}} per point</td></tr>
{{with .R.Spec.Sample}}<tr><th>sample</th><td>{{.Count}} grid points drawn with seed {{.Seed}}</td></tr>{{end}}
<tr><th>runs</th><td>{{.R.TotalRuns}} in {{len .R.Points}} points: {{.R.PassedRuns}} passed every scenario expectation, {{.R.FailedRuns}} failed</td></tr>
<tr><th>simulator</th><td>{{.R.SimulatorVersion}}, results {{.R.SchemaVersion}}</td></tr>
</table>

<h2>Expectations</h2>
{{if .Expectations}}<table>
<tr><th>expectation</th><th>at</th><th>result</th><th>detail</th><th>failing points</th></tr>
{{range .Expectations}}<tr><td>{{.Name}}</td><td>{{.At}}</td><td>{{if .Passed}}<span class="pass">held</span>{{else if .Finding}}<span class="finding">finding</span>{{else}}<span class="fail">failed</span>{{end}}</td><td>{{.Message}}</td><td>{{range .FailingPoints}}{{.}} {{end}}</td></tr>
{{end}}</table>{{else}}<p>The sweep sets no expectations; it fails only if a run fails.</p>{{end}}

{{range .Metrics}}<h2>Metric {{.Name}}</h2>
<p class="desc">{{.Description}}. Percentiles interpolate linearly between closest ranks (numpy's default); a run without a value counts as +∞ in them; the interval is a 95% bootstrap interval for the median.</p>
{{range .Figures}}<figure id="{{.Name}}">{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{end}}<table>
<tr><th>point</th><th>parameters</th><th>n</th><th>no value</th><th>mean</th><th>p50</th><th>p50 95% CI</th><th>p90</th><th>p95</th><th>p99</th><th>min</th><th>max</th></tr>
{{range .Rows}}<tr><td>{{.Point}}</td><td>{{.Parameters}}</td><td class="num">{{.N}}</td><td class="num">{{.Missing}}</td><td class="num">{{.Mean}}</td><td class="num">{{.P50}}</td><td class="num">{{.CI}}</td><td class="num">{{.P90}}</td><td class="num">{{.P95}}</td><td class="num">{{.P99}}</td><td class="num">{{.Min}}</td><td class="num">{{.Max}}</td></tr>
{{end}}</table>{{if $.PointsMore}}<p>… and {{$.PointsMore}} more points (see sweep.json).</p>{{end}}
{{end}}
<h2>Grid points</h2>
<table>
<tr><th>point</th><th>parameters</th><th>runs</th><th>failed</th><th>pass rate</th><th>result</th><th>expectations</th></tr>
{{range .Points}}<tr><td>{{.ID}}</td><td>{{.Parameters}}</td><td class="num">{{.Runs}}</td><td class="num">{{.Failed}}</td><td class="num">{{.PassRate}}</td><td>{{if .Passed}}<span class="pass">ok</span>{{else}}<span class="fail">failed</span>{{end}}</td><td>{{range .Expectations}}{{if .Passed}}✓{{else}}✗{{end}} {{.Message}}<br>{{end}}</td></tr>
{{end}}</table>{{if .PointsMore}}<p>… and {{.PointsMore}} more points (see sweep.json).</p>{{end}}

<h2>Failed runs</h2>
{{if .FailedRuns}}<table>
<tr><th>run</th><th>seed</th><th>parameters</th><th>error</th><th>reproduce</th></tr>
{{range .FailedRuns}}<tr><td>{{.ID}}</td><td class="num">{{.Seed}}</td><td>{{.Parameters}}</td><td>{{.Problem}}</td><td><code>{{.Reproduce}}</code></td></tr>
{{end}}</table>{{if .FailedMore}}<p>… and {{.FailedMore}} more (see sweep.csv).</p>{{end}}{{else}}<p>No run failed.</p>{{end}}

<h2>Runs whose scenario expectations failed</h2>
{{if .UnpassedRuns}}<table>
<tr><th>run</th><th>seed</th><th>parameters</th><th>problem</th><th>reproduce</th></tr>
{{range .UnpassedRuns}}<tr><td>{{.ID}}</td><td class="num">{{.Seed}}</td><td>{{.Parameters}}</td><td>{{.Problem}}</td><td><code>{{.Reproduce}}</code></td></tr>
{{end}}</table>{{if .UnpassedMore}}<p>… and {{.UnpassedMore}} more (see sweep.csv).</p>{{end}}{{else}}<p>In every completed run, every scenario expectation held.</p>{{end}}
</body>
</html>
`))
