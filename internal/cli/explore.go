package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reconsim/reconsim/explore"
	"github.com/reconsim/reconsim/internal/words"
	"github.com/reconsim/reconsim/scenarios"
)

const exploreUsage = `Usage:
  sim explore SCENARIO [flags]

Searches the fault space the scenario's explore: section declares for a broken invariant
(docs/explore.md). Run 0 is the reference run (the scenario as written; it records each
controller's writes). The targeted strategies then perturb each controller at each of its
first explore.bound writes, as Sieve does: intermediate restarts it right after the write,
stale stalls its watches from there, unobserved coalesces its watch events in a window.
Random runs draw their faults and their seed from --seed and the run index. Every
finding is shrunk (drop faults, move them earlier, shorten them, drop objects; a step is
kept only if the same invariant still breaks) to DIR/repro-<invariant>-<run>.yaml, which
'sim run' fails the same way. Writes DIR/explore.json, explore.html and junit.xml.

Flags:
      --runs N          random runs (default 500)
      --seed S          the explore seed (default 1)
      --strategy S      random, intermediate, stale, unobserved or all (default random)
      --jobs N          runs at once (default: the number of CPUs)
      --shard i/n       run only shard i of n and write DIR/shard-i-of-n/; combine the
                        shards with 'sim merge', which also shrinks the findings
      --out DIR         the output directory (default out/explore-<name>)
      --no-shrink       keep the failing runs as they were
      --max-shrink N    runs shrinking may take per finding (default 300)
  -q, --quiet           no progress and no summary

Examples:
  sim explore explore-statefulset --runs 200
  sim explore explore-rolling-update --strategy all --jobs 2
  sim explore my.yaml --runs 10000 --shard 3/8 --out /results   # then: sim merge /results

Exit status: 0 nothing found, 1 an invariant broke (a finding), 2 bad input, 3 internal
error. A shard exits 0 once its results are written: 'sim merge' decides.
`

func (c *cli) cmdExplore(args []string) int {
	fs := c.flagSet("explore")
	runs := fs.Int("runs", 500, "")
	seed := fs.Uint64("seed", 1, "")
	strategy := fs.String("strategy", explore.StrategyRandom, "")
	jobs := fs.Int("jobs", 0, "")
	shardText := fs.String("shard", "", "")
	out := fs.String("out", "", "")
	noShrink := fs.Bool("no-shrink", false, "")
	maxShrink := fs.Int("max-shrink", explore.DefaultMaxShrinkRuns, "")
	quiet := fs.BoolP("quiet", "q", false, "")
	if done, code := c.parseFlags(fs, args, exploreUsage); done {
		return code
	}
	if fs.NArg() != 1 {
		return c.usageError("explore", "want one scenario, got %d arguments", fs.NArg())
	}
	if *maxShrink < 1 {
		return c.usageError("explore", "--max-shrink must be at least 1, got %d", *maxShrink)
	}
	shard, ok := c.shardFlag("explore", fs, *shardText)
	if !ok {
		return exitUsage
	}
	arg := fs.Arg(0)
	file, data, baseDir, err := scenarios.Resolve(arg)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim explore: %v\n", err)
		return exitUsage
	}
	opts := explore.Options{
		Runs: *runs, Seed: *seed, Strategy: *strategy, Jobs: *jobs, Shard: shard, Command: arg,
		NoShrink: *noShrink, MaxShrinkRuns: *maxShrink, Now: c.now, Controllers: c.controllers,
	}
	if !*quiet {
		opts.Progress, opts.ProgressStyle = c.stderr, c.progressStyle()
	}
	ctx, stopWatching := c.interruptContext()
	defer stopWatching()

	s, err := explore.Prepare(ctx, file, data, baseDir, opts)
	if code, done := c.exploreError(err); done {
		return code
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("out", "explore-"+s.Scenario().Name)
	}
	done, err := s.Execute(ctx)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim explore: %v\n", err)
		return exitFailed
	}
	if shard.Sharded() {
		path, err := s.WriteShard(dir, done)
		if err != nil {
			fmt.Fprintf(c.stderr, "sim explore: %v\n", err)
			return exitInternal
		}
		if !*quiet {
			fmt.Fprintf(c.stdout, "shard %s: %d runs; results in %s\ncombine the shards with: sim merge %s\n", shard, len(done), path, dir)
		}
		return exitOK
	}
	res, err := s.Finish(ctx, done)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim explore: %v\n", err)
		return exitFailed
	}
	return c.writeExplore(res, dir, *quiet)
}

// exploreError prints a Prepare or Merge error; done is false when there was none.
func (c *cli) exploreError(err error) (int, bool) {
	if err == nil {
		return 0, false
	}
	var errs scenarios.Errors
	var ue *explore.UsageError
	switch {
	case errors.As(err, &errs):
		fmt.Fprintln(c.stderr, err)
		fmt.Fprintf(c.stderr, "sim explore: %d %s; 'sim explain explore' documents the section\n", errs.Count(), words.Plural(errs.Count(), "problem", "problems"))
		return exitUsage, true
	case errors.As(err, &ue):
		fmt.Fprintf(c.stderr, "sim explore: %v\n", err)
		return exitUsage, true
	}
	fmt.Fprintf(c.stderr, "sim explore: %v\n", err)
	return exitInternal, true
}

// writeExplore writes a finished search's files and summary and returns the exit status.
func (c *cli) writeExplore(res *explore.Result, dir string, quiet bool) int {
	files, err := res.Write(dir)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim explore: %v\n", err)
		return exitInternal
	}
	if !quiet {
		fmt.Fprintln(c.stdout, res.String())
		fmt.Fprintf(c.stdout, "wrote %s\n", strings.Join(files, ", "))
	}
	if res.Failed() {
		return exitFailed
	}
	return exitOK
}

// mergeExplore merges explore shards (sim merge detects them).
func (c *cli) mergeExplore(dirs []string, out string, quiet bool) int {
	opts := explore.Options{Now: c.now}
	if !quiet {
		opts.Progress, opts.ProgressStyle = c.stderr, c.progressStyle()
	}
	res, err := explore.Merge(context.Background(), dirs, opts)
	if code, done := c.exploreError(err); done {
		return code
	}
	return c.writeExplore(res, out, quiet)
}
