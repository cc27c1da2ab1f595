package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/reconsim/reconsim/explore"
	"github.com/reconsim/reconsim/internal/words"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sweep"
)

const sweepUsage = `Usage:
  sim sweep FILE [flags]

Runs a parameter sweep (docs/sweep.md): the scenario the sweep file names, once per grid
point and seed, in parallel. Writes DIR/runs/<id>/run.json per run, then DIR/sweep.json,
sweep.csv, junit.xml, plots/ and sweep.html. A run that panics or hits a limit is
recorded as failed, with its seed and the command that reproduces it, and the sweep goes
on. Ctrl-C stops the sweep; the runs done so far are kept for --resume.

Flags:
      --jobs N          runs at once (default: the number of CPUs)
      --shard i/n       run only shard i of n (the runs whose index is i-1 modulo n) and
                        write DIR/shard-i-of-n/; combine the shards with 'sim merge'
      --out DIR         the output directory (default out/sweep-<name>)
      --resume          skip runs whose results are already in DIR
      --keep-results    also keep each run's result.json and events.jsonl
      --dry-run         print the run list and exit
      --allow-outside-paths
                        let scenario: and the scenario's file references name files
                        outside their file's directory (absolute paths, ../)
  -q, --quiet           no progress and no summary

Examples:
  sim sweep scenarios/sweeps/node-failure-grace-toleration.yaml
  sim sweep my-sweep.yaml --jobs 8 --out /tmp/sweep
  sim sweep my-sweep.yaml --shard 2/4 --out /results     # then: sim merge /results

Exit status: 0 every sweep expectation held and no run failed, 1 an expectation failed or
a run failed, 2 bad input, 3 internal error. A shard exits 0 once its results are written,
whatever they say: 'sim merge' decides.
`

const mergeUsage = `Usage:
  sim merge DIR... [flags]

Combines the shards of a sharded sweep ('sim sweep --shard i/n') into the sweep.json,
sweep.csv, junit.xml, plots and sweep.html the unsharded sweep would write, byte for
byte; or the shards of a sharded 'sim explore' into its explore.json, explore.html,
junit.xml and reproducers (the merge shrinks the findings). Each DIR is a shard directory (shard-i-of-n) or a directory holding them; every
shard 1/n..n/n must be present and finished.

Flags:
      --out DIR   where to write the results (default: the directory holding the first shard)
  -q, --quiet     no summary

Examples:
  sim merge /results
  sim merge a/shard-1-of-2 b/shard-2-of-2 --out merged

Exit status: 0 every sweep expectation held and no run failed, 1 an expectation failed or
a run failed, 2 bad input (missing or mismatched shards), 3 internal error.
`

// maxListedFailures bounds the failed runs a summary lists.
const maxListedFailures = 10

func (c *cli) cmdSweep(args []string) int {
	fs := c.flagSet("sweep")
	jobs := fs.Int("jobs", 0, "")
	shardText := fs.String("shard", "", "")
	out := fs.String("out", "", "")
	resume := fs.Bool("resume", false, "")
	keep := fs.Bool("keep-results", false, "")
	dryRun := fs.Bool("dry-run", false, "")
	quiet := fs.BoolP("quiet", "q", false, "")
	allowOutside := fs.Bool("allow-outside-paths", false, "")
	if done, code := c.parseFlags(fs, args, sweepUsage); done {
		return code
	}
	if fs.NArg() != 1 {
		return c.usageError("sweep", "want one sweep file, got %d arguments", fs.NArg())
	}
	if *jobs < 0 {
		return c.usageError("sweep", "--jobs must not be negative, got %d", *jobs)
	}
	shard, ok := c.shardFlag("sweep", fs, *shardText)
	if !ok {
		return exitUsage
	}
	spec, ok := c.loadSweep(fs.Arg(0), scenarios.ParseOptions{AllowOutsidePaths: *allowOutside, Controllers: c.controllerNames()})
	if !ok {
		return exitUsage
	}
	if *dryRun {
		return c.printPlan(spec, shard)
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("out", "sweep-"+spec.Name)
	}

	ctx, stopWatching := c.interruptContext()

	opts := sweep.Options{
		Jobs: *jobs, Shard: shard, OutDir: dir, Resume: *resume, KeepResults: *keep,
		RunScenario: c.runScenario, Controllers: c.controllers,
	}
	if !*quiet {
		opts.Progress, opts.ProgressStyle = c.stderr, c.progressStyle()
	}
	start := c.now()
	outcome, err := sweep.Run(ctx, spec, opts)
	wall := c.now().Sub(start)
	stopWatching()
	if errors.Is(err, sweep.ErrInterrupted) {
		fmt.Fprintf(c.stderr, "sim sweep: %v\n", err)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "sim sweep: %v\n", err)
		return exitInternal
	}
	if *quiet {
		return sweepExit(outcome, shard)
	}
	fmt.Fprintf(c.stdout, "sweep %s: %d runs executed, %d resumed, in %s wall\n", spec.Name, outcome.Executed, outcome.Resumed, wall.Round(1e6))
	if shard.Sharded() {
		failed := outcome.Failed()
		fmt.Fprintf(c.stdout, "shard %s: %d runs, %d failed; results in %s\n", shard, len(outcome.Runs), len(failed), outcome.Dir)
		c.listFailures(failed)
		fmt.Fprintf(c.stdout, "combine the shards with: sim merge %s\n", filepath.Dir(outcome.Dir))
		return exitOK
	}
	c.summarizeSweep(outcome)
	return sweepExit(outcome, shard)
}

func (c *cli) cmdMerge(args []string) int {
	fs := c.flagSet("merge")
	out := fs.String("out", "", "")
	quiet := fs.BoolP("quiet", "q", false, "")
	if done, code := c.parseFlags(fs, args, mergeUsage); done {
		return code
	}
	if fs.NArg() == 0 {
		return c.usageError("merge", "name at least one shard directory")
	}
	dir := *out
	if dir == "" {
		dir = filepath.Dir(filepath.Clean(fs.Arg(0)))
		if _, err := os.Stat(filepath.Join(fs.Arg(0), sweep.ShardFile)); err != nil {
			// The argument holds the shards: the results go beside them.
			dir = fs.Arg(0)
		}
	}
	if explore.HasShards(fs.Args()) {
		return c.mergeExplore(fs.Args(), dir, *quiet)
	}
	outcome, err := sweep.Merge(fs.Args(), dir)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim merge: %v\n", err)
		if outcome == nil {
			return exitUsage
		}
		return exitInternal
	}
	if !*quiet {
		c.summarizeSweep(outcome)
	}
	return sweepExit(outcome, sweep.Shard{})
}

// loadSweep loads a sweep file, printing warnings and problems; ok is false after a problem.
func (c *cli) loadSweep(path string, opts scenarios.ParseOptions) (*sweep.Spec, bool) {
	spec, warns, err := sweep.LoadWithOptions(path, opts)
	for _, w := range warns {
		fmt.Fprintf(c.stderr, "%s (warning)\n", report.CleanText(w.String()))
	}
	if err != nil {
		var errs sweep.Errors
		if errors.As(err, &errs) {
			printErrors(c.stderr, err)
			fmt.Fprintf(c.stderr, "sim sweep: %s: %d %s\n", path, errs.Count(), words.Plural(errs.Count(), "problem", "problems"))
		} else {
			fmt.Fprintf(c.stderr, "sim sweep: %v\n", err)
		}
		return nil, false
	}
	return spec, true
}

// progressStyle is a bar on a terminal, plain lines in CI (CI=true) or when stderr is not
// a terminal.
func (c *cli) progressStyle() sweep.ProgressStyle {
	if c.getenv("CI") == "true" {
		return sweep.ProgressLines
	}
	f, ok := c.stderr.(*os.File)
	if !ok {
		return sweep.ProgressLines
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return sweep.ProgressLines
	}
	return sweep.ProgressBar
}

func (c *cli) printPlan(spec *sweep.Spec, shard sweep.Shard) int {
	plan := spec.Plan()
	n := 0
	for _, r := range plan.Runs {
		if shard.Sharded() && r.Index%shard.Count != shard.Index-1 {
			continue
		}
		n++
		pt := plan.Points[r.Point]
		var sets []string
		for i, p := range spec.Parameters {
			sets = append(sets, p.Key+"="+pt.Values[i])
		}
		fmt.Fprintf(c.stdout, "%d\t%s\tseed %d\t%s\n", r.Index, r.ID, r.Seed, strings.Join(sets, " "))
	}
	fmt.Fprintf(c.stdout, "%d runs (%d grid points × %d seeds)", n, len(plan.Points), len(spec.Seeds))
	if shard.Sharded() {
		fmt.Fprintf(c.stdout, ", shard %s of %d runs", shard, len(plan.Runs))
	}
	fmt.Fprintln(c.stdout)
	return exitOK
}

// summarizeSweep prints the verdict, the expectations, the failed runs and the files.
func (c *cli) summarizeSweep(o *sweep.Outcome) {
	res := o.Result
	verdict := "PASSED"
	if !res.Passed {
		verdict = "FAILED"
	}
	if n := len(res.Findings()); n > 0 {
		verdict += fmt.Sprintf(" with %d %s", n, words.Plural(n, "finding", "findings"))
	}
	fmt.Fprintf(c.stdout, "sweep %s %s: %d %s in %d %s, %d passed their scenario's expectations, %d failed\n",
		res.Spec.Name, verdict, res.TotalRuns, words.Plural(res.TotalRuns, "run", "runs"), len(res.Points), words.Plural(len(res.Points), "point", "points"),
		res.PassedRuns, res.FailedRuns)
	for _, e := range res.Expectations {
		mark := "✓"
		switch {
		case e.Finding && !e.Passed:
			mark = "!" // a finding: the bound breaks, as the sweep file says it does
		case e.Finding, !e.Passed:
			mark = "✗"
		}
		line := fmt.Sprintf("  %s %s: %s", mark, e.Name, e.Message)
		switch {
		case len(e.FailingPoints) > 0 && e.Finding:
			line += " (past the bound at: " + strings.Join(truncateList(e.FailingPoints, 10), ", ") + ")"
		case len(e.FailingPoints) > 0:
			line += " (failing points: " + strings.Join(truncateList(e.FailingPoints, 10), ", ") + ")"
		}
		fmt.Fprintln(c.stdout, report.CleanText(line))
	}
	c.listFailures(o.Failed())
	for _, f := range o.Files {
		if filepath.Dir(f) == o.Dir {
			fmt.Fprintf(c.stdout, "  %s\n", f)
		}
	}
}

func (c *cli) listFailures(failed []sweep.RunRecord) {
	for i, r := range failed {
		if i == maxListedFailures {
			fmt.Fprintf(c.stdout, "  ... and %d more failed runs (see sweep.csv)\n", len(failed)-i)
			break
		}
		fmt.Fprintf(c.stdout, "  run %s (seed %d) failed: %s\n    reproduce: %s\n", r.ID, r.Seed, report.CleanText(words.FirstLine(r.Error)), report.CleanText(r.Reproduce))
	}
}

func truncateList(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(append([]string(nil), list[:n]...), fmt.Sprintf("and %d more", len(list)-n))
}

// sweepExit is the exit status of a finished sweep: a shard passes once written.
func sweepExit(o *sweep.Outcome, shard sweep.Shard) int {
	if shard.Sharded() || o.Result == nil || o.Result.Passed {
		return exitOK
	}
	return exitFailed
}

// shardFlag parses --shard for cmd (sweep, explore); the zero Shard when it was not given. A
// bad value has been reported as a usage error when ok is false.
func (c *cli) shardFlag(cmd string, fs *pflag.FlagSet, text string) (shard sweep.Shard, ok bool) {
	if !fs.Changed("shard") {
		return sweep.Shard{}, true
	}
	shard, err := sweep.ParseShard(text)
	if err != nil {
		c.usageError(cmd, "--shard: %v", err)
		return sweep.Shard{}, false
	}
	return shard, true
}
