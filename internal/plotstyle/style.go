package plotstyle

import (
	"image/color"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// DPI is the resolution figures are laid out and rasterized at: lengths are given in pixels
// at DPI (Px).
const DPI = 96

// Px converts n pixels at DPI to vg lengths (points).
func Px(n float64) vg.Length { return vg.Length(n * 72 / DPI) }

// Sans is the family of every text in a figure (an SVG names it and does not embed it).
var Sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Text is black Sans text of sizePt points, bold or regular.
func Text(sizePt float64, bold bool) text.Style {
	f := font.From(Sans, vg.Length(sizePt))
	if bold {
		f.Weight = xfont.WeightBold
	}
	return text.Style{Color: color.Black, Font: f, Handler: plot.DefaultTextHandler}
}

// The Tableau 10 colours. A figure that gives a colour a meaning (green is healthy, red is
// lost) uses it by name.
var (
	Blue   = color.RGBA{R: 0x4e, G: 0x79, B: 0xa7, A: 0xff}
	Orange = color.RGBA{R: 0xf2, G: 0x8e, B: 0x2b, A: 0xff}
	Green  = color.RGBA{R: 0x59, G: 0xa1, B: 0x4f, A: 0xff}
	Red    = color.RGBA{R: 0xe1, G: 0x57, B: 0x59, A: 0xff}
	Purple = color.RGBA{R: 0xb0, G: 0x7a, B: 0xa1, A: 0xff}
	Teal   = color.RGBA{R: 0x76, G: 0xb7, B: 0xb2, A: 0xff}
	Brown  = color.RGBA{R: 0x9c, G: 0x75, B: 0x5f, A: 0xff}
	Pink   = color.RGBA{R: 0xff, G: 0x9d, B: 0xa7, A: 0xff}
	Grey   = color.RGBA{R: 0x79, G: 0x70, B: 0x6e, A: 0xff}
	Gold   = color.RGBA{R: 0xc9, G: 0xa2, B: 0x27, A: 0xff}
)

// Palette is Tableau 10 in its order, for lines that need only to differ.
var Palette = []color.RGBA{Blue, Orange, Green, Red, Purple, Teal, Brown, Pink, Grey, Gold}
