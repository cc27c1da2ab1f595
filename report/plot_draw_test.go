package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/reconsim/reconsim/internal/plotstyle"
)

// imageProbe is the canvas layOut used to lay a figure out on: an image of the figure's size.
func imageProbe(w, h vg.Length) draw.Canvas {
	return draw.New(vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotstyle.DPI)))
}

// TestLayOutOnARecorderIsOnAnImage: a figure laid out on the recording probe has the size,
// marker label rows and panel areas it has laid out on an image canvas, so the figures'
// bytes do not depend on which one render uses. The fixture's figures, and one whose
// crowded markers take several label rows.
func TestLayOutOnARecorderIsOnAnImage(t *testing.T) {
	res := plotFixture()
	for i := range 12 {
		res.Convergence = append(res.Convergence, Convergence{Action: "scale", Name: fmt.Sprintf("a-long-action-name-%d", i), At: 300 + float64(i)})
	}
	figs := Plots(res)
	require.NotEmpty(t, figs)
	for _, f := range figs {
		t.Run(f.Name, func(t *testing.T) {
			entries := f.legendEntries()
			onImage := f.layOut(f.gonumPlots(), entries, imageProbe)
			onRecorder := f.layOut(f.gonumPlots(), entries, recordingProbe)
			assert.Equal(t, onImage, onRecorder)
			assert.Greater(t, onImage.nLevels, 1, "the markers take several rows")
			gps := f.gonumPlots()
			rec := recordingProbe(onImage.width, onImage.height)
			assert.Equal(t,
				rectangles(f.alignPanels(gps, imageProbe(onImage.width, onImage.height), onImage)),
				rectangles(f.alignPanels(gps, rec, onImage)),
				"the panels' areas")
			assert.Empty(t, rec.Canvas.(*recorder.Canvas).Actions, "laying out draws nothing")
		})
	}
}

func rectangles(cans []draw.Canvas) []vg.Rectangle {
	out := make([]vg.Rectangle, len(cans))
	for i, c := range cans {
		out[i] = c.Rectangle
	}
	return out
}

// TestPlotsDrawnInParallelAreDrawnAlone: the files drawPlots draws on several goroutines are
// the bytes each figure gives drawn alone, and writePlotFiles writes, lists and fails as the
// figures drawn and written one after the other would: a figure that cannot be drawn stops
// the writing there, with the figures before it written and none after it. (Run with -race:
// gonum/plot draws figures at once.)
func TestPlotsDrawnInParallelAreDrawnAlone(t *testing.T) {
	figs := Plots(plotFixture())
	require.Greater(t, len(figs), 4)
	var want [][]byte
	for _, f := range figs {
		png, err := f.PNG()
		require.NoError(t, err)
		svg, err := f.SVG()
		require.NoError(t, err)
		want = append(want, png, svg)
	}
	for _, workers := range []int{1, 3, 8} {
		d := drawPlots(figs, workers)
		for j := range want {
			got := d.get(j)
			require.NoError(t, got.err)
			assert.True(t, bytes.Equal(want[j], got.data), "%d workers: file %d differs", workers, j)
		}
		d.stop()
	}

	broken := append(append(append([]Plot(nil), figs[:2]...), Plot{Name: "broken"}), figs[2:]...)
	dir := t.TempDir()
	written, svgs, err := writePlotFiles(dir, broken)
	require.ErrorContains(t, err, "plot broken has no panels")
	var names []string
	for _, f := range figs[:2] {
		names = append(names, filepath.Join(dir, PlotsDir, f.Name+".png"), filepath.Join(dir, PlotsDir, f.Name+".svg"))
	}
	assert.Equal(t, names, written)
	assert.Equal(t, [][]byte{want[1], want[3]}, svgs)
	entries, err := os.ReadDir(filepath.Join(dir, PlotsDir))
	require.NoError(t, err)
	assert.Len(t, entries, 4, "nothing of the figures after the broken one")
}
