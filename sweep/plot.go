package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/reconsim/reconsim/internal/plotstyle"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one plot of a sweep report. The same Result always gives the same figures and
// the same bytes.
type Figure struct {
	// Name is the file stem under plots/: "<metric>-vs-<parameter>", "<metric>-heatmap" or
	// "<metric>-cdf".
	Name string
	// Title is drawn above the plot; Caption explains it in sweep.html.
	Title   string
	Caption string
	build   func() *plot.Plot
}

// Limits that keep a report's rendering bounded.
const (
	// maxPlottedMetrics and maxPlottedParameters bound the band figures (one per pair).
	maxPlottedMetrics    = 10
	maxPlottedParameters = 4
	// maxCDFPoints is how many grid points a CDF figure draws.
	maxCDFPoints = 6
	// maxHeatLabels is the most cells a heat map writes its values in.
	maxHeatLabels = 144
	// maxHeatCells bounds a heat map's cells (and thus its drawing).
	maxHeatCells = 10_000
)

// Figure geometry, in pixels at plotstyle.DPI.
const (
	figureWidthPx  = 900
	figureHeightPx = 520
)

var (
	// The bands are the palette's blue, translucent.
	bandOuter = color.NRGBA{R: plotstyle.Blue.R, G: plotstyle.Blue.G, B: plotstyle.Blue.B, A: 0x40}
	bandInner = color.NRGBA{R: plotstyle.Blue.R, G: plotstyle.Blue.G, B: plotstyle.Blue.B, A: 0x80}
	lineColor = color.RGBA{0x2b, 0x4a, 0x6f, 0xff}
	nanColor  = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
)

// newPlot returns a plot styled like the rest of the report: white, sans-serif, grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = color.White
	p.Title.Text = title
	// Only the fonts change: the styles' alignments and rotations are gonum's.
	p.Title.TextStyle.Font = font.From(plotstyle.Sans, 14)
	p.Title.Padding = plotstyle.Px(8)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(plotstyle.Sans, 11)
		a.Tick.Label.Font = font.From(plotstyle.Sans, 10)
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Legend.TextStyle.Font = font.From(plotstyle.Sans, 10)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// Render draws the figure as "png" (96 dpi, 900×520 pixels) or "svg" (text in the Liberation
// Sans family, not embedded). It returns an error for another format; a panic inside
// gonum/plot (it panics on some degenerate inputs) becomes an error naming the figure.
func (f Figure) Render(format string) (data []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("sweep: rendering plot %s: %v", f.Name, r)
		}
	}()
	p := f.build()
	w, h := plotstyle.Px(figureWidthPx), plotstyle.Px(figureHeightPx)
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotstyle.DPI))}
	case "svg":
		c = vgsvg.New(w, h)
	default:
		return nil, fmt.Errorf("sweep: unknown plot format %q", format)
	}
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("sweep: writing plot %s: %w", f.Name, err)
	}
	return buf.Bytes(), nil
}

// Figures returns the report's figures: for each metric (up to 10) the metric against each
// parameter (up to 4) with its median and p25–p75 and p5–p95 bands, a heat map of the median
// over the first two parameters, and the distribution (CDF) at up to six grid points. Plots
// pool the runs of every other parameter's values and leave out runs without a value (their
// number is in the title); sweep.json's statistics count those as +∞ instead.
func Figures(res *Result) []Figure {
	var figs []Figure
	spec := res.Spec
	for mi, m := range spec.Metrics {
		if mi == maxPlottedMetrics {
			break
		}
		for pi := range spec.Parameters {
			if pi == maxPlottedParameters {
				break
			}
			if f, ok := bandFigure(res, m, pi); ok {
				figs = append(figs, f)
			}
		}
		if len(spec.Parameters) >= 2 {
			if f, ok := heatFigure(res, m); ok {
				figs = append(figs, f)
			}
		}
		if f, ok := cdfFigure(res, m); ok {
			figs = append(figs, f)
		}
	}
	return figs
}

// metricStem names a metric in plot file names: fileStem of the name when that changes
// nothing, else fileStem, "~" and a hash of the name, so that metrics named "a.b" and "a_b"
// (which fileStem maps alike) get different files.
func metricStem(name string) string {
	stem := fileStem(name)
	if stem == name {
		return stem
	}
	sum := sha256.Sum256([]byte(name))
	return stem + "~" + hex.EncodeToString(sum[:4])
}

// fileStem turns a name into something safe in a file name.
func fileStem(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// axisLabel names a metric's axis with its unit.
func axisLabel(m Metric) string {
	if u := m.Unit(); u != "" {
		return m.Name + " (" + u + ")"
	}
	return m.Name
}

func paramAxisLabel(p Parameter) string {
	if p.Type == "duration" {
		return p.Key + " (seconds)"
	}
	return p.Key
}

// paramAxis returns the x position of each of a parameter's values: the value itself when
// every value is numeric (a duration in seconds), otherwise its index; and whether a log
// scale applies.
func paramAxis(p Parameter) (xs []float64, numeric, log bool) {
	xs = make([]float64, len(p.Values))
	numeric = true
	for i, v := range p.Values {
		x, ok := numericValue(p.Type, v)
		if !ok {
			numeric = false
			break
		}
		xs[i] = x
	}
	if !numeric {
		for i := range xs {
			xs[i] = float64(i)
		}
		return xs, false, false
	}
	log = p.Log
	for _, x := range xs {
		if x <= 0 {
			log = false
		}
	}
	return xs, true, log
}

// categoryTicks labels integer positions with a parameter's values.
func categoryTicks(values []string) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(values))
	for i, v := range values {
		ticks[i] = plot.Tick{Value: float64(i), Label: v}
	}
	return ticks
}

// pooled returns, for each of n groups, the metric's values over the completed runs that
// group puts there (-1: in none), and how many completed runs in a group had none. Failed runs
// take no part in metric statistics: they are reported as failures of their own.
func pooled(res *Result, m Metric, n int, group func(r *RunRecord) int) (byGroup [][]float64, missing int) {
	byGroup = make([][]float64, n)
	for i := range res.Runs {
		r := &res.Runs[i]
		g := group(r)
		if g < 0 || r.Failed() {
			continue
		}
		v := r.Metrics[m.Name]
		if v == nil {
			missing++
			continue
		}
		byGroup[g] = append(byGroup[g], *v)
	}
	return byGroup, missing
}

// valueIndex maps each of a parameter's values to its position.
func valueIndex(values []string) map[string]int {
	index := make(map[string]int, len(values))
	for i, v := range values {
		index[v] = i
	}
	return index
}

func missingNote(missing int) string {
	if missing == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d runs without a value left out)", missing)
}

func bandFigure(res *Result, m Metric, pi int) (Figure, bool) {
	param := res.Spec.Parameters[pi]
	index := valueIndex(param.Values)
	byValue, missing := pooled(res, m, len(param.Values), func(r *RunRecord) int { return index[r.Parameters[pi].Value] })
	xs, numeric, logScale := paramAxis(param)
	type row struct{ x, p5, p25, p50, p75, p95 float64 }
	var rows []row
	for i, vs := range byValue {
		if len(vs) == 0 {
			continue
		}
		s := slices.Clone(vs)
		slices.Sort(s)
		rows = append(rows, row{xs[i], Quantile(s, 0.05), Quantile(s, 0.25), Quantile(s, 0.5), Quantile(s, 0.75), Quantile(s, 0.95)})
	}
	if len(rows) == 0 {
		return Figure{}, false
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		switch {
		case a.x < b.x:
			return -1
		case a.x > b.x:
			return 1
		}
		return 0
	})
	pooledNote := ""
	if len(res.Spec.Parameters) > 1 {
		pooledNote = ", other parameters pooled"
	}
	f := Figure{
		Name:  metricStem(m.Name) + "-vs-" + fileStem(param.Key),
		Title: fmt.Sprintf("%s vs %s%s", m.Name, shortKey(param.Key), missingNote(missing)),
		Caption: fmt.Sprintf("%s against %s: the median (line), the p25–p75 band (dark) and the p5–p95 band (light)%s.",
			m.Describe(), param.Key, pooledNote),
	}
	f.build = func() *plot.Plot {
		p := newPlot(f.Title, paramAxisLabel(param), axisLabel(m))
		band := func(lo, hi func(row) float64, c color.Color) *plotter.Polygon {
			ring := make(plotter.XYs, 0, 2*len(rows))
			for _, r := range rows {
				ring = append(ring, plotter.XY{X: r.x, Y: lo(r)})
			}
			for i := len(rows) - 1; i >= 0; i-- {
				ring = append(ring, plotter.XY{X: rows[i].x, Y: hi(rows[i])})
			}
			poly, err := plotter.NewPolygon(ring)
			if err != nil {
				panic(err)
			}
			poly.Color = c
			poly.LineStyle.Width = 0
			return poly
		}
		outer := band(func(r row) float64 { return r.p5 }, func(r row) float64 { return r.p95 }, bandOuter)
		inner := band(func(r row) float64 { return r.p25 }, func(r row) float64 { return r.p75 }, bandInner)
		med := make(plotter.XYs, len(rows))
		for i, r := range rows {
			med[i] = plotter.XY{X: r.x, Y: r.p50}
		}
		line, points, err := plotter.NewLinePoints(med)
		if err != nil {
			panic(err)
		}
		line.Color, line.Width = lineColor, vg.Points(2)
		points.Color, points.Shape = lineColor, draw.CircleGlyph{}
		p.Add(outer, inner, line, points)
		p.Legend.Add("p5–p95", outer)
		p.Legend.Add("p25–p75", inner)
		p.Legend.Add("median", line, points)
		switch {
		case !numeric:
			p.X.Tick.Marker = categoryTicks(param.Values)
			p.X.Min, p.X.Max = -0.5, float64(len(param.Values))-0.5
		case logScale:
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		padRange(&p.X, 0.04)
		padRange(&p.Y, 0.08)
		return p
	}
	return f, true
}

// padRange widens an axis a little so points on its ends are not clipped, unless its
// scale is logarithmic.
func padRange(a *plot.Axis, frac float64) {
	if _, isLog := a.Scale.(plot.LogScale); isLog {
		return
	}
	span := a.Max - a.Min
	if span <= 0 {
		span = math.Max(math.Abs(a.Max), 1)
	}
	a.Min -= span * frac
	a.Max += span * frac
}

// heatGrid is the median of a metric over two parameters (NaN where no run has a value).
type heatGrid struct {
	z      [][]float64 // [row][col]
	lo, hi float64
}

func (g heatGrid) Dims() (c, r int)   { return len(g.z[0]), len(g.z) }
func (g heatGrid) Z(c, r int) float64 { return g.z[r][c] }
func (g heatGrid) X(c int) float64    { return float64(c) }
func (g heatGrid) Y(r int) float64    { return float64(r) }
func (g heatGrid) Min() float64       { return g.lo }
func (g heatGrid) Max() float64       { return g.hi }

func heatFigure(res *Result, m Metric) (Figure, bool) {
	spec := res.Spec
	px, py := spec.Parameters[0], spec.Parameters[1]
	cols, rows := len(px.Values), len(py.Values)
	if cols*rows > maxHeatCells {
		return Figure{}, false
	}
	ix, iy := valueIndex(px.Values), valueIndex(py.Values)
	cells, missing := pooled(res, m, rows*cols, func(r *RunRecord) int {
		return iy[r.Parameters[1].Value]*cols + ix[r.Parameters[0].Value]
	})
	g := heatGrid{z: make([][]float64, rows), lo: math.Inf(1), hi: math.Inf(-1)}
	hasValue := false
	for r := range rows {
		g.z[r] = make([]float64, cols)
		for c, vs := range cells[r*cols : (r+1)*cols] {
			if len(vs) == 0 {
				g.z[r][c] = math.NaN()
				continue
			}
			s := slices.Clone(vs)
			slices.Sort(s)
			med := Quantile(s, 0.5)
			g.z[r][c] = med
			g.lo, g.hi = math.Min(g.lo, med), math.Max(g.hi, med)
			hasValue = true
		}
	}
	if !hasValue {
		return Figure{}, false
	}
	if g.hi <= g.lo {
		g.hi = g.lo + 1
	}
	pooledNote := ""
	if len(spec.Parameters) > 2 {
		pooledNote = "; the other parameters are pooled"
	}
	f := Figure{
		Name:  metricStem(m.Name) + "-heatmap",
		Title: fmt.Sprintf("median %s%s", m.Name, missingNote(missing)),
		Caption: fmt.Sprintf("The median of %s for each pair of %s and %s (grey: no run with a value)%s.",
			m.Describe(), px.Key, py.Key, pooledNote),
	}
	f.build = func() *plot.Plot {
		p := newPlot(f.Title, px.Key, py.Key)
		p.Legend.Top = false
		pal, err := brewer.GetPalette(brewer.TypeSequential, "YlOrRd", 9)
		if err != nil {
			panic(err)
		}
		hm := plotter.NewHeatMap(g, pal)
		hm.NaN = nanColor
		p.Add(hm)
		if cols*rows <= maxHeatLabels {
			var xys plotter.XYs
			var labels []string
			for r := range g.z {
				for c, z := range g.z[r] {
					if math.IsNaN(z) {
						continue
					}
					xys = append(xys, plotter.XY{X: float64(c), Y: float64(r)})
					labels = append(labels, formatIn(m.Unit(), z))
				}
			}
			if len(xys) > 0 {
				lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
				if err != nil {
					panic(err)
				}
				for i := range lb.TextStyle {
					st := plotstyle.Text(10, false)
					st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
					// The upper part of the palette is dark: write there in white.
					if (g.z[int(xys[i].Y)][int(xys[i].X)]-g.lo)/(g.hi-g.lo) > 0.6 {
						st.Color = color.White
					}
					lb.TextStyle[i] = st
				}
				p.Add(lb)
			}
		}
		p.X.Tick.Marker = categoryTicks(px.Values)
		p.Y.Tick.Marker = categoryTicks(py.Values)
		p.X.Min, p.X.Max = -0.5, float64(cols)-0.5
		p.Y.Min, p.Y.Max = -0.5, float64(rows)-0.5
		return p
	}
	return f, true
}

// cdfPoints picks the grid points a CDF figure shows: all of them when there are at most
// maxCDFPoints, otherwise the points at evenly spaced ranks of the median (the lowest and
// the highest median among them).
func cdfPoints(res *Result, mi int) []int {
	n := len(res.Points)
	if n <= maxCDFPoints {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	median := func(i int) float64 {
		if v := res.Points[i].Metrics[mi].P50; v != nil {
			return *v
		}
		return math.Inf(1)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ma, mb := median(a), median(b)
		switch {
		case ma < mb:
			return -1
		case ma > mb:
			return 1
		}
		return 0
	})
	var out []int
	for k := range maxCDFPoints {
		i := order[int(math.Round(float64(k)*float64(n-1)/float64(maxCDFPoints-1)))]
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

func cdfFigure(res *Result, m Metric) (Figure, bool) {
	mi := slices.IndexFunc(res.Spec.Metrics, func(x Metric) bool { return x.Name == m.Name })
	type curve struct {
		label string
		xys   plotter.XYs
	}
	var curves []curve
	for _, pi := range cdfPoints(res, mi) {
		pr := res.Points[pi]
		byGroup, missing := pooled(res, m, 1, func(r *RunRecord) int {
			if r.Point == pr.ID {
				return 0
			}
			return -1
		})
		values := byGroup[0]
		n := len(values) + missing // the completed runs
		if len(values) == 0 {
			continue
		}
		slices.Sort(values)
		xys := plotter.XYs{{X: values[0], Y: 0}}
		for i, v := range values {
			xys = append(xys, plotter.XY{X: v, Y: float64(i+1) / float64(n)})
		}
		label := pr.ID
		if len(pr.Parameters) > 0 {
			vals := make([]string, len(pr.Parameters))
			for i, pv := range pr.Parameters {
				vals[i] = pv.Value
			}
			label += ": " + strings.Join(vals, ", ")
		}
		curves = append(curves, curve{label: truncate(label, 48), xys: xys})
	}
	if len(curves) == 0 {
		return Figure{}, false
	}
	f := Figure{
		Name:  metricStem(m.Name) + "-cdf",
		Title: "distribution of " + m.Name,
		Caption: fmt.Sprintf("The empirical CDF of %s at %d grid points (all of them, or the ones at evenly spaced ranks of the median)%s. "+
			"A curve that stops below 1 has runs without a value.", m.Describe(), len(curves), legendKeys(res.Spec)),
	}
	f.build = func() *plot.Plot {
		p := newPlot(f.Title, axisLabel(m), "fraction of runs")
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.XOffs = plotstyle.Px(8)
		for i, c := range curves {
			l, err := plotter.NewLine(c.xys)
			if err != nil {
				panic(err)
			}
			l.StepStyle = plotter.PostStep
			l.Color, l.Width = plotstyle.Palette[i%len(plotstyle.Palette)], vg.Points(2)
			p.Add(l)
			p.Legend.Add(c.label, l)
		}
		p.Y.Min, p.Y.Max = 0, 1.02
		padRange(&p.X, 0.04)
		return p
	}
	return f, true
}

// legendKeys names the parameters a CDF legend lists the values of: "; legend: point: key, key".
func legendKeys(spec *Spec) string {
	if len(spec.Parameters) == 0 {
		return ""
	}
	keys := make([]string, len(spec.Parameters))
	for i, p := range spec.Parameters {
		keys[i] = p.Key
	}
	return "; the legend reads point: " + strings.Join(keys, ", ")
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// parseDurationText parses a duration written as on the command line.
func parseDurationText(s string) (time.Duration, error) {
	return time.ParseDuration(strings.TrimSpace(s))
}
