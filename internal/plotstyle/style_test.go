package plotstyle

import (
	"testing"

	"github.com/stretchr/testify/assert"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/vg"
)

func TestPx(t *testing.T) {
	for _, tc := range []struct {
		px   float64
		want vg.Length
	}{{0, 0}, {96, 72}, {900, 675}, {4, 3}} {
		assert.Equal(t, tc.want, Px(tc.px), "%v px", tc.px)
	}
}

func TestText(t *testing.T) {
	regular, bold := Text(11, false), Text(11, true)
	assert.Equal(t, vg.Length(11), regular.Font.Size)
	assert.Equal(t, Sans.Typeface, regular.Font.Typeface)
	assert.NotEqual(t, xfont.WeightBold, regular.Font.Weight)
	assert.Equal(t, xfont.WeightBold, bold.Font.Weight)
}

// TestPaletteIsTableau10: ten distinct opaque colours, Tableau's first one first.
func TestPaletteIsTableau10(t *testing.T) {
	assert.Len(t, Palette, 10)
	seen := map[[3]uint8]bool{}
	for _, c := range Palette {
		assert.Equal(t, uint8(0xff), c.A)
		seen[[3]uint8{c.R, c.G, c.B}] = true
	}
	assert.Len(t, seen, 10, "the colours differ")
	assert.Equal(t, Blue, Palette[0])
}
