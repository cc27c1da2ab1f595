package cli

import (
	"fmt"

	"github.com/reconsim/reconsim/report"
)

const reportUsage = `Usage:
  sim report DIR [flags]

Re-renders what a person looks at from a result directory written by 'sim run', without
re-running: DIR/series.csv, DIR/plots/*.png and *.svg, DIR/report.html and, when
DIR/trace.txt exists, DIR/trace.json for ui.perfetto.dev and the trace milestones of the
report's "why did it take this long" section. Reads DIR/result.json, DIR/events.jsonl and
DIR/trace.txt, which 'sim run'
writes into its --out directory on every run (--trace only prints the trace as well).

Flags:
  -q, --quiet   print nothing on success

Examples:
  sim run node-failure --out /tmp/nf && sim report /tmp/nf

Exit status: 0 rendered, 2 bad input (no or unreadable result.json), 3 writing failed.
`

func (c *cli) cmdReport(args []string) int {
	fs := c.flagSet("report")
	quiet := fs.BoolP("quiet", "q", false, "")
	if done, code := c.parseFlags(fs, args, reportUsage); done {
		return code
	}
	if fs.NArg() != 1 {
		return c.usageError("report", "want one result directory, got %d arguments", fs.NArg())
	}
	dir := fs.Arg(0)
	res, err := report.LoadResult(dir)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim report: %v\n", err)
		return exitUsage
	}
	if err := report.Render(dir, res); err != nil {
		fmt.Fprintf(c.stderr, "sim report: %v\n", err)
		return exitInternal
	}
	if !*quiet {
		fmt.Fprintf(c.stdout, "report  %s\n", dir+"/"+report.HTMLFile)
	}
	return exitOK
}
