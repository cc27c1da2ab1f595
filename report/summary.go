package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// SummaryOptions says what WriteSummary prints beside the result itself.
type SummaryOptions struct {
	// ResultPath, EventsPath and ReportPath are where the files were written; empty ones are
	// not shown.
	ResultPath string
	EventsPath string
	ReportPath string
	// Reproduce is the command line that reruns exactly this run; empty: not shown.
	Reproduce string
}

// WriteSummary prints the short, scannable summary of r that `sim run` shows: the stop
// reason, virtual and wall time with the speed, convergence per action, every expectation
// with ✓ or ✗, the verdicts, where the files are, the command that reproduces the run, and a
// last line PASSED or FAILED. Control characters in any text are escaped (CleanText). It
// returns the first write error.
func WriteSummary(w io.Writer, r *Result, opts SummaryOptions) error {
	// Every string of the result may hold user text (names, messages quoting them): print a
	// copy with control characters escaped. Events and series are not printed here.
	shown := *r
	shown.Events, shown.Series = nil, nil
	r, opts = cleanStrings(&shown), cleanStrings(opts)
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }

	p("scenario\t%s (seed %d)\n", r.Scenario, r.Seed)
	stop := r.StopReason
	if r.StopDetail != "" {
		stop += ": " + r.StopDetail
	}
	p("stopped\t%s\n", stop)
	p("time\t%s virtual in %s wall (%s virtual seconds per wall second)\n",
		seconds(r.VirtualSeconds), seconds(r.WallSeconds), rate(r.VirtualSeconds, r.WallSeconds))
	p("events\t%d processed (%s events/s)\n", r.EventsProcessed, rate(float64(r.EventsProcessed), r.WallSeconds))
	p("trace\t%s\n", r.TraceHash)
	_ = tw.Flush()

	writeSection(ew, tw, "convergence", "no timeline actions", r.Convergence, func(c Convergence) {
		name := c.Name
		if name == "" {
			name = "-"
		}
		// The tab keeps "(… later)" in a column of its own, as it always was.
		p("  %s\t%s at %s\t%s\n", name, c.Action, seconds(c.At), strings.Replace(ConvergenceText(c), " (", "\t(", 1))
	})
	writeSection(ew, tw, "expectations", "none declared", r.Expectations, func(e ExpectationResult) {
		mark := "✗"
		if e.Passed {
			mark = "✓"
		}
		p("  %s %s\t%s\n", mark, e.Name, e.Message)
	})
	writeSection(ew, tw, "verdicts", "none (everything the run created converged)", r.Verdicts, func(v Verdict) {
		p("  %s\tdesired %d, ready %d (short %d)\t%s: %s\n", v.Workload, v.Desired, v.Ready, v.Short, v.Reason, v.Message)
	})

	fmt.Fprintln(ew)
	if opts.ResultPath != "" {
		p("result\t%s\n", opts.ResultPath)
	}
	if opts.ReportPath != "" {
		p("report\t%s\n", opts.ReportPath)
	}
	if opts.EventsPath != "" {
		p("events\t%s\n", opts.EventsPath)
	}
	if opts.Reproduce != "" {
		p("reproduce\t%s\n", opts.Reproduce)
	}
	_ = tw.Flush()

	held := len(r.Expectations) - len(r.FailedExpectations())
	verdict := "PASSED"
	if !r.Passed {
		verdict = "FAILED"
	}
	fmt.Fprintf(ew, "%s (%d/%d expectations held)\n", verdict, held, len(r.Expectations))
	return ew.err
}

// writeSection writes one section of the summary after a blank line: the title, then a row
// per item (row writes it to tw, which is flushed at the end), or "title: none" (none says
// what none means) when there are no items.
func writeSection[T any](w io.Writer, tw *tabwriter.Writer, title, none string, items []T, row func(T)) {
	fmt.Fprintln(w)
	if len(items) == 0 {
		fmt.Fprintf(w, "%s: %s\n", title, none)
		return
	}
	fmt.Fprintln(w, title)
	for _, it := range items {
		row(it)
	}
	_ = tw.Flush()
}

// ConvergenceText says in words when the world converged after c's action: when it last
// became converged and stayed so, and, when that is not the first time, when it first was and
// how many times it diverged again. "never converged" when it never was; "not converged at the
// end" when it was but did not stay.
func ConvergenceText(c Convergence) string {
	var s string
	switch {
	case c.ConvergedAt != nil:
		took := *c.ConvergedAt - c.At
		if c.Seconds != nil {
			took = *c.Seconds
		}
		s = fmt.Sprintf("converged at %s (%s later)", seconds(*c.ConvergedAt), seconds(took))
	case c.FirstConvergedAt != nil:
		s = "not converged at the end"
	default:
		return "never converged"
	}
	if c.Divergences > 0 && c.FirstConvergedAt != nil {
		s += fmt.Sprintf("; first converged at %s, diverged %d time(s) since", seconds(*c.FirstConvergedAt), c.Divergences)
	}
	return s
}

// seconds formats a number of seconds with at most three decimals, trailing zeros dropped,
// and the unit: 415.3s, 60s.
func seconds(s float64) string {
	f := strconv.FormatFloat(s, 'f', 3, 64)
	if strings.Contains(f, ".") {
		f = strings.TrimRight(strings.TrimRight(f, "0"), ".")
	}
	return f + "s"
}

// rate formats n/wall compactly (1234, 1.2k, 3.4M); "-" when wall is not positive.
func rate(n, wall float64) string {
	if wall <= 0 {
		return "-"
	}
	v := n / wall
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', 2, 64) + "G"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M"
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	default:
		return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0")
	}
}

// errWriter keeps the first write error and drops later writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}
