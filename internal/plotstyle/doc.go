// Package plotstyle is the one house style of reconsim's figures, shared by the run report's
// plots (report) and the sweep's figures (sweep): the resolution lengths are given at, the
// sans-serif family text is set in, and the colour palette.
//
// Contract: every value is a constant or is built once; Text returns a new style each call.
// The palette is Tableau 10, in its own order, which stays distinguishable for the common
// forms of colour blindness and on white.
package plotstyle
