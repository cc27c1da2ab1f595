// Package e2e holds the browser test of report.html: behind the e2e build tag, it opens a
// rendered report in headless Chromium and checks that it renders without console errors,
// that the plots and the events table are there and that the events filter works. run.sh
// prepares a result directory and runs it.
package e2e
