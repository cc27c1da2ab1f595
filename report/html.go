package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/reconsim/reconsim/internal/plotstyle"
)

//go:embed templates/report.html.tmpl
var templateFS embed.FS

// maxHTMLEvents bounds the rows of the events table; the rest are counted, not listed, so a
// long run still gives a report a browser opens quickly.
const maxHTMLEvents = 5000

var reportTemplate = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"secs": formatSeconds,
	"plainsecs": func(v float64) string {
		return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', 3, 64)
	},
	"pct": func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
}).ParseFS(templateFS, "templates/report.html.tmpl"))

// htmlData is what the template sees; every string in it is escaped by html/template except
// the SVG figures, which vgsvg produces with their text XML-escaped.
type htmlData struct {
	R               *Result
	Stop            string
	EventsPerSecond string
	Reproduce       string
	Plots           []htmlPlot
	PlotNote        string
	Actions         []htmlAction
	Leaders         []htmlTerm
	Why             []htmlInterval
	WhyNote         string
	Events          []EventRecord
	EventsOmitted   int
	EventTypes      []string
	EventReasons    []string
}

type htmlPlot struct {
	Name, Title string
	SVG         template.HTML
}

type htmlAction struct {
	Name, Action, Actor, At, ConvergedAt, Took string
	FirstConvergedAt                           string
	Divergences                                int
	Converged                                  bool
}

// htmlTerm is one row of the leadership lane: who led a replicated component, from when to
// when.
type htmlTerm struct {
	Component, Identity, From, To string
	Replica                       int
}

type htmlInterval struct {
	Label   string
	Seconds float64
	Phases  []htmlPhase
}

type htmlPhase struct {
	Phase
	Percent float64
	Color   string
}

// phaseColors colour the why bars, by position in the interval: the figures' palette as CSS.
var phaseColors = cssColors(plotstyle.Red, plotstyle.Orange, plotstyle.Blue, plotstyle.Green, plotstyle.Teal, plotstyle.Purple, plotstyle.Brown, plotstyle.Grey)

// cssColors writes each colour as CSS's #rrggbb.
func cssColors(cs ...color.RGBA) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	return out
}

// WriteHTML writes dir/report.html: one self-contained page (inline CSS, SVG and a little
// JavaScript; nothing is fetched) with the summary (pass/fail, scenario, seed, stop reason,
// times, convergence, verdicts, the command that reproduces the run), the plots, the
// timeline of actions, the expectations, the "why did it take this long" breakdown (when
// dir/trace.txt exists; from events alone otherwise) and a filterable table of the events.
// Every user-provided string is escaped. It returns an error if a plot cannot be rendered
// or the file cannot be written; the write is atomic.
func WriteHTML(dir string, res *Result) error {
	if res == nil {
		return fmt.Errorf("report: WriteHTML: nil result")
	}
	trace, err := digestTrace(filepath.Join(dir, TraceFile))
	if err != nil {
		return err
	}
	return writeHTML(dir, res, trace.why, trace.present, nil)
}

// writeHTML writes dir/report.html as encodeHTML encodes it, straight into the file.
func writeHTML(dir string, res *Result, trace []traceLine, haveTrace bool, svgs [][]byte) error {
	return writeAtomic(dir, HTMLFile, func(w io.Writer) error {
		return encodeHTML(w, res, trace, haveTrace, svgs)
	})
}

// EncodeHTML writes the report page WriteHTML writes, with the why breakdown computed from
// traceLines (nil: from events only). The same inputs give the same bytes.
func EncodeHTML(w io.Writer, res *Result, traceLines []string) error {
	return encodeHTML(w, res, parseTrace(traceLines), traceLines != nil, nil)
}

// encodeHTML is EncodeHTML from parsed trace lines in time order (of which why needs only
// those whyUses accepts; haveTrace: there was a trace, even if none of its lines parse), with
// the SVG of each of Plots(res), in order, already drawn (nil: draw them here).
func encodeHTML(w io.Writer, res *Result, trace []traceLine, haveTrace bool, svgs [][]byte) error {
	if res == nil {
		return fmt.Errorf("report: EncodeHTML: nil result")
	}
	d := htmlData{R: res, Reproduce: ReproduceCommand(res)}
	d.Stop = res.StopReason
	if res.StopDetail != "" {
		d.Stop += ": " + res.StopDetail
	}
	d.EventsPerSecond = "n/a"
	if res.WallSeconds > 0 {
		d.EventsPerSecond = strconv.FormatFloat(math.Round(float64(res.EventsProcessed)/res.WallSeconds), 'f', 0, 64)
	}
	figs := Plots(res)
	if svgs != nil && len(svgs) != len(figs) {
		return fmt.Errorf("report: EncodeHTML: %d SVGs for %d plots", len(svgs), len(figs))
	}
	for i, p := range figs {
		var svg []byte
		if svgs != nil {
			svg = svgs[i]
		} else {
			var err error
			if svg, err = p.SVG(); err != nil {
				return err
			}
		}
		if i := bytes.Index(svg, []byte("<svg")); i > 0 {
			svg = svg[i:]
		}
		// Safe to mark as HTML: vgsvg XML-escapes every text it draws; the rest is markup it generates.
		d.Plots = append(d.Plots, htmlPlot{Name: p.Name, Title: p.Title, SVG: template.HTML(svg)})
	}
	if drawn, total := ConvergenceCoverage(res); total > drawn {
		d.PlotNote = fmt.Sprintf("%d workloads have replica series; the convergence figures show the %d largest. The series of every workload are in result.json.", total, drawn)
	}
	for _, c := range res.Convergence {
		if c.Action == "start" {
			continue
		}
		a := htmlAction{Name: c.Name, Action: c.Action, Actor: c.Actor, At: formatSeconds(c.At), ConvergedAt: "never", Took: "never converged",
			FirstConvergedAt: "never", Divergences: c.Divergences}
		if c.FirstConvergedAt != nil {
			a.FirstConvergedAt = formatSeconds(*c.FirstConvergedAt)
			a.ConvergedAt, a.Took = "not at the end", "not converged at the end"
		}
		if c.ConvergedAt != nil {
			a.Converged = true
			a.ConvergedAt = formatSeconds(*c.ConvergedAt)
			a.Took = formatSeconds(*c.ConvergedAt - c.At)
		}
		d.Actions = append(d.Actions, a)
	}
	for _, t := range res.Leadership {
		to := "end of run"
		if t.To != nil {
			to = formatSeconds(*t.To)
		}
		d.Leaders = append(d.Leaders, htmlTerm{Component: t.Component, Identity: t.Identity, Replica: t.Replica, From: formatSeconds(t.From), To: to})
	}
	d.Why = groupPhases(why(res, trace))
	if !haveTrace {
		d.WhyNote = "No trace.txt beside result.json: the breakdown uses the Kubernetes events only. Every 'sim run' writes DIR/trace.txt; run the scenario again with --out DIR for the trace milestones."
	}
	d.Events = res.Events
	if len(d.Events) > maxHTMLEvents {
		d.EventsOmitted = len(d.Events) - maxHTMLEvents
		d.Events = d.Events[:maxHTMLEvents]
	}
	// The selectors offer the values of the listed rows only, so no choice shows an empty table.
	types, reasons := map[string]bool{}, map[string]bool{}
	for _, e := range d.Events {
		if !types[e.Type] {
			types[e.Type] = true
			d.EventTypes = append(d.EventTypes, e.Type)
		}
		if !reasons[e.Reason] {
			reasons[e.Reason] = true
			d.EventReasons = append(d.EventReasons, e.Reason)
		}
	}
	sort.Strings(d.EventTypes)
	sort.Strings(d.EventReasons)
	if err := reportTemplate.Execute(w, d); err != nil {
		return fmt.Errorf("report: rendering %s: %w", HTMLFile, err)
	}
	return nil
}

func groupPhases(phases []Phase) []htmlInterval {
	var out []htmlInterval
	for _, p := range phases {
		if len(out) == 0 || out[len(out)-1].Label != p.Interval {
			out = append(out, htmlInterval{Label: p.Interval})
		}
		iv := &out[len(out)-1]
		iv.Seconds += p.Seconds
		iv.Phases = append(iv.Phases, htmlPhase{Phase: p})
	}
	for i := range out {
		for j := range out[i].Phases {
			ph := &out[i].Phases[j]
			if out[i].Seconds > 0 {
				ph.Percent = 100 * ph.Seconds / out[i].Seconds
			}
			ph.Color = phaseColors[j%len(phaseColors)]
			if ph.Name == "other" {
				ph.Color = "#bab0ac"
			}
		}
	}
	return out
}

// ReproduceCommand is the command line that reruns res: sim run SCENARIO --seed N, then one
// --set KEY=VALUE per override in order, each word quoted for a POSIX shell when needed.
func ReproduceCommand(res *Result) string {
	parts := []string{"sim", "run", ShellQuote(res.Scenario), "--seed", strconv.FormatUint(res.Seed, 10)}
	for _, o := range res.Overrides {
		parts = append(parts, "--set", ShellQuote(o.Key+"="+o.Value))
	}
	return strings.Join(parts, " ")
}

// ShellQuote quotes s for a POSIX shell when it holds anything but safe characters (the
// reproduce commands in reports, `sim sweep` and `sim explore` output).
func ShellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// formatSeconds shows virtual seconds as "356.042 s", with minutes added past two minutes
// ("356.042 s (5m56s)").
func formatSeconds(v float64) string {
	if !finite(v) {
		return "n/a"
	}
	s := strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64) + " s"
	if v >= 120 {
		m := int(v) / 60
		s += fmt.Sprintf(" (%dm%02ds)", m, int(v)%60)
	}
	return s
}
