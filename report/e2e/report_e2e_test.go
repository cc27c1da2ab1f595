//go:build e2e

package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

var (
	dirFlag    = flag.String("dir", "", "result directory holding report.html (from 'sim report')")
	chromePath = flag.String("chromium", "/usr/bin/chromium", "the Chromium binary")
)

// TestReportInBrowser opens DIR/report.html from disk, as a user would, and checks what a
// user sees: no console errors or exceptions, inline SVG plots, rows in the events table,
// and a filter that hides rows. It saves DIR/report.png and copies it to out/e2e/report.png
// at the repository root.
func TestReportInBrowser(t *testing.T) {
	require.NotEmpty(t, *dirFlag, "pass -args -dir DIR (a directory written by 'sim run' and 'sim report')")
	dir, err := filepath.Abs(*dirFlag)
	require.NoError(t, err)
	page := filepath.Join(dir, "report.html")
	require.FileExists(t, page)

	profile := t.TempDir()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(*chromePath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 2000),
	}
	var mu sync.Mutex
	var problems []string
	listen := func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				mu.Lock()
				problems = append(problems, "console.error: "+strings.Join(parts, " "))
				mu.Unlock()
			}
		case *runtime.EventExceptionThrown:
			text := "exception"
			if d := e.ExceptionDetails; d != nil {
				text = fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, d.Text)
				if d.Exception != nil {
					text += " " + d.Exception.Description
				}
			}
			mu.Lock()
			problems = append(problems, text)
			mu.Unlock()
		}
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	// No timeout on the context of the first Run: it owns the browser (chromedp.Run).
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithListener(listen))
	defer cancel()

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate("file://"+page),
		chromedp.WaitVisible(chromedp.CSS("#events")),
	))
	svgCount, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#plots figure svg").length`))
	require.NoError(t, err)
	require.Greater(t, svgCount, 0, "no inline SVG plots")
	const visibleRows = `Array.prototype.filter.call(document.querySelectorAll("#events tbody tr"), function (r) { return r.offsetParent !== null; }).length`
	rowCount, err := chromedp.Run(ctx, chromedp.Evaluate[int](visibleRows))
	require.NoError(t, err)
	require.Greater(t, rowCount, 1, "the events table shows no rows")
	verdict, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict")))
	require.NoError(t, err)
	require.Contains(t, []string{"PASSED", "FAILED"}, strings.TrimSpace(verdict))
	whyRows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#why table.why tr").length`))
	require.NoError(t, err)
	require.Greater(t, whyRows, 1, "the why section has no phases")

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)

	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#event-filter"), "TaintManagerEviction")))
	visibleAfter, err := chromedp.Run(ctx, chromedp.Evaluate[int](visibleRows))
	require.NoError(t, err)
	require.Greater(t, visibleAfter, 0, "the filter hid every row, even the matching ones")
	require.Less(t, visibleAfter, rowCount, "typing in the filter did not reduce the visible rows")

	// The reason selector alone (filter box cleared) keeps exactly the rows with that reason.
	const pickReason = `(function () {
		var f = document.getElementById("event-filter");
		f.value = ""; f.dispatchEvent(new Event("input"));
		var s = document.getElementById("event-reason");
		s.value = "TaintManagerEviction"; s.dispatchEvent(new Event("change"));
		var shown = Array.prototype.filter.call(document.querySelectorAll("#events tbody tr"), function (r) { return r.offsetParent !== null; });
		var wrong = shown.filter(function (r) { return r.getAttribute("data-reason") !== "TaintManagerEviction"; });
		return wrong.length > 0 ? -1 : shown.length;
	})()`
	reasonRows, err := chromedp.Run(ctx, chromedp.Evaluate[int](pickReason))
	require.NoError(t, err)
	require.Greater(t, reasonRows, 0, "the reason selector hid every row, or showed rows of another reason (-1)")
	require.Less(t, reasonRows, rowCount, "the reason selector did not reduce the visible rows")

	// Let late console messages arrive before judging.
	require.NoError(t, chromedp.Do(ctx, chromedp.Sleep(300*time.Millisecond)))
	mu.Lock()
	require.Empty(t, problems, "the page logged errors")
	mu.Unlock()

	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.png"), shot, 0o644))
	repoOut := filepath.Join("..", "..", "out", "e2e")
	require.NoError(t, os.MkdirAll(repoOut, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repoOut, "report.png"), shot, 0o644))
	t.Logf("svg plots: %d, event rows: %d, rows matching the filter: %d, rows of the chosen reason: %d, why rows: %d", svgCount, rowCount, visibleAfter, reasonRows, whyRows)
}
