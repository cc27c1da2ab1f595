package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reconsim/reconsim/internal/plotstyle"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure geometry, in pixels at plotstyle.DPI. A single panel is about 900×420 with its title and
// legend; stacked panels are shorter each so a three-panel figure stays on one screen.
const (
	plotWidthPx      = 900
	titleHeightPx    = 34
	singlePanelPx    = 330
	stackedPanelPx   = 215
	panelGapPx       = 14
	markerLevelPx    = 17
	maxMarkerLevels  = 3
	legendRowPx      = 22
	legendPadPx      = 10
	legendThumbPx    = 30
	legendGapPx      = 24
	sideMarginPx     = 12
	maxLegendRunes   = 48
	headroomFraction = 0.06
)

var (
	titleStyle      = plotstyle.Text(15, true)
	axisLabelStyle  = plotstyle.Text(11, false)
	tickLabelStyle  = plotstyle.Text(10, false)
	legendTextStyle = plotstyle.Text(11, false)
	markerTextStyle = plotstyle.Text(10, true)
	markerColor     = color.RGBA{R: 0x44, G: 0x44, B: 0x44, A: 0xff}
	gridColor       = color.RGBA{R: 0xe4, G: 0xe4, B: 0xe4, A: 0xff}
)

// legendEntry is one line's label and style in the legend below the panels.
type legendEntry struct {
	label string
	style lineStyle
}

func (p Plot) legendEntries() []legendEntry {
	var out []legendEntry
	seen := map[string]bool{}
	for _, pn := range p.panels {
		for _, l := range pn.lines {
			k := l.label + "\x00" + fmt.Sprint(l.style)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, legendEntry{label: truncateRunes(l.label, maxLegendRunes), style: l.style})
		}
	}
	return out
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// legendGrid lays the entries out in columns of equal width across the figure.
func legendGrid(entries []legendEntry) (cols, rows int, colWidth vg.Length) {
	if len(entries) == 0 {
		return 0, 0, 0
	}
	for _, e := range entries {
		w := plotstyle.Px(legendThumbPx+6) + legendTextStyle.Width(e.label) + plotstyle.Px(legendGapPx)
		if w > colWidth {
			colWidth = w
		}
	}
	avail := plotstyle.Px(plotWidthPx - 2*sideMarginPx)
	cols = int(avail / colWidth)
	if cols < 1 {
		cols = 1
	}
	if cols > len(entries) {
		cols = len(entries)
	}
	rows = (len(entries) + cols - 1) / cols
	return cols, rows, colWidth
}

// layout is where each part of a figure goes.
type layout struct {
	width, height vg.Length
	markerLevels  []int // per marker, the label row it is drawn on (0 is lowest)
	nLevels       int
	legendRows    int
}

func (p Plot) panelHeightPx() float64 {
	if len(p.panels) > 1 {
		return stackedPanelPx
	}
	return singlePanelPx
}

func (p Plot) heightPx(nLevels, legendRows int) float64 {
	h := titleHeightPx + p.panelHeightPx()*float64(len(p.panels)) + panelGapPx*float64(len(p.panels)-1)
	if nLevels > 0 {
		h += markerLevelPx*float64(nLevels) + 4
	}
	if legendRows > 0 {
		h += legendPadPx*2 + legendRowPx*float64(legendRows)
	}
	return h + 6
}

// render draws the figure in the given format ("png" or "svg") to w. gonum/plot panics on
// some degenerate inputs; a panic is turned into an error naming the figure.
func (p Plot) render(w io.Writer, format string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("report: rendering plot %s: %v", p.Name, r)
		}
	}()
	if len(p.panels) == 0 {
		return fmt.Errorf("report: plot %s has no panels", p.Name)
	}
	entries := p.legendEntries()
	gps := p.gonumPlots()
	lay := p.layOut(gps, entries, recordingProbe)

	var out vg.CanvasWriterTo
	switch format {
	case "png":
		out = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(lay.width, lay.height), vgimg.UseDPI(plotstyle.DPI))}
	case "svg":
		out = vgsvg.New(lay.width, lay.height)
	default:
		return fmt.Errorf("report: unknown plot format %q", format)
	}
	p.draw(draw.New(out), gps, lay, entries)
	if _, err := out.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing plot %s: %w", p.Name, err)
	}
	return nil
}

// layOut sizes the figure of the panels gps with legend entries, laying the panels out on
// a canvas probe makes of the figure's size without the marker label rows. The marker
// labels' rows depend only on horizontal positions, which do not depend on the height: the
// panels are laid out once to find them, then the figure is sized.
func (p Plot) layOut(gps []*plot.Plot, entries []legendEntry, probe func(w, h vg.Length) draw.Canvas) layout {
	_, legendRows, _ := legendGrid(entries)
	lay := layout{width: plotstyle.Px(plotWidthPx), legendRows: legendRows}
	cans := p.alignPanels(gps, probe(lay.width, plotstyle.Px(p.heightPx(0, legendRows))), lay)
	lay.markerLevels, lay.nLevels = p.markerLevels(gps[0], cans[0])
	lay.height = plotstyle.Px(p.heightPx(lay.nLevels, legendRows))
	return lay
}

// recordingProbe is layOut's canvas: laying out measures text and draws nothing, so a
// canvas that only records calls does (an image canvas would allocate and clear a bitmap of
// the whole figure for it; TestLayOutOnARecorderIsOnAnImage checks they agree).
func recordingProbe(w, h vg.Length) draw.Canvas {
	return draw.Canvas{Canvas: &recorder.Canvas{}, Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}
}

// gonumPlots builds one gonum plot per panel: axes, grid, step lines and marker lines.
func (p Plot) gonumPlots() []*plot.Plot {
	xMax := p.axis.maxSeconds / p.axis.unitSeconds
	out := make([]*plot.Plot, len(p.panels))
	for i, pn := range p.panels {
		gp := plot.New()
		gp.BackgroundColor = color.White
		styleAxis(&gp.X)
		styleAxis(&gp.Y)
		if i == len(p.panels)-1 {
			gp.X.Label.Text = p.axis.label()
		}
		gp.Y.Label.Text = pn.yLabel
		gp.X.Tick.Marker = niceTicker{target: 12}
		gp.Y.Tick.Marker = niceTicker{target: 5, integer: pn.integer}

		grid := plotter.NewGrid()
		grid.Vertical = draw.LineStyle{Color: gridColor, Width: plotstyle.Px(1)}
		grid.Horizontal = draw.LineStyle{Color: gridColor, Width: plotstyle.Px(1)}
		gp.Add(grid)
		gp.Add(markerLines{markers: p.markers, unit: p.axis.unitSeconds})

		yMin, yMax := 0.0, 0.0
		for _, l := range pn.lines {
			xys := make(plotter.XYs, len(l.points))
			for j, pt := range l.points {
				xys[j] = plotter.XY{X: pt.T / p.axis.unitSeconds, Y: pt.V}
				yMin = math.Min(yMin, pt.V)
				yMax = math.Max(yMax, pt.V)
			}
			// Hold the last value to the end of the axis, so a series that stopped changing
			// does not seem to stop existing.
			if n := len(xys); n > 0 && xys[n-1].X < xMax {
				xys = append(xys, plotter.XY{X: xMax, Y: xys[n-1].Y})
			}
			gp.Add(&plotter.Line{XYs: xys, StepStyle: plotter.PostStep, LineStyle: l.style.draw()})
		}
		if yMax <= yMin {
			yMax = yMin + 1
		}
		gp.X.Min, gp.X.Max = 0, xMax
		// A little room below the lowest value and above the peak keeps lines at zero or at
		// the top off the axis lines, where they would be hidden.
		span := yMax - yMin
		gp.Y.Min, gp.Y.Max = yMin-span*headroomFraction/2, yMax+span*headroomFraction
		out[i] = gp
	}
	return out
}

func styleAxis(a *plot.Axis) {
	a.Label.TextStyle.Font = axisLabelStyle.Font
	a.Tick.Label.Font = tickLabelStyle.Font
	a.LineStyle.Color = markerColor
	a.Tick.LineStyle.Color = markerColor
	a.Tick.Length = plotstyle.Px(6)
	a.Padding = plotstyle.Px(4)
}

func (s lineStyle) draw() draw.LineStyle {
	ls := draw.LineStyle{Color: s.color, Width: plotstyle.Px(s.widthPx)}
	for _, d := range s.dashPx {
		ls.Dashes = append(ls.Dashes, plotstyle.Px(d))
	}
	return ls
}

// alignPanels places the panels between the title (and the marker label rows) and the
// legend, with their data areas aligned on the same left and right edges.
func (p Plot) alignPanels(gps []*plot.Plot, c draw.Canvas, lay layout) []draw.Canvas {
	top := plotstyle.Px(titleHeightPx)
	if lay.nLevels > 0 {
		top += plotstyle.Px(markerLevelPx*float64(lay.nLevels) + 4)
	}
	bottom := plotstyle.Px(6)
	if lay.legendRows > 0 {
		bottom += plotstyle.Px(legendPadPx*2 + legendRowPx*float64(lay.legendRows))
	}
	area := draw.Crop(c, plotstyle.Px(sideMarginPx), -plotstyle.Px(sideMarginPx+8), bottom, -top)
	rows := make([][]*plot.Plot, len(gps))
	for i, gp := range gps {
		rows[i] = []*plot.Plot{gp}
	}
	tiles := draw.Tiles{Rows: len(gps), Cols: 1, PadY: plotstyle.Px(panelGapPx)}
	aligned := plot.Align(rows, tiles, area)
	out := make([]draw.Canvas, len(gps))
	for i := range aligned {
		out[i] = aligned[i][0]
	}
	return out
}

// markerLevels assigns each marker label the lowest row where it does not overlap the label
// before it on that row; labels past maxMarkerLevels rows share the top row.
func (p Plot) markerLevels(gp *plot.Plot, tile draw.Canvas) ([]int, int) {
	if len(p.markers) == 0 {
		return nil, 0
	}
	dc := gp.DataCanvas(tile)
	trX, _ := gp.Transforms(&dc)
	levels := make([]int, len(p.markers))
	ends := make([]vg.Length, maxMarkerLevels)
	for i := range ends {
		ends[i] = vg.Length(math.Inf(-1))
	}
	n := 1
	for i, m := range p.markers {
		x0, x1 := markerLabelSpan(trX(m.at/p.axis.unitSeconds), m.label, dc)
		lvl := maxMarkerLevels - 1
		for l := range ends {
			if x0 > ends[l]+plotstyle.Px(6) {
				lvl = l
				break
			}
		}
		ends[lvl] = x1
		levels[i] = lvl
		if lvl+1 > n {
			n = lvl + 1
		}
	}
	return levels, n
}

// markerLabelSpan is where a marker's label goes: right of the line, or left of it when it
// would run past the right edge of the data area.
func markerLabelSpan(x vg.Length, label string, dc draw.Canvas) (x0, x1 vg.Length) {
	w := markerTextStyle.Width(label)
	if x+plotstyle.Px(4)+w > dc.Max.X {
		return x - plotstyle.Px(4) - w, x - plotstyle.Px(4)
	}
	return x + plotstyle.Px(4), x + plotstyle.Px(4) + w
}

// draw paints the whole figure onto c.
func (p Plot) draw(c draw.Canvas, gps []*plot.Plot, lay layout, entries []legendEntry) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())

	ts := titleStyle
	ts.XAlign = draw.XCenter
	ts.YAlign = draw.YTop
	c.FillText(ts, vg.Point{X: c.Center().X, Y: c.Max.Y - plotstyle.Px(8)}, p.Title)

	cans := p.alignPanels(gps, c, lay)
	for i, gp := range gps {
		gp.Draw(cans[i])
	}
	p.drawMarkerLabels(c, gps, cans, lay)
	p.drawLegend(c, entries)
}

// drawMarkerLabels writes each marker's label in the rows above the top panel, with a thin
// leader from the label down to the panel, so labels never cover data.
func (p Plot) drawMarkerLabels(c draw.Canvas, gps []*plot.Plot, cans []draw.Canvas, lay layout) {
	if len(p.markers) == 0 {
		return
	}
	dc := gps[0].DataCanvas(cans[0])
	trX, _ := gps[0].Transforms(&dc)
	sty := markerTextStyle
	sty.Color = markerColor
	sty.YAlign = draw.YBottom
	leader := draw.LineStyle{Color: markerColor, Width: plotstyle.Px(1)}
	for i, m := range p.markers {
		x := trX(m.at / p.axis.unitSeconds)
		if x < dc.Min.X-plotstyle.Px(0.5) || x > dc.Max.X+plotstyle.Px(0.5) {
			continue
		}
		base := dc.Max.Y + plotstyle.Px(3) + plotstyle.Px(markerLevelPx)*vg.Length(lay.markerLevels[i])
		x0, _ := markerLabelSpan(x, m.label, dc)
		c.StrokeLine2(leader, x, dc.Max.Y, x, base+plotstyle.Px(markerLevelPx-4))
		sty.XAlign = draw.XLeft
		c.FillText(sty, vg.Point{X: x0, Y: base}, m.label)
	}
}

func (p Plot) drawLegend(c draw.Canvas, entries []legendEntry) {
	cols, rows, colWidth := legendGrid(entries)
	if cols == 0 {
		return
	}
	total := colWidth * vg.Length(cols)
	left := c.Min.X + (c.Max.X-c.Min.X-total)/2
	top := c.Min.Y + plotstyle.Px(6) + plotstyle.Px(legendPadPx) + plotstyle.Px(legendRowPx)*vg.Length(rows)
	sty := legendTextStyle
	sty.YAlign = draw.YCenter
	for i, e := range entries {
		col, row := i%cols, i/cols
		x := left + colWidth*vg.Length(col)
		y := top - plotstyle.Px(legendRowPx)*vg.Length(row) - plotstyle.Px(legendRowPx)/2
		c.StrokeLine2(e.style.draw(), x, y, x+plotstyle.Px(legendThumbPx), y)
		c.FillText(sty, vg.Point{X: x + plotstyle.Px(legendThumbPx+6), Y: y}, e.label)
	}
}

// markerLines draws each timeline action as a dashed vertical line across a panel.
type markerLines struct {
	markers []marker
	unit    float64
}

// Plot implements plot.Plotter.
func (m markerLines) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	sty := draw.LineStyle{Color: markerColor, Width: plotstyle.Px(1.5), Dashes: []vg.Length{plotstyle.Px(6), plotstyle.Px(4)}}
	for _, mk := range m.markers {
		x := trX(mk.at / m.unit)
		if x < c.Min.X-plotstyle.Px(0.5) || x > c.Max.X+plotstyle.Px(0.5) {
			continue
		}
		c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	}
}

// niceTicker places major ticks on 1, 2 or 5 times a power of ten, about target of them
// across the range; integer keeps the step at 1 or more, for counts.
type niceTicker struct {
	target  int
	integer bool
}

// maxTicks bounds the ticks of any axis, whatever the range.
const maxTicks = 100

// Ticks implements plot.Ticker.
func (t niceTicker) Ticks(min, max float64) []plot.Tick {
	if !finite(min) || !finite(max) || max <= min {
		return []plot.Tick{{Value: min, Label: tickLabel(min, 0)}}
	}
	step := niceStep((max - min) / float64(t.target))
	if t.integer && step < 1 {
		step = 1
	}
	decimals := 0
	if step < 1 {
		decimals = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	start := math.Ceil(min/step-1e-9) * step
	var ticks []plot.Tick
	for i := 0; i < maxTicks; i++ {
		v := start + float64(i)*step
		if v > max+step*1e-9 {
			break
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v, decimals)})
	}
	return ticks
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if !(raw > 0) || !finite(raw) {
		return 1
	}
	exp := math.Floor(math.Log10(raw))
	base := math.Pow(10, exp)
	f := raw / base
	switch {
	case f <= 1:
		return base
	case f <= 2:
		return 2 * base
	case f <= 5:
		return 5 * base
	default:
		return 10 * base
	}
}

// tickLabel formats a tick value with the given decimals, thousands as k and millions as M.
func tickLabel(v float64, decimals int) string {
	if v == 0 {
		return "0"
	}
	av := math.Abs(v)
	switch {
	case av >= 1e6 && math.Mod(av, 1e5) == 0:
		return strings.TrimSuffix(strconv.FormatFloat(v/1e6, 'f', 1, 64), ".0") + "M"
	case av >= 1e4 && math.Mod(av, 100) == 0:
		return strings.TrimSuffix(strconv.FormatFloat(v/1e3, 'f', 1, 64), ".0") + "k"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}
